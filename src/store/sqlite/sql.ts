/** DialectSql on SQLite: one process writes at a time (BEGIN IMMEDIATE), so no locks, and no other node to tell. */
import { sql, type Kysely } from 'kysely';
import { num } from '../columns.js';
import type { DialectSql } from '../dialect-sql.js';
import type { KeptLists } from '../kept-lists.js';
import type { Database } from '../schema.js';
import { insertRecordChunks } from '../record-insert.js';
import { UniqueViolation } from '../store.js';
import { betterSqlite3 } from './better-sqlite3.js';

/**
 * What the database file holds now, as this connection can tell it: `data_version` moves with every commit of
 * another connection (another process on the file), `total_changes()` with every row this one changed. Read
 * before the rows it versions, so a write between the two makes the rows newer than their version, never older.
 */
async function fileVersion(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ v: string }>`select (select data_version from pragma_data_version) || '.' || total_changes() as v`.execute(db);
  return rows[0]?.v ?? '';
}

/**
 * `kept`: the lists read with `keep` (rowWithList), each with the file's version when it was read: handed out again
 * while nothing on the file changed. Not inside a transaction, whose own changes may yet be rolled back.
 */
export const sqliteSql = (kept: KeptLists): DialectSql => ({
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
  rowWithList: async (db, params, make, link, _columns, _order, keep) => {
    const { one, list } = make(params);
    const row = await one.executeTakeFirst();
    if (!row) return { row, rows: [] };
    const listed = () => list(sql.val(num((row as Record<string, unknown>)[link.slice(link.indexOf('.') + 1)]))).execute();
    if (!keep || db.isTransaction) return { row, rows: await listed() };
    const now = Date.now();
    const versions = await fileVersion(db);
    const held = kept.get(keep.slot, now);
    if (held?.versions === versions) return { row, rows: held.rows as never };
    const rows = Object.freeze(await listed());
    if (rows.length > 0) kept.set(keep.slot, kept.generation, { versions, rows, readAt: now });
    return { row, rows };
  },
  lockDomainNames: async () => {},
  insertRecords: insertRecordChunks,
  announce: async () => {},
});
