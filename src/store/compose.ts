/** The store assembled from its aggregates over one Kysely handle, and what every dialect's store shares. */
import { Migrator, type Kysely } from 'kysely';
import { KyselyAccountStore } from './accounts.js';
import { KyselyApiKeyStore } from './api-keys.js';
import { KyselyCatalogStore } from './catalog.js';
import { KyselyCookieSecretStore } from './cookie-secrets.js';
import type { DialectSql } from './dialect-sql.js';
import { KyselyDnssecStore } from './dnssec.js';
import { KyselyDomainStore } from './domains.js';
import { KyselyEventStore } from './events.js';
import { KyselyHealthCheckStore } from './health-checks.js';
import { KyselyJournalStore } from './journal.js';
import { migrationProvider } from './migrations/index.js';
import { KyselyMirrorStore } from './mirrors.js';
import { KyselyRecordStore } from './records.js';
import { KyselySavepointStore } from './savepoints.js';
import { KyselySecondFactorStore } from './second-factors.js';
import type { Database } from './schema.js';
import type { StoreOps } from './store.js';
import { KyselyTsigKeyStore } from './tsig-keys.js';
import { KyselyUserStore } from './users.js';

type Part = new (db: Kysely<Database>, dialect: DialectSql) => object;

/** The aggregates, each a class whose prototype methods are exactly its interface's (helpers are module functions). */
const PARTS: Part[] = [
  KyselyAccountStore,
  KyselyUserStore,
  KyselyApiKeyStore,
  KyselyTsigKeyStore,
  KyselyDomainStore,
  KyselyRecordStore,
  KyselyMirrorStore,
  KyselyDnssecStore,
  KyselyJournalStore,
  KyselyCatalogStore,
  KyselyEventStore,
  KyselySavepointStore,
  KyselyCookieSecretStore,
  KyselySecondFactorStore,
  KyselyHealthCheckStore,
];

/**
 * One object answering every aggregate's methods, made for each transaction: it holds the parts, and its
 * prototype (filled once, below) passes each call to the part that has the method. A transaction thus costs
 * a dozen small objects and no bound copies of some seventy methods, which on SQLite was a fifth of a small
 * write's time (npm run bench -- update). No two parts share a name (test/store/compose.test.ts).
 */
class ComposedOps {
  readonly parts: object[];
  constructor(db: Kysely<Database>, dialect: DialectSql) {
    this.parts = PARTS.map((P) => new P(db, dialect));
  }
}
PARTS.forEach((P, i) => {
  for (const name of Object.getOwnPropertyNames(P.prototype)) {
    if (name === 'constructor') continue;
    // Writable, as a class's own methods are: a test may put a stand-in on one store object.
    Object.defineProperty(ComposedOps.prototype, name, {
      writable: true,
      configurable: true,
      value(this: ComposedOps, ...args: unknown[]): unknown {
        return (this.parts[i] as Record<string, (...a: unknown[]) => unknown>)[name]!(...args);
      },
    });
  }
});

/** Every aggregate's operations over `db`: the database itself, or an open transaction. */
export const storeOps = (db: Kysely<Database>, dialect: DialectSql): StoreOps => new ComposedOps(db, dialect) as unknown as StoreOps;

/** Applies pending migrations; `schema`: where Kysely keeps its migration tables when the database has several. */
export async function migrateToLatest(db: Kysely<Database>, schema: string | null): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
}
