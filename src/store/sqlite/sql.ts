/** DialectSql on SQLite: one process writes at a time (BEGIN IMMEDIATE), so no locks, and no other node to tell. */
import { sql } from 'kysely';
import { num } from '../columns.js';
import type { DialectSql } from '../dialect-sql.js';
import { insertRecordChunks } from '../record-insert.js';
import { UniqueViolation } from '../store.js';
import { betterSqlite3 } from './better-sqlite3.js';

export const sqliteSql: DialectSql = {
  mapError(e: unknown): never {
    if (e instanceof betterSqlite3().SqliteError && (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')) {
      throw new UniqueViolation(e.message);
    }
    throw e;
  },
  // BEGIN IMMEDIATE already serialises every writer.
  lockRow: async () => {},
  lockingRead: (q) => q,
  packedRows: (_db, q) => q.execute(),
  rowWithList: async (_db, params, make, link) => {
    const { one, list } = make(params);
    const row = await one.executeTakeFirst();
    const value = row && (row as Record<string, unknown>)[link.slice(link.indexOf('.') + 1)];
    return { row, rows: row ? await list(sql.val(num(value))).execute() : [] };
  },
  lockDomainNames: async () => {},
  insertRecords: insertRecordChunks,
  announce: async () => {},
};
