/** Chooses the backend from a database URL: `sqlite:PATH` (default) or `postgres://…`. */
import type { PostgresOptions } from './postgres/dialect.js';
import { openPostgresStore } from './postgres/open.js';
import { openSqliteStore } from './sqlite/open.js';
import type { Store } from './store.js';

export type StoreOptions = PostgresOptions;

export function sqlitePath(url: string): string | null {
  if (url.startsWith('sqlite://')) return url.slice('sqlite://'.length) || ':memory:';
  if (url.startsWith('sqlite:')) return url.slice('sqlite:'.length) || ':memory:';
  return null;
}

export const isPostgresUrl = (url: string) => /^postgres(ql)?:\/\//.test(url);

/** Opens the store and applies pending migrations (on PostgreSQL after waiting for the database). */
export async function openStore(url: string, opts: StoreOptions = {}): Promise<Store> {
  const path = sqlitePath(url);
  let store: Store;
  if (path !== null) store = openSqliteStore(path);
  else if (isPostgresUrl(url)) store = await openPostgresStore(url, opts);
  else throw new Error(`unsupported database URL '${url}': use sqlite:PATH or postgres://…`);
  try {
    await store.migrate();
  } catch (e) {
    await store.close();
    throw e;
  }
  return store;
}
