/** The store assembled from its aggregates over one Kysely handle, and what every dialect's store shares. */
import { Migrator, type Kysely } from 'kysely';
import { KyselyAccountStore, type AccountStore } from './accounts.js';
import { KyselyApiKeyStore, type ApiKeyStore } from './api-keys.js';
import { KyselyCatalogStore, type CatalogStore } from './catalog.js';
import type { DialectSql } from './dialect-sql.js';
import { KyselyDnssecStore, type DnssecStore } from './dnssec.js';
import { KyselyDomainStore, type DomainStore } from './domains.js';
import { KyselyEventStore, type EventStore } from './events.js';
import { KyselyJournalStore, type JournalStore } from './journal.js';
import { migrationProvider } from './migrations/index.js';
import { KyselyMirrorStore, type MirrorStore } from './mirrors.js';
import { KyselyRecordStore, type RecordStore } from './records.js';
import { KyselySavepointStore, type SavepointStore } from './savepoints.js';
import type { Database } from './schema.js';
import type { StoreOps } from './store.js';
import { KyselyTsigKeyStore, type TsigKeyStore } from './tsig-keys.js';

/**
 * The part's methods as own properties bound to it, so that parts can be spread side by side into one object.
 * Every method of a part is one of its interface's (helpers are module functions), and no two parts share a
 * name (test/store/compose.test.ts), so none hides another.
 */
function methodsOf<T extends object>(part: T): T {
  const proto = Object.getPrototypeOf(part) as Record<string, unknown>;
  const names = Object.getOwnPropertyNames(proto).filter((name) => name !== 'constructor' && typeof proto[name] === 'function');
  return Object.fromEntries(names.map((name) => [name, (proto[name] as (...args: unknown[]) => unknown).bind(part)])) as T;
}

/** Every aggregate's operations over `db`: the database itself, or an open transaction. */
export function storeOps(db: Kysely<Database>, dialect: DialectSql): StoreOps {
  return {
    ...methodsOf<AccountStore>(new KyselyAccountStore(db, dialect)),
    ...methodsOf<ApiKeyStore>(new KyselyApiKeyStore(db, dialect)),
    ...methodsOf<TsigKeyStore>(new KyselyTsigKeyStore(db, dialect)),
    ...methodsOf<DomainStore>(new KyselyDomainStore(db, dialect)),
    ...methodsOf<RecordStore>(new KyselyRecordStore(db, dialect)),
    ...methodsOf<MirrorStore>(new KyselyMirrorStore(db)),
    ...methodsOf<DnssecStore>(new KyselyDnssecStore(db)),
    ...methodsOf<JournalStore>(new KyselyJournalStore(db)),
    ...methodsOf<CatalogStore>(new KyselyCatalogStore(db)),
    ...methodsOf<EventStore>(new KyselyEventStore(db, dialect)),
    ...methodsOf<SavepointStore>(new KyselySavepointStore(db)),
  };
}

/** Applies pending migrations; `schema`: where Kysely keeps its migration tables when the database has several. */
export async function migrateToLatest(db: Kysely<Database>, schema: string | null): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
}
