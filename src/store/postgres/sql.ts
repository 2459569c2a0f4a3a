/** DialectSql on PostgreSQL: row and advisory locks across nodes, NOTIFY to tell them, bulk inserts by unnest and COPY. */
import { CompiledQuery, sql, type Expression, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { RecordData, StoredRecord } from '../../model/records/index.js';
import { num } from '../columns.js';
import { CompiledQueries } from '../compiled.js';
import type { DialectSql } from '../dialect-sql.js';
import { insertRecordChunks, recordColumns, storedAs, withIds } from '../record-insert.js';
import type { Database } from '../schema.js';
import { UniqueViolation } from '../store.js';
import { CopyRows } from './dialect.js';
import type { KeptLists } from '../kept-lists.js';

function mapError(e: unknown): never {
  const err = e as { code?: string; constraint?: string; message?: string };
  if (err?.code === '23505') throw new UniqueViolation(err.constraint ?? err.message ?? 'unique');
  throw e;
}

/** The name of the one column the packed rows come in (see DialectSql.packedRows), which a name of `one`'s never is. */
const PACKED = 'listed:packed';
/** The column of a kept list's versions (see keptRowWithList), another name `one` never has. */
const VERSIONS = 'listed:versions';

/**
 * The columns of the subquery `t` as one JSON value: an array of one array per column (json_agg), in the order
 * of `columns`. One column, not one per field: pg describes and parses one field instead of twenty.
 */
const packed = (columns: readonly string[]) => sql<unknown[][] | null>`json_build_array(${sql.join(columns.map((c) => sql`json_agg(${sql.ref(`t.${c}`)})`))})`.as(PACKED);

type RowMaker = (arrays: unknown[][], i: number) => Record<string, unknown>;
const rowMakers = new Map<string, RowMaker>();

/**
 * The function making row i of `columns` from their arrays: one object literal, compiled once per list of
 * columns. Rows made by assigning twenty fields one by one become dictionaries in V8 (past a dozen keyed stores),
 * slow to build and to read: for a list of 101 domains about a third of the server's CPU a request went there.
 * The names are the store's own column names, each written as a JSON string.
 */
function rowMaker(columns: readonly string[]): RowMaker {
  const key = columns.join(',');
  let make = rowMakers.get(key);
  if (!make) {
    make = new Function('a', 'i', `return { ${columns.map((c, j) => `${JSON.stringify(c)}: a[${j}][i]`).join(', ')} };`) as RowMaker;
    rowMakers.set(key, make);
  }
  return make;
}

/**
 * Rows from the packed columns: one aggregate's rows come in the order every other's do, so the i-th values
 * are one row's. In the order of `order`, a number column: aggregates over an ordered subquery keep its order
 * in practice, which PostgreSQL does not promise.
 */
function unpacked(packed: unknown[][] | null | undefined, columns: readonly string[], order: string): Record<string, unknown>[] {
  // An aggregate of no rows is null.
  const arrays = columns.map((_, j) => packed?.[j] ?? []);
  const count = arrays[0]?.length ?? 0;
  const make = rowMaker(columns);
  const rows: Record<string, unknown>[] = new Array(count);
  for (let i = 0; i < count; i++) rows[i] = make(arrays, i);
  return rows.sort((a, b) => (a[order] as number) - (b[order] as number));
}

/**
 * rowWithList with `keep`: the list's rows' versions (each row's id and xmin, hashed) are read first, and the
 * packed rows only when those differ from the versions of the rows kept for the slot (a CASE runs its subquery
 * only when it needs it), all in one statement as without `keep`.
 */
async function keptRowWithList<P, K, O>(
  db: Kysely<Database>,
  compiled: CompiledQueries,
  kept: KeptLists,
  params: P,
  make: (params: P) => {
    one: SelectQueryBuilder<Database, keyof Database, K>;
    list: (value: Expression<number>) => SelectQueryBuilder<Database, keyof Database, O>;
  },
  link: string,
  columns: readonly string[],
  order: string,
  keep: { table: string; slot: string },
): Promise<{ row: K | undefined; rows: readonly O[] }> {
  const now = Date.now();
  const held = kept.get(keep.slot, now);
  const generation = kept.generation;
  const query = compiled.compile<[P, string]>([params, held?.versions ?? ''], ([marked, heldVersions]) => {
    const { one, list } = make(marked);
    const t = list(sql.ref(link));
    const ids = t.clearSelect().select([sql.ref(`${keep.table}.${order}`).as('id'), sql<string>`${sql.ref(`${keep.table}.xmin`)}::text`.as('xmin')]);
    const versions = db.selectFrom(ids.as('v')).select(sql<string | null>`md5(string_agg(v.id::text || '.' || v.xmin, ','))`.as('versions'));
    const rows = db.selectFrom(t.as('t')).select(packed(columns));
    const listed = db
      .selectFrom(versions.as('w'))
      .select([sql.ref('w.versions').as(VERSIONS), sql`case when w.versions = ${heldVersions} then null else (${rows}) end`.as(PACKED)]);
    return one.innerJoinLateral(listed.as('listed'), (j) => j.onTrue()).selectAll('listed' as never);
  });
  const row = (await db.executeQuery(query)).rows[0] as Record<string, unknown> | undefined;
  if (!row) return { row: undefined, rows: [] };
  const versions = row[VERSIONS] as string | null;
  if (held && versions === held.versions) return { row: row as K, rows: held.rows as O[] };
  const rows = Object.freeze(unpacked(row[PACKED] as unknown[][] | null, columns, order));
  // An empty list has no versions (null): there is nothing to keep.
  if (versions !== null) kept.set(keep.slot, generation, { versions, rows, readAt: now });
  return { row: row as K, rows: rows as unknown as O[] };
}

/**
 * `channel`: the NOTIFY channel the nodes of one database (and schema) share; `origin`: this process's tag on
 * what it announces; `kept`: the lists read with `keep` (rowWithList).
 */
export function postgresSql(channel: string, origin: string, kept: KeptLists): DialectSql {
  const compiled = new CompiledQueries();
  return {
    mapError,
    lockRow: async (db, table, id) => {
      await db.selectFrom(table).select('id').where('id', '=', id).forNoKeyUpdate().execute();
    },
    lockingRead: (q) => q.forNoKeyUpdate(),
    packedRows: async (db, q, columns, order) => {
      const row = await db.selectFrom(q.as('t')).select(packed(columns)).executeTakeFirst();
      return unpacked(row?.[PACKED], columns, order) as never;
    },
    rowWithList: async (db, params, make, link, columns, order, keep) => {
      if (keep) return keptRowWithList(db, compiled, kept, params, make, link, columns, order, keep);
      const query = compiled.compile(params, (marked) => {
        const { one, list } = make(marked);
        const rows = db.selectFrom(list(sql.ref(link)).as('t')).select(packed(columns));
        // An aggregate gives one row even of no rows: the join keeps `one`'s row.
        return one.innerJoinLateral(rows.as('listed'), (j) => j.onTrue()).selectAll('listed' as never);
      });
      const row = (await db.executeQuery(query)).rows[0] as Record<string, unknown> | undefined;
      return { row: row as never, rows: row ? (unpacked(row[PACKED] as unknown[][] | null, columns, order) as never) : [] };
    },
    lockDomainNames: async (db) => {
      await sql`select pg_advisory_xact_lock(hashtextextended('zonehost:domain-names', 0))`.execute(db);
    },
    /**
     * More than one record: every record in one statement of four array parameters (unnest), in their order.
     * A VALUES list of 3,500 parameters a statement is parsed and planned anew each time, which cost PostgreSQL
     * more than the insert itself. From COPY_FROM records on, by COPY (insertByCopy).
     */
    insertRecords: async (db, domainId, rs, now) => {
      if (rs.length <= 1) return insertRecordChunks(db, domainId, rs, now);
      if (rs.length >= COPY_FROM) return insertByCopy(db, domainId, rs, now);
      const columns = rs.map(recordColumns);
      const { rows } = await sql<{ id: unknown }>`
        insert into records (domain_id, type, name, ttl, data, steering, created_at, updated_at)
        select ${domainId}::integer, r.type, r.name, r.ttl, r.data, r.steering, ${now}::bigint, ${now}::bigint
        from unnest(${columns.map((c) => c.type)}::text[], ${columns.map((c) => c.name)}::text[], ${columns.map((c) => c.ttl)}::integer[], ${columns.map((c) => c.data)}::text[], ${columns.map((c) => c.steering)}::text[])
          with ordinality as r(type, name, ttl, data, steering, n)
        order by r.n
        returning id`.execute(db);
      return withIds(domainId, rs, rows);
    },
    announce: async (db, change) => {
      await sql`select pg_notify(${channel}, ${JSON.stringify({ origin, change })})`.execute(db);
    },
  };
}

/**
 * From this many records on, insertByCopy costs the two processes less than unnest, whose array parameters pg
 * encodes and PostgreSQL parses element by element (10,000 records: 72 against 87 ms of CPU, bench/README.md);
 * below it, its statement more (the ids read back; two when this was measured) costs about what it saves.
 */
const COPY_FROM = 3000;

const COPY_SPECIAL = /[\\\n\r\t]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
/** A text value as COPY's text format takes it: backslash, newline, carriage return and tab escaped. */
const copyText = (s: string) => s.replace(COPY_SPECIAL, (c) => COPY_ESCAPES[c] as string);

/** Rows a piece of the COPY: PostgreSQL stores one while the next is written (CopyRows). */
const COPY_PIECE = 1000;

/** The records as COPY's text rows, COPY_PIECE a piece, each made when asked for. */
function* copyPieces(domainId: number, rs: readonly RecordData[], now: number): Generator<string> {
  for (let i = 0; i < rs.length; i += COPY_PIECE) {
    let rows = '';
    for (let k = i; k < Math.min(i + COPY_PIECE, rs.length); k++) {
      const c = recordColumns(rs[k] as RecordData);
      // \N: COPY's null, a record without steering.
      rows += `${domainId}\t${copyText(c.type)}\t${copyText(c.name)}\t${c.ttl}\t${copyText(c.data)}\t${c.steering === null ? '\\N' : copyText(c.steering)}\t${now}\t${now}\n`;
    }
    yield rows;
  }
}

/**
 * Inserts the records by COPY and answers them with their ids. COPY answers none, so they are read back: the
 * domain's `rs.length` highest ids. The caller holds the domain's lock (every batch writer does), so every other
 * record of the domain was inserted before this statement (by a transaction that held the lock and ended, or
 * earlier in this one) and has a lower id: the identity sequence hands ids out in increasing order. Usually those
 * ids are one run (no other insert took ids meanwhile), and only its ends are read; else the ids themselves.
 */
async function insertByCopy(db: Kysely<Database>, domainId: number, rs: readonly RecordData[], now: number): Promise<StoredRecord[]> {
  await db.executeQuery(CompiledQuery.raw('copy records (domain_id, type, name, ttl, data, steering, created_at, updated_at) from stdin', [new CopyRows(copyPieces(domainId, rs, now))]));
  const { rows } = await sql<{ first: number | null; last: number | null; n: string }>`
    select min(id) as first, max(id) as last, count(*) as n
    from (select id from records where domain_id = ${domainId} order by id desc limit ${rs.length}) copied`.execute(db);
  const { first, last, n } = rows[0] ?? { first: null, last: null, n: '0' };
  if (num(n) !== rs.length || first === null || last === null) throw new Error(`COPY of ${rs.length} records into domain ${domainId}: ${n} rows found after it`);
  if (last - first + 1 === rs.length) return storedAs(domainId, rs, (k) => first + k);
  // One row of every id as text rather than a row each: pg builds no object per record.
  const { rows: agg } = await sql<{ ids: string }>`
    select string_agg(id::text, ',') as ids
    from (select id from records where domain_id = ${domainId} order by id desc limit ${rs.length}) copied`.execute(db);
  return withIds(domainId, rs, (agg[0]?.ids ?? '').split(',').map((id) => ({ id })));
}
