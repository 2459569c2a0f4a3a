/**
 * Inserting many records at once, as both dialects can (a VALUES list a few hundred rows a statement);
 * postgres/sql.ts has a faster way for more than one record and falls back to this for one.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { RecordData, StoredRecord } from '../model/records/index.js';
import { num } from './columns.js';
import type { Database } from './schema.js';

/** Rows per INSERT: 8 parameters each stays far below SQLite's (32766) and PostgreSQL's (65535) limits. */
const INSERT_CHUNK = 500;

/** The columns insertRecordChunks fills, in the order of its parameters' cells. */
const INSERT_COLUMNS = ['domain_id', 'type', 'name', 'ttl', 'data', 'steering', 'created_at', 'updated_at'] as const;

export function recordColumns(r: RecordData) {
  return { type: r.type, name: r.name, ttl: r.ttl, data: JSON.stringify(r.data), steering: r.steering ? JSON.stringify(r.steering) : null };
}

/**
 * An INSERT of a number of records returning their ids, as the dialect writes it, and where each of its
 * parameters comes from (`row * INSERT_COLUMNS.length + column`). A full chunk's is built by Kysely once per
 * dialect (for 10,000 records Kysely's query builder cost more than the database's insert); a shorter last
 * chunk's is built each time.
 */
interface InsertTemplate {
  sql: string;
  cells: number[];
}
const fullChunkInserts = new WeakMap<object, InsertTemplate>();

/**
 * The records inserted, with the ids RETURNING gave: only the ids come back, the rest is what was sent
 * (reading it back would parse every record's JSON again). Ids grow in the order of the rows inserted
 * (SQLite's rowids, PostgreSQL's identity), whatever order RETURNING lists them in.
 */
export function withIds(domainId: number, rs: readonly RecordData[], rows: readonly { id: unknown }[]): StoredRecord[] {
  const ids = rows.map((row) => num(row.id)).sort((a, b) => a - b);
  return storedAs(domainId, rs, (k) => ids[k] as number);
}

/** The records inserted, the k-th with the id `idOf(k)`. */
export function storedAs(domainId: number, rs: readonly RecordData[], idOf: (k: number) => number): StoredRecord[] {
  return rs.map((r, k) => ({ id: idOf(k), domainId, type: r.type, name: r.name, ttl: r.ttl, data: r.data, ...(r.steering ? { steering: r.steering } : {}) }));
}

/** Inserts the records INSERT_CHUNK a statement; returns them stored, in the order given. */
export async function insertRecordChunks(db: Kysely<Database>, domainId: number, rs: readonly RecordData[], now: number): Promise<StoredRecord[]> {
  const out: StoredRecord[] = [];
  for (let i = 0; i < rs.length; i += INSERT_CHUNK) {
    const chunk = rs.slice(i, i + INSERT_CHUNK);
    const template = insertTemplate(db, chunk.length);
    const values: unknown[] = [];
    for (const r of chunk) {
      const c = recordColumns(r);
      values.push(domainId, c.type, c.name, c.ttl, c.data, c.steering, now, now);
    }
    const { rows } = await db.executeQuery<{ id: unknown }>(CompiledQuery.raw(template.sql, template.cells.map((k) => values[k])));
    out.push(...withIds(domainId, chunk, rows));
  }
  return out;
}

/** The statement for `rows` records (see InsertTemplate), compiled from cells numbered in place of the values. */
function insertTemplate(db: Kysely<Database>, rows: number): InsertTemplate {
  const adapter = db.getExecutor().adapter;
  const cached = rows === INSERT_CHUNK ? fullChunkInserts.get(adapter) : undefined;
  if (cached) return cached;
  const n = INSERT_COLUMNS.length;
  const numbered = Array.from({ length: rows }, (_, r) => Object.fromEntries(INSERT_COLUMNS.map((c, k) => [c, r * n + k])));
  const compiled = db
    .insertInto('records')
    .values(numbered as never)
    .returning('id')
    .compile();
  const template = { sql: compiled.sql, cells: compiled.parameters.map(Number) };
  if (rows === INSERT_CHUNK) fullChunkInserts.set(adapter, template);
  return template;
}
