/** Migrations that rewrite stored data, on the backend the suite runs on (SQLite, or PostgreSQL with DATABASE_URL). */
import { Kysely, Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DOMAIN_DEFAULTS } from '../../src/model/domain.js';
import { V3_DEFAULTS } from '../../src/model/records/index.js';
import { KyselyOps } from '../../src/store/kysely-store.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import { openStore, sqlitePath } from '../../src/store/open.js';
import { createPool, parsePostgresUrl, postgresDialect, waitForDatabase } from '../../src/store/postgres/pg-dialect.js';
import type { Database } from '../../src/store/schema.js';
import { openSqlite } from '../../src/store/sqlite/sqlite-dialect.js';
import { freshDatabase } from '../support/server.js';

/** The database at `url` migrated up to `last` only, as an older release left it. */
async function olderDatabase(url: string, last: string): Promise<Kysely<Database>> {
  const path = sqlitePath(url);
  const parsed = path === null ? parsePostgresUrl(url) : null;
  if (parsed) await waitForDatabase(parsed, {});
  const db = new Kysely<Database>({ dialect: parsed ? postgresDialect(createPool(parsed, {})) : openSqlite(path as string) });
  const migrator = new Migrator({ db, provider: migrationProvider, ...(parsed?.schema ? { migrationTableSchema: parsed.schema } : {}) });
  const { error } = await migrator.migrateTo(last);
  if (error) throw error;
  return db;
}

const rethrow = (e: unknown): never => {
  throw e;
};

describe('003_canonical_aaaa', () => {
  it('rewrites stored AAAA targets to canonical text, over more than one page of rows, and leaves other records alone', async () => {
    const { url, cleanup } = freshDatabase();
    try {
      const db = await olderDatabase(url, '002_mirrors');
      // Written as the older release stored them: AAAA targets as the client spelled them.
      const spelled = Array.from({ length: 1500 }, (_, i) => `2001:0DB8:0:0::${(i + 1).toString(16).toUpperCase()}`);
      const domainId = await db.transaction().execute(async (trx) => {
        const ops = new KyselyOps(trx, rethrow);
        const account = await ops.createAccount('alice', 'hash', 1);
        const domain = await ops.insertDomain(account.id, { ...DOMAIN_DEFAULTS, domain: 'old.example', kind: 'master' }, 1, 1);
        for (const [i, target] of spelled.entries()) await ops.insertRecord(domain.id, { ...V3_DEFAULTS, type: 'AAAA', name: `v${i}`, target }, 1);
        await ops.insertRecord(domain.id, { ...V3_DEFAULTS, type: 'AAAA', name: 'mapped', target: '::FFFF:192.0.2.1' }, 1);
        await ops.insertRecord(domain.id, { ...V3_DEFAULTS, type: 'CNAME', name: 'c', target: 'Mixed.Example.NET' }, 1);
        return domain.id;
      });
      await db.destroy();

      const store = await openStore(url);
      try {
        const targets = (await store.listRecords(domainId)).map((r) => r.target);
        expect(targets).toEqual([...spelled.map((_, i) => `2001:db8::${(i + 1).toString(16)}`), '::ffff:192.0.2.1', 'Mixed.Example.NET']);
      } finally {
        await store.close();
      }
    } finally {
      await cleanup();
    }
  });
});
