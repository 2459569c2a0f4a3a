/** Kysely's SQLite dialect over better-sqlite3, with write-locking transactions and a statement cache. */
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDatabase, type SqliteStatement } from 'kysely';
import { betterSqlite3 } from './better-sqlite3.js';

/**
 * `BEGIN IMMEDIATE` takes the write lock when the transaction starts, so a transaction that reads and
 * then writes never fails half-way with SQLITE_BUSY when another process holds the file.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly database: SqliteDatabase) {
    super({ database });
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.database });
  }
}

const STATEMENT_CACHE = 256;

/** Opens the file with the pragmas we rely on and wraps it so Kysely reuses prepared statements. */
export function openSqlite(path: string): SqliteDialect {
  const raw = new (betterSqlite3())(path);
  raw.pragma('journal_mode = WAL');
  raw.pragma('foreign_keys = ON');
  // FULL: a commit is on disk before the API acknowledges it, even across power loss.
  raw.pragma('synchronous = FULL');
  raw.pragma('busy_timeout = 10000');
  const cache = new Map<string, SqliteStatement>();
  const database: SqliteDatabase = {
    close: () => raw.close(),
    prepare(sql: string): SqliteStatement {
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = raw.prepare(sql) as unknown as SqliteStatement;
        if (cache.size >= STATEMENT_CACHE) cache.delete(cache.keys().next().value as string);
        cache.set(sql, stmt);
      }
      return stmt;
    },
  };
  return new ImmediateSqliteDialect(database);
}
