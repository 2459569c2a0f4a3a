import { Kysely } from 'kysely';
import { KyselyStore } from '../kysely-store.js';
import type { Database } from '../schema.js';
import { UniqueViolation } from '../store.js';
import { betterSqlite3 } from './better-sqlite3.js';
import { openSqlite } from './sqlite-dialect.js';

function mapSqliteError(e: unknown): never {
  if (e instanceof betterSqlite3().SqliteError && (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')) {
    throw new UniqueViolation(e.message);
  }
  throw e;
}

export class SqliteStore extends KyselyStore {
  readonly dialect = 'sqlite' as const;

  static open(path: string): SqliteStore {
    return new SqliteStore(new Kysely<Database>({ dialect: openSqlite(path) }), mapSqliteError);
  }
}
