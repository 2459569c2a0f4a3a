/**
 * PostgreSQL-specific store behaviour: the schema URL parameter, start-up waiting, unique-violation
 * mapping, retrying a transaction whose connection is lost before it commits, and the triggers that stand
 * for records' foreign key to domains across concurrent transactions.
 */
import { createServer } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DOMAIN_DEFAULTS } from '../../src/model/domain.js';
import { parsePostgresUrl } from '../../src/store/postgres/dialect.js';
import { openStore } from '../../src/store/open.js';
import { UniqueViolation } from '../../src/store/store.js';
import { freshDatabase } from '../support/server.js';

const DATABASE_URL = process.env.DATABASE_URL;
if (!DATABASE_URL) console.log('PostgreSQL store tests skipped: set DATABASE_URL (e.g. postgres://127.0.0.1:5432/test) to run them');

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

function fresh(params: Record<string, string> = {}): string {
  const db = freshDatabase();
  cleanups.push(db.cleanup);
  const u = new URL(db.url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

async function query<T>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: parsePostgresUrl(DATABASE_URL as string).connectionString });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

describe.skipIf(!DATABASE_URL)('PostgreSQL store', () => {
  it('migrates while another installation in the same database drops its schema, again and again', async () => {
    // Kysely's migrator looks at every schema's tables; one dropped meanwhile must not fail our start.
    let churning = true;
    const churn = (async () => {
      for (let i = 0; churning; i++) {
        const other = `churn_${process.pid}_${i}`;
        await query(`create schema "${other}"; create table "${other}".t (id serial primary key); create table "${other}".u (id serial primary key)`);
        await query(`drop schema "${other}" cascade`);
      }
    })();
    try {
      for (let i = 0; i < 8; i++) await (await openStore(fresh())).close();
    } finally {
      churning = false;
      await churn;
    }
  }, 60_000);

  it('creates the schema named in the URL and keeps every table in it', async () => {
    const url = fresh();
    const schema = new URL(url).searchParams.get('schema');
    const store = await openStore(url);
    try {
      await store.createAccount('alice', 'hash', Date.now());
      const tables = await query<{ table_name: string }>('select table_name from information_schema.tables where table_schema = $1 order by 1', [schema]);
      expect(tables.map((t) => t.table_name)).toEqual(
        expect.arrayContaining(['accounts', 'api_keys', 'changes', 'domains', 'kysely_migration', 'mirror_state', 'records']),
      );
      const [row] = await query<{ username: string }>(`select username from "${schema}".accounts`);
      expect(row?.username).toBe('alice');
    } finally {
      await store.close();
    }
    // A second open finds the migrations applied and the data still there.
    const again = await openStore(url);
    expect((await again.accountByName('alice'))?.username).toBe('alice');
    await again.close();
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    const url = new URL(DATABASE_URL as string);
    url.searchParams.set('schema', 'x"; drop table y; --');
    await expect(openStore(url.toString())).rejects.toThrow(/schema parameter .* plain SQL identifier/);
  });

  it('maps a unique violation (23505) to UniqueViolation', async () => {
    const store = await openStore(fresh());
    try {
      await store.createAccount('bob', 'h', Date.now());
      await expect(store.createAccount('bob', 'h', Date.now())).rejects.toBeInstanceOf(UniqueViolation);
    } finally {
      await store.close();
    }
  });

  it('waits for an unreachable database, logging each attempt, then fails with a clear error', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const lines: string[] = [];
    await expect(openStore(`postgres://127.0.0.1:${port}/test`, { connectTimeoutMs: 1500, log: (m) => lines.push(m) })).rejects.toThrow(
      new RegExp(`cannot use PostgreSQL at 127\\.0\\.0\\.1:${port}/test \\(gave up after 2 s\\): connect ECONNREFUSED`),
    );
    expect(lines[0]).toMatch(new RegExp(`waiting for PostgreSQL at 127\\.0\\.0\\.1:${port}/test \\(attempt 1\\)`));
  });

  it('runs a transaction again when its connection is lost before commit, and applies it once', async () => {
    const app = `zh_retry_${process.pid}_${Date.now()}`;
    const lines: string[] = [];
    const store = await openStore(fresh({ application_name: app }), { log: (m) => lines.push(m) });
    try {
      let attempts = 0;
      const account = await store.transaction(async (tx) => {
        attempts++;
        const created = await tx.createAccount('carol', 'h', Date.now());
        if (attempts === 1) {
          // Another session kills this transaction's connection half-way.
          await query("select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and state = 'idle in transaction'", [app]);
        }
        await tx.insertKey(created.id, `hash-${attempts}`, 'prefix', 'label', Date.now(), null);
        return created;
      });
      expect(attempts).toBe(2);
      expect(lines.some((l) => /transaction failed .*; retrying \(attempt 2 of 4\)/.test(l))).toBe(true);
      expect((await store.accountByName('carol'))?.id).toBe(account.id);
      expect((await store.listKeys(account.id, Date.now())).map((k) => k.label)).toEqual(['label']);
    } finally {
      await store.close();
    }
  });

  it('goes on answering, alone and in transactions, when a migration adds a column under its prepared statements (a rolling upgrade)', async () => {
    const url = fresh();
    const schema = new URL(url).searchParams.get('schema');
    const store = await openStore(url);
    try {
      const account = await store.createAccount('dave', 'h', Date.now());
      await store.insertKey(account.id, 'hash-d', 'prefix', 'label', Date.now(), null);
      const keysNow = () => store.listKeys(account.id, Date.now()).then((ks) => ks.map((k) => k.label));
      // Every pooled connection has the statement prepared: several reads at once take several connections.
      await Promise.all(Array.from({ length: 4 }, keysNow));
      await query(`alter table "${schema}".api_keys add column rolling_upgrade integer`);
      expect(await Promise.all(Array.from({ length: 4 }, keysNow))).toEqual(Array.from({ length: 4 }, () => ['label']));
      await Promise.all(Array.from({ length: 4 }, () => store.transaction((tx) => tx.listKeys(account.id, Date.now()))));
      await query(`alter table "${schema}".api_keys add column rolling_upgrade_2 integer`);
      const inside = await Promise.all(Array.from({ length: 4 }, () => store.transaction((tx) => tx.listKeys(account.id, Date.now()))));
      expect(inside.map((ks) => ks.map((k) => k.label))).toEqual(Array.from({ length: 4 }, () => ['label']));
    } finally {
      await store.close();
    }
  });

  it("keeps records' domains as a foreign key would: a delete waits for the transaction adding records, then takes them too; an id in use stays", async () => {
    const url = fresh();
    const [writer, deleter] = [await openStore(url), await openStore(url)];
    let commit = () => {};
    try {
      const account = await writer.createAccount('dave', 'h', Date.now());
      const d = await writer.insertDomain(account.id, { ...DOMAIN_DEFAULTS, domain: 'fk.example', kind: 'master', soaEmail: 'h@fk.example' }, 1, Date.now());
      const records = Array.from({ length: 3500 }, (_, i) => ({ type: 'A', name: `h${i}`, ttl: 0, data: { address: '192.0.2.1' } }));
      let inserted!: () => void;
      const insertedP = new Promise<void>((r) => (inserted = r));
      const writing = writer.transaction(async (tx) => {
        // Not the domain's lock: only what the records themselves hold on their domain.
        await tx.insertRecords(d.id, records.slice(0, 1), Date.now());
        await tx.insertRecords(d.id, records.slice(1), Date.now());
        inserted();
        await new Promise<void>((r) => (commit = r));
      });
      await insertedP;
      let deleted = false;
      const deleting = deleter.deleteDomain(d.id).then(() => (deleted = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(deleted).toBe(false);
      commit();
      await writing;
      await deleting;
      expect(await writer.countRecords(d.id)).toBe(0);
      // The domain is gone now: adding records to it fails as the foreign key failed (23503).
      await expect(writer.transaction((tx) => tx.insertRecords(d.id, records, Date.now()))).rejects.toMatchObject({ code: '23503' });
      await expect(writer.transaction((tx) => tx.insertRecords(d.id, records.slice(0, 1), Date.now()))).rejects.toMatchObject({ code: '23503' });
      // A domain whose id records name keeps it; one without records may change it.
      const e = await writer.insertDomain(account.id, { ...DOMAIN_DEFAULTS, domain: 'fk2.example', kind: 'master', soaEmail: 'h@fk2.example' }, 1, Date.now());
      await writer.transaction((tx) => tx.insertRecords(e.id, records.slice(0, 2), Date.now()));
      const schema = new URL(url).searchParams.get('schema');
      await expect(query(`update "${schema}".domains set id = id + 1000 where id = $1`, [e.id])).rejects.toMatchObject({ code: '23503' });
      await expect(query(`update "${schema}".records set domain_id = $2 where domain_id = $1`, [e.id, 999_999])).rejects.toMatchObject({ code: '23503' });
      expect(await writer.countRecords(e.id)).toBe(2);
    } finally {
      commit();
      await writer.close();
      await deleter.close();
    }
  }, 30_000);
});
