/**
 * What SQLite and PostgreSQL do differently, behind one interface: sqlite/sql.ts and postgres/sql.ts implement
 * it, and the aggregates' queries call it where the two differ.
 */
import type { Expression, Kysely, SelectQueryBuilder } from 'kysely';
import type { RecordData, StoredRecord } from '../model/records/index.js';
import type { ZoneEvent } from '../model/zone-event.js';
import type { Database } from './schema.js';

export interface DialectSql {
  /** Turns a driver error into UniqueViolation where it is one; rethrows everything else. */
  mapError(e: unknown): never;
  /**
   * Inside a transaction: holds the row until commit, so concurrent writers on it run one after the other
   * across processes. PostgreSQL takes a row lock; on SQLite this does nothing, because BEGIN IMMEDIATE
   * already serialises every writer.
   */
  lockRow(db: Kysely<Database>, table: 'domains' | 'accounts', id: number): Promise<void>;
  /** The query, made to lock the rows it reads as lockRow does (one round trip). */
  lockingRead<TB extends keyof Database, O>(q: SelectQueryBuilder<Database, TB, O>): SelectQueryBuilder<Database, TB, O>;
  /**
   * The rows of `q` (its `columns` selected, by output name, and the rows ordered by `order`, a number column),
   * as `q.execute()` gives them. PostgreSQL sends each column packed as one JSON array, the arrays in one field:
   * pg then parses one JSON text instead of every field of every row, which for a list of 101 domains cost the
   * server about 350 µs of CPU against 120, and PostgreSQL 160 against 90 (measured on 101 rows). Numbers come
   * back as numbers.
   */
  packedRows<O>(db: Kysely<Database>, q: SelectQueryBuilder<Database, keyof Database, O>, columns: readonly (keyof O & string)[], order: keyof O & string): Promise<O[]>;
  /**
   * The first row of `one` and the rows of the list `list` makes for its column `link` (qualified, and selected
   * by `one` under its own name), as packedRows gives them, both made by `make` of `params`: on PostgreSQL in one
   * statement (a lateral join), compiled once per shape of the parameters (see CompiledQueries.compile, whose
   * rule `make` keeps); on SQLite one query after the other.
   *
   * `keep`: the list's rows are all of `keep.table` (`order` its id), and `keep.slot` names the list (every
   * parameter it depends on). The rows are then kept with their version (kept-lists.ts), and the next read of
   * the slot gets them again only if a row was added, changed or removed since (PostgreSQL), or anything on the
   * file (SQLite): the same array otherwise, which its readers must not change.
   */
  rowWithList<P, K, O>(
    db: Kysely<Database>,
    params: P,
    make: (params: P) => {
      one: SelectQueryBuilder<Database, keyof Database, K>;
      list: (value: Expression<number>) => SelectQueryBuilder<Database, keyof Database, O>;
    },
    link: string,
    columns: readonly (keyof O & string)[],
    order: keyof O & string,
    keep?: { table: string; slot: string },
  ): Promise<{ row: K | undefined; rows: readonly O[] }>;
  /** Inside a transaction: queues writers that add or rename domains, across nodes (see DomainStore.lockDomainNames). */
  lockDomainNames(db: Kysely<Database>): Promise<void>;
  /**
   * Inserts the records in the order given and returns them stored (see RecordStore.insertRecords), inside the
   * transaction that holds the domain's lock (lockRow): PostgreSQL reads the ids of many records back after a COPY.
   */
  insertRecords(db: Kysely<Database>, domainId: number, rs: readonly RecordData[], now: number): Promise<StoredRecord[]>;
  /** Tells the other nodes about a change, once the transaction commits (see EventStore.announce). */
  announce(db: Kysely<Database>, change: ZoneEvent): Promise<void>;
}
