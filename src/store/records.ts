/** Records: each zone's resource records, their type's fields in one JSON column. */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { RecordData, StoredRecord } from '../model/records/index.js';
import type { Timestamps } from '../model/timestamps.js';
import type { Steering } from '../model/steering.js';
import { countRows, num } from './columns.js';
import type { DialectSql } from './dialect-sql.js';
import { recordColumns } from './record-insert.js';
import type { Database, RecordsTable } from './schema.js';

export interface RecordStore {
  insertRecord(domainId: number, r: RecordData, now: number): Promise<StoredRecord>;
  /** Inserts many records (under the domain's lock, see DialectSql.insertRecords); returns them stored, in the order given. */
  insertRecords(domainId: number, rs: readonly RecordData[], now: number): Promise<StoredRecord[]>;
  record(domainId: number, id: number): Promise<StoredRecord | undefined>;
  recordById(id: number): Promise<StoredRecord | undefined>;
  /** Every record of the domain, ordered by id. */
  listRecords(domainId: number): Promise<StoredRecord[]>;
  /** Every record of the domains with ids `firstId`..`lastId`, ordered by domain and id (the DNS server's start-up load). */
  recordsOfDomains(firstId: number, lastId: number): Promise<StoredRecord[]>;
  /** Records of the domain whose owner equals `name` case-insensitively. */
  recordsAt(domainId: number, name: string): Promise<StoredRecord[]>;
  /** Records of the domain whose owner is one of `names` (relative, lower case), case-insensitively. */
  recordsAtNames(domainId: number, names: readonly string[]): Promise<StoredRecord[]>;
  countRecords(domainId: number): Promise<number>;
  /** When each record of the domain was made and last changed, by id (a StoredRecord leaves them out). */
  recordTimes(domainId: number): Promise<Map<number, Timestamps>>;
  /** Records in the whole store (for metrics and consistency checks). */
  countAllRecords(): Promise<number>;
  updateRecord(id: number, r: RecordData, now: number): Promise<void>;
  deleteRecord(id: number): Promise<void>;
}

/** The columns a StoredRecord is made of (not the timestamps: nothing reads them back, and a bulk read pays for each). */
const RECORD_COLUMNS = ['id', 'domain_id', 'type', 'name', 'ttl', 'data', 'steering'] as const;

function toRecord(row: Pick<Selectable<RecordsTable>, (typeof RECORD_COLUMNS)[number]>): StoredRecord {
  const r: StoredRecord = {
    id: num(row.id),
    domainId: num(row.domain_id),
    type: row.type,
    name: row.name,
    ttl: num(row.ttl),
    data: JSON.parse(row.data) as RecordData['data'],
  };
  // Only records with steering carry the key: most have none, and the journal and answers show none for them.
  if (row.steering !== null) r.steering = JSON.parse(row.steering) as Steering;
  return r;
}

export class KyselyRecordStore implements RecordStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectSql,
  ) {}

  async insertRecord(domainId: number, r: RecordData, now: number): Promise<StoredRecord> {
    const row = await this.db
      .insertInto('records')
      .values({ domain_id: domainId, ...recordColumns(r), created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRecord(row);
  }

  insertRecords(domainId: number, rs: readonly RecordData[], now: number): Promise<StoredRecord[]> {
    return this.dialect.insertRecords(this.db, domainId, rs, now);
  }

  async record(domainId: number, id: number): Promise<StoredRecord | undefined> {
    const row = await this.db.selectFrom('records').select(RECORD_COLUMNS).where('domain_id', '=', domainId).where('id', '=', id).executeTakeFirst();
    return row && toRecord(row);
  }

  async recordById(id: number): Promise<StoredRecord | undefined> {
    const row = await this.db.selectFrom('records').select(RECORD_COLUMNS).where('id', '=', id).executeTakeFirst();
    return row && toRecord(row);
  }

  async listRecords(domainId: number): Promise<StoredRecord[]> {
    const rows = await this.db.selectFrom('records').select(RECORD_COLUMNS).where('domain_id', '=', domainId).orderBy('id').execute();
    return rows.map(toRecord);
  }

  async recordsOfDomains(firstId: number, lastId: number): Promise<StoredRecord[]> {
    const rows = await this.db
      .selectFrom('records')
      .select(RECORD_COLUMNS)
      .where('domain_id', '>=', firstId)
      .where('domain_id', '<=', lastId)
      .orderBy('domain_id')
      .orderBy('id')
      .execute();
    return rows.map(toRecord);
  }

  async recordsAt(domainId: number, name: string): Promise<StoredRecord[]> {
    return this.recordsAtNames(domainId, [name.toLowerCase()]);
  }

  async recordsAtNames(domainId: number, names: readonly string[]): Promise<StoredRecord[]> {
    // Sorted here, not by the query: ORDER BY id leads SQLite to walk the domain's (domain_id, id) index, every
    // record of it, rather than look the few names up by (domain_id, lower(name)).
    const rows = await this.db.selectFrom('records').select(RECORD_COLUMNS).where('domain_id', '=', domainId).where(sql`lower(name)`, 'in', [...names]).execute();
    return rows.map(toRecord).sort((a, b) => a.id - b.id);
  }

  countRecords(domainId: number): Promise<number> {
    return countRows(this.db.selectFrom('records').where('domain_id', '=', domainId));
  }

  async recordTimes(domainId: number): Promise<Map<number, Timestamps>> {
    const rows = await this.db.selectFrom('records').select(['id', 'created_at', 'updated_at']).where('domain_id', '=', domainId).execute();
    return new Map(rows.map((r) => [num(r.id), { created: num(r.created_at), updated: num(r.updated_at) }]));
  }

  countAllRecords(): Promise<number> {
    return countRows(this.db.selectFrom('records'));
  }

  async updateRecord(id: number, r: RecordData, now: number): Promise<void> {
    await this.db.updateTable('records').set({ ...recordColumns(r), updated_at: now }).where('id', '=', id).execute();
  }

  async deleteRecord(id: number): Promise<void> {
    await this.db.deleteFrom('records').where('id', '=', id).execute();
  }
}
