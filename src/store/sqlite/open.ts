/** Opens the store on an SQLite file: one node, the whole cluster. */
import { Kysely, sql } from 'kysely';
import { migrateToLatest, storeOps } from '../compose.js';
import { KeptLists } from '../kept-lists.js';
import type { Database } from '../schema.js';
import type { Store, StoreOps } from '../store.js';
import { openSqlite } from './dialect.js';
import { sqliteSql } from './sql.js';

export function openSqliteStore(path: string): Store {
  const kysely = new Kysely<Database>({ dialect: openSqlite(path) });
  const dialect = sqliteSql(new KeptLists());
  // The store's one connection's view of commits by others (other processes on the file): PRAGMA data_version.
  let dataVersion: number | null = null;
  const othersWrote = async (): Promise<boolean> => {
    const { rows } = await sql<{ data_version: number }>`PRAGMA data_version`.execute(kysely);
    const seen = rows[0]?.data_version ?? null;
    const changed = seen === null || seen !== dataVersion;
    dataVersion = seen;
    return changed;
  };
  // The store is the operations over the database itself, with what only it has.
  return Object.assign(storeOps(kysely, dialect), {
    dialect: 'sqlite',
    transaction: (fn) => kysely.transaction().execute((trx) => fn(storeOps(trx, dialect))),
    // Without a shared server there are no other nodes to hear from, and this one is always the leader.
    listen: async () => null,
    leaderLock: () => null,
    othersWrote,
    migrate: () => migrateToLatest(kysely, null),
    close: () => kysely.destroy(),
  } satisfies Omit<Store, keyof StoreOps>);
}
