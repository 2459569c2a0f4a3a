/** DialectSql on PostgreSQL: row and advisory locks across nodes, NOTIFY to tell them, one-statement bulk inserts. */
import { sql } from 'kysely';
import type { DialectSql } from '../dialect-sql.js';
import { insertRecordChunks, recordColumns, withIds } from '../record-insert.js';
import { UniqueViolation } from '../store.js';

function mapError(e: unknown): never {
  const err = e as { code?: string; constraint?: string; message?: string };
  if (err?.code === '23505') throw new UniqueViolation(err.constraint ?? err.message ?? 'unique');
  throw e;
}

/** `channel`: the NOTIFY channel the nodes of one database (and schema) share; `origin`: this process's tag on what it announces. */
export function postgresSql(channel: string, origin: string): DialectSql {
  return {
    mapError,
    lockRow: async (db, table, id) => {
      await db.selectFrom(table).select('id').where('id', '=', id).forNoKeyUpdate().execute();
    },
    lockingRead: (q) => q.forNoKeyUpdate(),
    lockDomainNames: async (db) => {
      await sql`select pg_advisory_xact_lock(hashtextextended('zonehost:domain-names', 0))`.execute(db);
    },
    /**
     * More than one record: every record in one statement of four array parameters (unnest), in their order.
     * A VALUES list of 3,500 parameters a statement is parsed and planned anew each time, which cost PostgreSQL
     * more than the insert itself.
     */
    insertRecords: async (db, domainId, rs, now) => {
      if (rs.length <= 1) return insertRecordChunks(db, domainId, rs, now);
      const columns = rs.map(recordColumns);
      const { rows } = await sql<{ id: unknown }>`
        insert into records (domain_id, type, name, ttl, data, created_at, updated_at)
        select ${domainId}::integer, r.type, r.name, r.ttl, r.data, ${now}::bigint, ${now}::bigint
        from unnest(${columns.map((c) => c.type)}::text[], ${columns.map((c) => c.name)}::text[], ${columns.map((c) => c.ttl)}::integer[], ${columns.map((c) => c.data)}::text[])
          with ordinality as r(type, name, ttl, data, n)
        order by r.n
        returning id`.execute(db);
      return withIds(domainId, rs, rows);
    },
    announce: async (db, change) => {
      await sql`select pg_notify(${channel}, ${JSON.stringify({ origin, change })})`.execute(db);
    },
  };
}
