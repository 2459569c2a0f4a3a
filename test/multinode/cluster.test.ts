/**
 * Two zonehost processes (API-only roles) on one PostgreSQL database, hammered at the same time:
 * no lost update, strictly increasing serials in the journal, service-wide unique names (one winner,
 * one code 8), and no half-applied change.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePostgresUrl } from '../../src/store/postgres/dialect.js';
import { freshDatabase, v3 } from '../support/server.js';
import { addUser, startNode, stopNodes } from './nodes.js';

const DATABASE_URL = process.env.DATABASE_URL;
if (!DATABASE_URL) console.log('multi-node tests skipped: they need PostgreSQL; set DATABASE_URL (e.g. postgres://127.0.0.1:5432/test)');

const db = freshDatabase();

async function sql<T>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: parsePostgresUrl(DATABASE_URL as string).connectionString });
  await client.connect();
  try {
    const schema = new URL(db.url).searchParams.get('schema') as string;
    await client.query(`set search_path to "${schema}"`);
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

let nodeA = '';
let nodeB = '';
let key = '';

beforeAll(async () => {
  if (!DATABASE_URL) return;
  await addUser(db.url, 'alice', 'pw');
  [nodeA, nodeB] = (await Promise.all([startNode(db.url, '--no-dns'), startNode(db.url, '--no-dns')])).map((n) => n.base) as [string, string];
  key = (await v3(nodeA, { api_action: 'user.getapikey', username: 'alice', password: 'pw' })).DATA.API_KEY as string;
}, 60_000);

afterAll(async () => {
  await stopNodes();
  await db.cleanup();
});

describe.skipIf(!DATABASE_URL)('two nodes on one PostgreSQL database', () => {
  it('loses no update and keeps the serial strictly increasing under concurrent writes to one zone', async () => {
    const domainId = (await v3(nodeA, { api_action: 'domain.create', api_key: key, Domain: 'race.example', Type: 'master', SOA_Email: 'h@race.example' })).DATA
      .DomainID as number;
    const ROUNDS = 25;
    const created: number[] = [];
    // Record creates through both nodes, two writers each.
    const creator = (base: string, w: string) => async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const res = await v3(base, { api_action: 'domain.resource.create', api_key: key, DomainID: domainId, Type: 'TXT', Name: `${w}-${i}`, Target: `${w} ${i}` });
        expect(res.ERRORARRAY).toEqual([]);
        created.push(res.DATA.ResourceID as number);
      }
    };
    // Read-modify-write of different domain fields from the two nodes: a lost update would bring back an older value.
    const updater = (base: string, field: 'Description' | 'SOA_Email', value: (i: number) => string) => async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const res = await v3(base, { api_action: 'domain.update', api_key: key, DomainID: domainId, [field]: value(i) });
        expect(res.ERRORARRAY).toEqual([]);
      }
    };
    await Promise.all(
      [
        creator(nodeA, 'a1'),
        creator(nodeA, 'a2'),
        creator(nodeB, 'b1'),
        creator(nodeB, 'b2'),
        updater(nodeA, 'Description', (i) => `from A ${i}`),
        updater(nodeB, 'SOA_Email', (i) => `b${i}@race.example`),
      ].map((f) => f()),
    );

    const list = await v3(nodeB, { api_action: 'domain.resource.list', api_key: key, DomainID: domainId });
    const stored = (list.DATA as { RESOURCEID: number; NAME: string; TARGET: string }[]).map((r) => r.RESOURCEID).sort((x, y) => x - y);
    expect(stored).toEqual([...created].sort((x, y) => x - y));
    expect(stored).toHaveLength(4 * ROUNDS);
    const domain = (await v3(nodeA, { api_action: 'domain.list', api_key: key, DomainID: domainId })).DATA[0];
    expect(domain.DESCRIPTION).toBe(`from A ${ROUNDS - 1}`);
    expect(domain.SOA_EMAIL).toBe(`b${ROUNDS - 1}@race.example`);

    // The journal: one row per change, serials strictly increasing in commit order, ending at the zone's serial.
    const journal = await sql<{ serial: string; action: string }>('select serial, action from changes where domain_id = $1 order by id', [domainId]);
    expect(journal).toHaveLength(1 + 4 * ROUNDS + 2 * ROUNDS);
    const serials = journal.map((j) => Number(j.serial));
    for (let i = 1; i < serials.length; i++) expect(serials[i], `journal row ${i}`).toBeGreaterThan(serials[i - 1] as number);
    const [row] = await sql<{ serial: string }>('select serial from domains where id = $1', [domainId]);
    expect(Number(row?.serial)).toBe(serials.at(-1));
  }, 120_000);

  it('gives a name raced for on both nodes to exactly one account request; the other gets code 8', async () => {
    for (let i = 0; i < 10; i++) {
      const name = `contested-${i}.example`;
      const results = await Promise.all(
        [nodeA, nodeB].map((base) => v3(base, { api_action: 'domain.create', api_key: key, Domain: name, Type: 'master', SOA_Email: `h@${name}` })),
      );
      const codes = results.map((r) => (r.ERRORARRAY.length === 0 ? 0 : r.ERRORARRAY[0].ERRORCODE)).sort();
      expect(codes, name).toEqual([0, 8]);
      const rows = await sql<{ n: string }>('select count(*) as n from domains where domain = $1', [name]);
      expect(Number(rows[0]?.n)).toBe(1);
      // The loser left nothing behind: one creation in the journal for the name.
      const journal = await sql<{ n: string }>("select count(*) as n from changes where action = 'domain.create' and after like $1", [`%"${name}"%`]);
      expect(Number(journal[0]?.n)).toBe(1);
    }
  }, 60_000);

  it("lists domains on one node with the other node's writes from the next request on, through both interfaces", async () => {
    const listA = async () => (await v3(nodeB, { api_action: 'domain.list', api_key: key })).DATA as { DOMAINID: number; DOMAIN: string; DESCRIPTION: string }[];
    const listB = async () => (await (await fetch(`${nodeB}/v1/domains?limit=500`, { headers: { authorization: `Bearer ${key}` } })).json()) as { id: number; domain: string; default_ttl: number }[];
    const made = (await v3(nodeA, { api_action: 'domain.create', api_key: key, Domain: 'listed.example', Type: 'master', SOA_Email: 'h@listed.example' })).DATA.DomainID as number;
    // Read twice on node B: the second read may answer from what node B kept of the first.
    for (let i = 0; i < 2; i++) {
      expect((await listA()).find((d) => d.DOMAINID === made)?.DESCRIPTION).toBe('');
      expect((await listB()).find((d) => d.id === made)?.default_ttl).toBe(0);
    }
    expect((await v3(nodeA, { api_action: 'domain.update', api_key: key, DomainID: made, Description: 'changed on A', TTL_sec: 3600 })).ERRORARRAY).toEqual([]);
    expect((await listA()).find((d) => d.DOMAINID === made)?.DESCRIPTION).toBe('changed on A');
    expect((await listB()).find((d) => d.id === made)?.default_ttl).toBe(3600);
    expect((await v3(nodeA, { api_action: 'domain.delete', api_key: key, DomainID: made })).ERRORARRAY).toEqual([]);
    expect((await listA()).map((d) => d.DOMAINID)).not.toContain(made);
    expect((await listB()).map((d) => d.id)).not.toContain(made);
  });
});
