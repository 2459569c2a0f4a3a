/**
 * Records in bulk, on the backend the suite runs on (SQLite, or PostgreSQL with DATABASE_URL, where thousands of
 * records go by COPY): what a user can send comes back byte for byte, in order, with the ids it was given; a
 * failed write leaves nothing; a domain's records live and die with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOMAIN_DEFAULTS } from '../../src/model/domain.js';
import type { RecordData } from '../../src/model/records/index.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { freshDatabase } from '../support/server.js';

/** More than PostgreSQL's COPY threshold (postgres/sql.ts), so that path is the one tested there. */
const MANY = 3500;

/** TXT texts that COPY's text format, JSON or UTF-8 could get wrong. */
const AWKWARD = ['tab\there', 'new\nline', 'cr\rlf\r\n', 'back\\slash\\', '\\N', '\\.', '\\t literally', 'end\\', 'é ü ß 中文 🙂', 'lone \ud800 surrogate', '"quoted" {json} [x], a=b', '\u0000 nul \u0001 \u001f', ' leading and trailing ', ''];

let store: Store;
let cleanup: () => Promise<void>;
let accountId: number;
let n = 0;

beforeAll(async () => {
  const db = freshDatabase();
  cleanup = db.cleanup;
  store = await openStore(db.url);
  accountId = (await store.createAccount('bulk', 'hash', Date.now())).id;
});
afterAll(async () => {
  await store?.close();
  await cleanup?.();
});

async function domain(): Promise<number> {
  const name = `bulk${n++}.example`;
  return (await store.insertDomain(accountId, { ...DOMAIN_DEFAULTS, domain: name, kind: 'master', soaEmail: `hostmaster@${name}` }, 1, Date.now())).id;
}

/** `count` records, every AWKWARD text among them, at names of every shape a zone may hold. */
function records(count: number): RecordData[] {
  const names = ['', 'www', '*', '*.wild', '_sip._tcp', 'MiXeD.Case', 'a-b.c-d', 'x'.repeat(63)];
  return Array.from({ length: count }, (_, i): RecordData => {
    const name = i < names.length ? (names[i] as string) : `h${i}`;
    if (i % 3 === 0) return { type: 'A', name, ttl: i % 7, data: { address: `10.0.${i >> 8}.${i & 255}` } };
    return { type: 'TXT', name, ttl: 300, data: { text: `${AWKWARD[i % AWKWARD.length]} ${i}` } };
  });
}

/** Inserts as every batch writer does: in a transaction holding the domain's lock. */
const insert = (domainId: number, rs: readonly RecordData[]) =>
  store.transaction(async (tx) => {
    await tx.lockDomain(domainId);
    return tx.insertRecords(domainId, rs, Date.now());
  });

describe('records in bulk', () => {
  it(`stores ${MANY} records exactly as given, answering each one's own id, ids growing in their order`, async () => {
    const id = await domain();
    const rs = records(MANY);
    const stored = await insert(id, rs);
    expect(stored.map(({ type, name, ttl, data }) => ({ type, name, ttl, data }))).toEqual(rs);
    expect(stored.every((r, i) => r.domainId === id && (i === 0 || r.id > (stored[i - 1] as { id: number }).id))).toBe(true);
    // Read back as the zone is read: the same records, under the same ids.
    expect(await store.listRecords(id)).toEqual(stored);
    for (const k of [0, 1, 2, 13, 14, MANY - 1]) expect(await store.record(id, (stored[k] as { id: number }).id)).toEqual(stored[k]);
  });

  it('adds to a domain that holds records already, twice in one transaction, and leaves other domains alone', async () => {
    const [id, other] = [await domain(), await domain()];
    const first = await insert(id, records(10));
    await insert(other, records(MANY));
    const { a, b } = await store.transaction(async (tx) => {
      await tx.lockDomain(id);
      const a = await tx.insertRecords(id, records(MANY), Date.now());
      const b = await tx.insertRecords(id, records(MANY).reverse(), Date.now());
      return { a, b };
    });
    expect(b.map((r) => r.name)).toEqual(records(MANY).reverse().map((r) => r.name));
    expect(await store.listRecords(id)).toEqual([...first, ...a, ...b]);
    expect(await store.countRecords(other)).toBe(MANY);
  });

  it('answers each insert its own ids when inserts into several domains run at once (their ids interleave)', async () => {
    const ids = [await domain(), await domain(), await domain()];
    const stored = await Promise.all(ids.map((id) => insert(id, records(MANY))));
    for (const [k, id] of ids.entries()) expect(await store.listRecords(id)).toEqual(stored[k]);
  });

  it('writes nothing when the transaction fails after the insert, or when the domain does not exist', async () => {
    const id = await domain();
    await expect(
      store.transaction(async (tx) => {
        await tx.lockDomain(id);
        await tx.insertRecords(id, records(MANY), Date.now());
        throw new Error('refused after the insert');
      }),
    ).rejects.toThrow('refused after the insert');
    expect(await store.countRecords(id)).toBe(0);
    // The foreign key (on PostgreSQL its triggers): a record names a domain that exists.
    for (const count of [1, 10, MANY]) {
      await expect(store.transaction((tx) => tx.insertRecords(987_654, records(count), Date.now()))).rejects.toThrow(/foreign key/i);
    }
    expect(await store.countAllRecords()).toBe((await Promise.all((await store.domainKeys()).map((d) => store.countRecords(d.id)))).reduce((s, c) => s + c, 0));
  });

  it("deleting a domain deletes its records, and only its", async () => {
    const [id, kept] = [await domain(), await domain()];
    await insert(id, records(MANY));
    await insert(kept, records(20));
    await store.deleteDomain(id);
    expect(await store.countRecords(id)).toBe(0);
    expect(await store.countRecords(kept)).toBe(20);
  });
});
