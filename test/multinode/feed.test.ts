/**
 * The cluster feed: a node on PostgreSQL hears the changes other nodes make (its change bus, which the
 * DNS server patches its zones from, gets them), including ones whose notification it missed.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ZoneEvent } from '../../src/model/zone-event.js';
import { parsePostgresUrl } from '../../src/store/postgres/dialect.js';
import { freshDatabase, startTestServer, v3, type TestServer } from '../support/server.js';
import { waitFor } from './nodes.js';

const DATABASE_URL = process.env.DATABASE_URL;
if (!DATABASE_URL) console.log('cluster feed tests skipped: they need PostgreSQL; set DATABASE_URL (e.g. postgres://127.0.0.1:5432/test)');

const db = freshDatabase();
let writer: TestServer;
let reader: TestServer;
let key = '';
const heard: ZoneEvent[] = [];

beforeAll(async () => {
  if (!DATABASE_URL) return;
  writer = await startTestServer({ db: db.url, dns: null });
  reader = await startTestServer({ db: db.url, dns: null });
  ({ key } = await writer.user('feed'));
  reader.services.bus.on((c) => heard.push(c));
});

afterAll(async () => {
  await reader?.close();
  await writer?.close();
  await db.cleanup();
});

describe.skipIf(!DATABASE_URL)('a node on PostgreSQL', () => {
  it("hears another node's domain and record changes on its bus", async () => {
    const created = await v3(writer.base, { api_action: 'domain.create', api_key: key, Domain: 'feed.example', Type: 'master', SOA_Email: 'h@feed.example' });
    const domainId = created.DATA.DomainID as number;
    await waitFor('domain.created on the other node', () => heard.some((c) => c.kind === 'domain.created' && c.domain === 'feed.example'));

    const res = await v3(writer.base, { api_action: 'domain.resource.create', api_key: key, DomainID: domainId, Type: 'A', Name: 'www', Target: '192.0.2.1' });
    expect(res.ERRORARRAY).toEqual([]);
    const serial = (await writer.services.store.domainById(domainId))?.serial as number;
    await waitFor('records.changed on the other node', () => heard.some((c) => c.kind === 'records.changed' && c.domainId === domainId && c.serial === serial));

    await v3(writer.base, { api_action: 'domain.delete', api_key: key, DomainID: domainId });
    await waitFor('domain.deleted on the other node', () => heard.some((c) => c.kind === 'domain.deleted' && c.domainId === domainId));
  });

  it('catches up on a change whose notification never came (periodic reconciliation)', async () => {
    const created = await v3(writer.base, { api_action: 'domain.create', api_key: key, Domain: 'quiet.example', Type: 'master', SOA_Email: 'h@quiet.example' });
    const domainId = created.DATA.DomainID as number;
    await waitFor('domain.created', () => heard.some((c) => c.kind === 'domain.created' && c.domainId === domainId));
    // A write straight into the database, as if the node that made it died before its NOTIFY went out.
    const client = new pg.Client({ connectionString: parsePostgresUrl(DATABASE_URL as string).connectionString });
    await client.connect();
    try {
      const schema = new URL(db.url).searchParams.get('schema') as string;
      await client.query(`update "${schema}".domains set serial = serial + 1000 where id = $1`, [domainId]);
    } finally {
      await client.end();
    }
    const serial = (await reader.services.store.domainById(domainId))?.serial as number;
    await waitFor('the reconciled change', () => heard.some((c) => c.domainId === domainId && c.kind === 'domain.updated' && c.serial === serial), 20_000);
  }, 30_000);

  it("catches up on a zone mirror's transfer whose notification never came", async () => {
    // The master is a loopback address where no DNS server runs: the leader's first pull fails.
    const created = await v3(writer.base, { api_action: 'domain.create', api_key: key, Domain: 'mirror.example', Type: 'slave', master_ips: '127.0.0.1' });
    expect(created.ERRORARRAY).toEqual([]);
    const domainId = created.DATA.DomainID as number;
    await waitFor('the failed first pull', async () => (await writer.services.store.mirrorState(domainId))?.lastAttempt != null, 20_000);
    // A transfer recorded without announcing it, as if the leader died before its NOTIFY went out.
    const now = Date.now();
    await writer.services.store.saveMirrorState({ domainId, serial: 4242, lastSuccess: now, lastAttempt: now, lastError: null, zone: null });
    await waitFor('the reconciled transfer', () => heard.some((c) => c.domainId === domainId && c.kind === 'mirror.transferred' && c.serial === 4242), 20_000);
  }, 60_000);
});
