/** DialectSql on PostgreSQL: row and advisory locks across nodes, NOTIFY to tell them, bulk inserts by unnest and COPY. */
import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { RecordData } from '../../model/records/index.js';
import { CompiledQueries } from '../compiled.js';
import type { DialectSql } from '../dialect-sql.js';
import { insertRecordChunks, recordColumns, withIds } from '../record-insert.js';
import type { Database } from '../schema.js';
import { UniqueViolation } from '../store.js';
import { CopyRows } from './dialect.js';

function mapError(e: unknown): never {
  const err = e as { code?: string; constraint?: string; message?: string };
  if (err?.code === '23505') throw new UniqueViolation(err.constraint ?? err.message ?? 'unique');
  throw e;
}

/** The prefix of rowWithList's packed columns, which a name of `one`'s never starts with. */
const LISTED = 'listed:';

/** One JSON array a column of the subquery `t` (see DialectSql.packedRows), named `prefix` and the column. */
const aggregated = (columns: readonly string[], prefix: string) => columns.map((c) => sql<unknown[] | null>`json_agg(${sql.ref(`t.${c}`)})`.as(`${prefix}${c}`));

/**
 * Rows from aggregated columns: one aggregate's rows come in the order every other's do, so the i-th values
 * are one row's. In the order of `order`, a number column: aggregates over an ordered subquery keep its order
 * in practice, which PostgreSQL does not promise.
 */
function unpacked(packed: object | undefined, columns: readonly string[], order: string, prefix: string): Record<string, unknown>[] {
  const arrays = columns.map((c) => ((packed as Record<string, unknown[] | null> | undefined)?.[`${prefix}${c}`] ?? []));
  const count = arrays[0]?.length ?? 0;
  const rows: Record<string, unknown>[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const row: Record<string, unknown> = {};
    for (let j = 0; j < columns.length; j++) row[columns[j] as string] = (arrays[j] as unknown[])[i];
    rows[i] = row;
  }
  return rows.sort((a, b) => (a[order] as number) - (b[order] as number));
}

/** `channel`: the NOTIFY channel the nodes of one database (and schema) share; `origin`: this process's tag on what it announces. */
export function postgresSql(channel: string, origin: string): DialectSql {
  const compiled = new CompiledQueries();
  return {
    mapError,
    lockRow: async (db, table, id) => {
      await db.selectFrom(table).select('id').where('id', '=', id).forNoKeyUpdate().execute();
    },
    lockingRead: (q) => q.forNoKeyUpdate(),
    packedRows: async (db, q, columns, order) => {
      const row = await db.selectFrom(q.as('t')).select(aggregated(columns, '')).executeTakeFirst();
      return unpacked(row, columns, order, '') as never;
    },
    rowWithList: async (db, params, make, link, columns, order) => {
      const query = compiled.compile(params, (marked) => {
        const { one, list } = make(marked);
        const packed = db.selectFrom(list(sql.ref(link)).as('t')).select(aggregated(columns, LISTED));
        // An aggregate gives one row even of no rows: the join keeps `one`'s row.
        return one.innerJoinLateral(packed.as('listed'), (j) => j.onTrue()).selectAll('listed' as never);
      });
      const row = (await db.executeQuery(query)).rows[0] as object | undefined;
      return { row: row as never, rows: row ? (unpacked(row, columns, order, LISTED) as never) : [] };
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
      if (rs.length >= COPY_FROM) return withIds(domainId, rs, await insertByCopy(db, domainId, rs, now));
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
 * below it, its two more statements cost about what they save.
 */
const COPY_FROM = 3000;

const COPY_SPECIAL = /[\\\n\r\t]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
/** A text value as COPY's text format takes it: backslash, newline, carriage return and tab escaped. */
const copyText = (s: string) => s.replace(COPY_SPECIAL, (c) => COPY_ESCAPES[c] as string);

/**
 * Inserts the records by COPY and answers their ids. COPY answers none, so they are read back: the rows of the
 * domain above the highest id it had before. The caller holds the domain's lock (every batch writer does), so
 * no other transaction adds records to it meanwhile, and the identity sequence hands out ids in increasing
 * order, so those rows are exactly the ones copied; a count that differs fails the write rather than pair
 * records with ids that are not theirs.
 */
async function insertByCopy(db: Kysely<Database>, domainId: number, rs: readonly RecordData[], now: number): Promise<{ id: unknown }[]> {
  const before = await db.selectFrom('records').select((eb) => eb.fn.max('id').as('id')).where('domain_id', '=', domainId).executeTakeFirst();
  let rows = '';
  for (const r of rs) {
    const c = recordColumns(r);
    // \N: COPY's null, a record without steering.
    rows += `${domainId}\t${copyText(c.type)}\t${copyText(c.name)}\t${c.ttl}\t${copyText(c.data)}\t${c.steering === null ? '\\N' : copyText(c.steering)}\t${now}\t${now}\n`;
  }
  await db.executeQuery(CompiledQuery.raw('copy records (domain_id, type, name, ttl, data, steering, created_at, updated_at) from stdin', [new CopyRows(rows)]));
  // One row of every id as text rather than a row each: pg builds no object per record.
  const { rows: agg } = await sql<{ ids: string | null }>`
    select string_agg(id::text, ',' order by id) as ids from records where domain_id = ${domainId} and id > ${before?.id ?? 0}`.execute(db);
  const ids = (agg[0]?.ids ?? '').split(',').filter((id) => id !== '').map((id) => ({ id }));
  if (ids.length !== rs.length) throw new Error(`COPY of ${rs.length} records into domain ${domainId}: ${ids.length} rows found after it`);
  return ids;
}
