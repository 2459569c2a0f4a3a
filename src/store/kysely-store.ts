/** Queries shared by both backends; each backend supplies its Kysely instance and error mapping. */
import type { CatalogCandidate } from '../model/catalog.js';
import { CompiledQuery, Migrator, sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { DomainData, DomainKind, DomainStatus, StoredDomain } from '../model/domain.js';
import type { RecordData, StoredRecord } from '../model/records/index.js';
import { isPostgres } from './migrations/helpers.js';
import { migrationProvider } from './migrations/index.js';
import type { Database, DnssecKeysTable, DnssecZonesTable, DomainsTable, RecordsTable, TsigKeysTable } from './schema.js';
import type { DnssecAlgorithm, DnssecKeyData, DnssecKeyState, DnssecStatus, DnssecZoneState, StoredDnssecKey } from '../model/dnssec.js';
import type { StoredTsigKey, TsigAlgorithm, TsigKeyData, TsigKeyRef, UpdateScope } from '../model/tsig-key.js';
import type { ZoneEvent } from '../model/zone-event.js';
import type { KeyScope } from '../model/key-scope.js';
import { pageLimit, type Account, type Page, type ApiKeyRow, type ChangeRow, type DomainFilter, type DomainKey, type LeaderLock, type MirrorState, type NewChange, type Store, type StoreOps } from './store.js';

// PostgreSQL returns bigint as a string; all our bigints (ms times, serials) fit a double exactly.
const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));

function toDomain(row: Selectable<DomainsTable>): StoredDomain {
  return {
    id: num(row.id),
    accountId: num(row.account_id),
    domain: row.domain,
    kind: row.kind as DomainKind,
    soaEmail: row.soa_email,
    description: row.description,
    refresh: num(row.refresh),
    retry: num(row.retry),
    expire: num(row.expire),
    ttl: num(row.ttl),
    status: num(row.status) as DomainStatus,
    masterIps: JSON.parse(row.master_ips) as string[],
    axfrIps: JSON.parse(row.axfr_ips) as string[],
    displayGroup: row.display_group,
    masterTsig: row.master_tsig ? (JSON.parse(row.master_tsig) as TsigKeyRef) : null,
    serial: num(row.serial),
  };
}

function domainColumns(d: DomainData) {
  return {
    domain: d.domain,
    kind: d.kind,
    soa_email: d.soaEmail,
    description: d.description,
    refresh: d.refresh,
    retry: d.retry,
    expire: d.expire,
    ttl: d.ttl,
    status: d.status,
    master_ips: JSON.stringify(d.masterIps),
    axfr_ips: JSON.stringify(d.axfrIps),
    display_group: d.displayGroup,
    master_tsig: d.masterTsig && JSON.stringify(d.masterTsig),
  };
}

function toTsigKey(row: Selectable<TsigKeysTable>): StoredTsigKey {
  return {
    id: num(row.id),
    accountId: num(row.account_id),
    name: row.name,
    algorithm: row.algorithm as TsigAlgorithm,
    secret: row.secret,
    domains: JSON.parse(row.domains) as number[],
    update: JSON.parse(row.update_scope) as UpdateScope,
    transfer: num(row.transfer) !== 0,
    createdAt: num(row.created_at),
  };
}

function tsigKeyColumns(k: TsigKeyData) {
  return { name: k.name, algorithm: k.algorithm, domains: JSON.stringify(k.domains), update_scope: JSON.stringify(k.update), transfer: k.transfer ? 1 : 0 };
}

function toDnssecZone(row: Selectable<DnssecZonesTable>): DnssecZoneState {
  return { domainId: num(row.domain_id), status: row.status as DnssecStatus, algorithm: row.algorithm as DnssecAlgorithm, since: num(row.since) };
}

function toDnssecKey(row: Selectable<DnssecKeysTable>): StoredDnssecKey {
  const opt = (v: unknown) => (v === null ? null : num(v));
  return {
    id: num(row.id),
    domainId: num(row.domain_id),
    algorithm: num(row.algorithm),
    flags: num(row.flags),
    dnskey: Buffer.from(row.dnskey, 'base64'),
    keyTag: num(row.key_tag),
    sealedKey: row.sealed_key,
    state: row.state as DnssecKeyState,
    createdAt: num(row.created_at),
    activeAt: opt(row.active_at),
    retiringAt: opt(row.retiring_at),
  };
}

/** The columns a StoredRecord is made of (not the timestamps: nothing reads them back, and a bulk read pays for each). */
const RECORD_COLUMNS = ['id', 'domain_id', 'type', 'name', 'ttl', 'data'] as const;
/** Rows per INSERT of appendChanges: 12 parameters each, far below SQLite's (32766) and PostgreSQL's (65535) limits. */
const CHANGES_PER_INSERT = 500;
/** Rows per INSERT of insertRecords: 7 parameters each stays far below SQLite's and PostgreSQL's limits. */
const INSERT_CHUNK = 500;

function toRecord(row: Pick<Selectable<RecordsTable>, (typeof RECORD_COLUMNS)[number]>): StoredRecord {
  return {
    id: num(row.id),
    domainId: num(row.domain_id),
    type: row.type,
    name: row.name,
    ttl: num(row.ttl),
    data: JSON.parse(row.data) as RecordData['data'],
  };
}

function recordColumns(r: RecordData) {
  return { type: r.type, name: r.name, ttl: r.ttl, data: JSON.stringify(r.data) };
}

/** The columns insertRecords fills, in the order of its parameters' cells. */
const INSERT_COLUMNS = ['domain_id', 'type', 'name', 'ttl', 'data', 'created_at', 'updated_at'] as const;

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
function withIds(domainId: number, rs: readonly RecordData[], rows: readonly { id: unknown }[]): StoredRecord[] {
  const ids = rows.map((row) => num(row.id)).sort((a, b) => a - b);
  return rs.map((r, k) => ({ id: ids[k] as number, domainId, type: r.type, name: r.name, ttl: r.ttl, data: r.data }));
}

function toKey(row: { id: unknown; account_id: unknown; prefix: string; label: string; created_at: unknown; expires_at: unknown; scope: string }): ApiKeyRow {
  return {
    scope: JSON.parse(row.scope) as KeyScope,
    id: num(row.id),
    accountId: num(row.account_id),
    prefix: row.prefix,
    label: row.label,
    createdAt: num(row.created_at),
    expiresAt: row.expires_at === null ? null : num(row.expires_at),
  };
}

/** Store operations over a Kysely handle: the database itself or an open transaction. */
export class KyselyOps implements StoreOps {
  constructor(
    protected readonly db: Kysely<Database> | Transaction<Database>,
    /** Turns a driver error into UniqueViolation where it is one; rethrows everything else. */
    protected readonly mapError: (e: unknown) => never,
    /** NOTIFY channel shared by the nodes of one database (and schema); null where there is none. */
    protected readonly channel: string | null = null,
    /** This process's tag on its own notifications, so it does not apply them twice. */
    protected readonly origin = '',
  ) {}

  async createAccount(username: string, passwordHash: string, now: number): Promise<Account> {
    const row = await this.db
      .insertInto('accounts')
      .values({ username, password_hash: passwordHash, created_at: now })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch(this.mapError);
    return { id: num(row.id), username: row.username, passwordHash: row.password_hash, createdAt: num(row.created_at) };
  }

  async accountByName(username: string): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('username', '=', username).executeTakeFirst();
    return row && { id: num(row.id), username: row.username, passwordHash: row.password_hash, createdAt: num(row.created_at) };
  }

  async insertKey(accountId: number, keyHash: string, prefix: string, label: string, now: number, expiresAt: number | null, scope: KeyScope = {}): Promise<ApiKeyRow> {
    const row = await this.db
      .insertInto('api_keys')
      .values({ account_id: accountId, key_hash: keyHash, prefix, label, created_at: now, expires_at: expiresAt, scope: JSON.stringify(scope) })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch(this.mapError);
    return toKey(row);
  }

  async keyByHash(keyHash: string, now: number) {
    const row = await this.db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .selectAll('api_keys')
      .select('accounts.username')
      .where('api_keys.key_hash', '=', keyHash)
      .where((eb) => eb.or([eb('api_keys.expires_at', 'is', null), eb('api_keys.expires_at', '>', now)]))
      .executeTakeFirst();
    return row && { ...toKey(row), username: row.username };
  }

  async listKeys(accountId: number, now: number): Promise<ApiKeyRow[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .orderBy('id')
      .execute();
    return rows.map(toKey);
  }

  async countActiveKeys(accountId: number, now: number): Promise<number> {
    const row = await this.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .executeTakeFirstOrThrow();
    return num(row.n);
  }

  async deleteKey(accountId: number, keyId: number): Promise<boolean> {
    const res = await this.db.deleteFrom('api_keys').where('account_id', '=', accountId).where('id', '=', keyId).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  async insertTsigKey(accountId: number, k: TsigKeyData, secret: string, now: number): Promise<StoredTsigKey> {
    const row = await this.db
      .insertInto('tsig_keys')
      .values({ account_id: accountId, ...tsigKeyColumns(k), secret, created_at: now })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch(this.mapError);
    return toTsigKey(row);
  }

  async tsigKey(accountId: number, id: number): Promise<StoredTsigKey | undefined> {
    const row = await this.db.selectFrom('tsig_keys').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return row && toTsigKey(row);
  }

  async tsigKeyByName(name: string): Promise<StoredTsigKey | undefined> {
    const row = await this.db.selectFrom('tsig_keys').selectAll().where('name', '=', name).executeTakeFirst();
    return row && toTsigKey(row);
  }

  async listTsigKeys(accountId: number, page: Page = {}): Promise<StoredTsigKey[]> {
    let q = this.db.selectFrom('tsig_keys').selectAll().where('account_id', '=', accountId);
    if (page.after !== undefined) q = q.where('id', '>', page.after);
    if (page.limit !== undefined) q = q.limit(pageLimit(page.limit));
    return (await q.orderBy('id').execute()).map(toTsigKey);
  }

  async countTsigKeys(accountId: number): Promise<number> {
    const row = await this.db
      .selectFrom('tsig_keys')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return num(row.n);
  }

  async updateTsigKey(id: number, k: TsigKeyData): Promise<void> {
    await this.db.updateTable('tsig_keys').set(tsigKeyColumns(k)).where('id', '=', id).execute().catch(this.mapError);
  }

  async deleteTsigKey(accountId: number, id: number): Promise<boolean> {
    const res = await this.db.deleteFrom('tsig_keys').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  async insertDomain(accountId: number, d: DomainData, serial: number, now: number): Promise<StoredDomain> {
    const row = await this.db
      .insertInto('domains')
      .values({ account_id: accountId, ...domainColumns(d), serial, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch(this.mapError);
    return toDomain(row);
  }

  async domain(accountId: number, id: number): Promise<StoredDomain | undefined> {
    const row = await this.db.selectFrom('domains').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return row && toDomain(row);
  }

  async domainByName(name: string): Promise<StoredDomain | undefined> {
    const row = await this.db.selectFrom('domains').selectAll().where('domain', '=', name).executeTakeFirst();
    return row && toDomain(row);
  }

  async domainById(id: number): Promise<StoredDomain | undefined> {
    const row = await this.db.selectFrom('domains').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toDomain(row);
  }

  async listDomains(accountId: number, filter: DomainFilter = {}): Promise<StoredDomain[]> {
    let q = this.db.selectFrom('domains').selectAll().where('account_id', '=', accountId);
    if (filter.kind) q = q.where('kind', '=', filter.kind);
    if (filter.name !== undefined) q = q.where('domain', '=', filter.name);
    if (filter.ids !== undefined) q = q.where('id', 'in', filter.ids.length ? filter.ids : [0]);
    if (filter.after !== undefined) q = q.where('id', '>', filter.after);
    if (filter.limit !== undefined) q = q.limit(pageLimit(filter.limit));
    const rows = await q.orderBy('id').execute();
    return rows.map(toDomain);
  }

  async domainKeys(): Promise<DomainKey[]> {
    const rows = await this.db.selectFrom('domains').select(['id', 'domain', 'kind', 'status', 'serial']).orderBy('id').execute();
    return rows.map((r) => ({ id: num(r.id), domain: r.domain, kind: r.kind as DomainKind, status: num(r.status) as DomainStatus, serial: num(r.serial) }));
  }

  async domainsInRange(firstId: number, lastId: number): Promise<StoredDomain[]> {
    const rows = await this.db.selectFrom('domains').selectAll().where('id', '>=', firstId).where('id', '<=', lastId).orderBy('id').execute();
    return rows.map(toDomain);
  }

  async countDomains(accountId: number): Promise<number> {
    const row = await this.db
      .selectFrom('domains')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return num(row.n);
  }

  async updateDomain(id: number, d: DomainData, now: number): Promise<void> {
    await this.db
      .updateTable('domains')
      .set({ ...domainColumns(d), updated_at: now })
      .where('id', '=', id)
      .execute()
      .catch(this.mapError);
  }

  async deleteDomain(id: number): Promise<void> {
    await this.db.deleteFrom('domains').where('id', '=', id).execute();
  }

  private savepoints = 0;

  async savepoint<T>(fn: () => Promise<T>): Promise<T> {
    const name = sql.id(`sp${++this.savepoints}`);
    await sql`savepoint ${name}`.execute(this.db);
    try {
      const value = await fn();
      await sql`release savepoint ${name}`.execute(this.db);
      return value;
    } catch (e) {
      await sql`rollback to savepoint ${name}`.execute(this.db);
      await sql`release savepoint ${name}`.execute(this.db);
      throw e;
    }
  }

  async lockDomain(id: number): Promise<void> {
    if (isPostgres(this.db)) await this.db.selectFrom('domains').select('id').where('id', '=', id).forNoKeyUpdate().execute();
  }

  async lockAccount(id: number): Promise<void> {
    if (isPostgres(this.db)) await this.db.selectFrom('accounts').select('id').where('id', '=', id).forNoKeyUpdate().execute();
  }

  async lockedDomainByName(name: string): Promise<StoredDomain | undefined> {
    let q = this.db.selectFrom('domains').selectAll().where('domain', '=', name);
    if (isPostgres(this.db)) q = q.forNoKeyUpdate();
    const row = await q.executeTakeFirst();
    return row && toDomain(row);
  }

  async lockDomainNames(): Promise<void> {
    // SQLite: BEGIN IMMEDIATE already serialises every writer.
    if (isPostgres(this.db)) await sql`select pg_advisory_xact_lock(hashtextextended('zonehost:domain-names', 0))`.execute(this.db);
  }

  async domainsNestedWith(name: string): Promise<{ id: number; accountId: number; domain: string }[]> {
    const labels = name.split('.');
    const ancestors = labels.slice(1).map((_, i) => labels.slice(i + 1).join('.'));
    // Names are lower-case letters, digits, hyphens and dots (checkDomain), so LIKE needs no escaping.
    const rows = await this.db
      .selectFrom('domains')
      .select(['id', 'account_id', 'domain'])
      .where((eb) => eb.or([eb('domain', 'in', ancestors), eb('domain', 'like', `%.${name}`)]))
      .execute();
    return rows.map((r) => ({ id: num(r.id), accountId: num(r.account_id), domain: r.domain }));
  }

  async bumpSerial(domainId: number, floor: number): Promise<number> {
    const row = await this.db
      .updateTable('domains')
      .set({ serial: sql<number>`case when serial + 1 > ${floor} then serial + 1 else ${floor} end` })
      .where('id', '=', domainId)
      .returning('serial')
      .executeTakeFirstOrThrow();
    return num(row.serial);
  }

  async catalogSerial(): Promise<number> {
    const row = await this.db.selectFrom('catalog').select('serial').where('id', '=', 1).executeTakeFirstOrThrow();
    return num(row.serial);
  }

  async bumpCatalogSerial(floor: number): Promise<number> {
    const row = await this.db
      .updateTable('catalog')
      .set({ serial: sql<number>`case when serial + 1 > ${floor} then serial + 1 else ${floor} end` })
      .where('id', '=', 1)
      .returning('serial')
      .executeTakeFirstOrThrow();
    return num(row.serial);
  }

  async catalogCandidates(): Promise<CatalogCandidate[]> {
    const rows = await this.db
      .selectFrom('domains')
      .leftJoin('mirror_state', 'mirror_state.domain_id', 'domains.id')
      .select(['domains.id', 'domains.domain', 'domains.kind', 'domains.status', 'domains.display_group', 'mirror_state.last_success'])
      .orderBy('domains.id')
      .execute();
    return rows.map((r) => ({
      id: num(r.id),
      domain: r.domain,
      kind: r.kind as DomainKind,
      status: num(r.status) as DomainStatus,
      displayGroup: r.display_group,
      // A mirror's copy and its last success are saved and cleared together (services/mirrors.ts, domains.ts).
      hasCopy: r.last_success !== null,
    }));
  }

  async insertRecord(domainId: number, r: RecordData, now: number): Promise<StoredRecord> {
    const row = await this.db
      .insertInto('records')
      .values({ domain_id: domainId, ...recordColumns(r), created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRecord(row);
  }

  async insertRecords(domainId: number, rs: readonly RecordData[], now: number): Promise<StoredRecord[]> {
    if (rs.length > 1 && isPostgres(this.db)) return this.insertRecordsUnnest(domainId, rs, now);
    const out: StoredRecord[] = [];
    for (let i = 0; i < rs.length; i += INSERT_CHUNK) {
      const chunk = rs.slice(i, i + INSERT_CHUNK);
      const template = this.insertTemplate(chunk.length);
      const values: unknown[] = [];
      for (const r of chunk) {
        const c = recordColumns(r);
        values.push(domainId, c.type, c.name, c.ttl, c.data, now, now);
      }
      const { rows } = await this.db.executeQuery<{ id: unknown }>(CompiledQuery.raw(template.sql, template.cells.map((k) => values[k])));
      out.push(...withIds(domainId, chunk, rows));
    }
    return out;
  }

  /**
   * PostgreSQL: every record in one statement of four array parameters (unnest), in their order. A VALUES
   * list of 3,500 parameters a statement is parsed and planned anew each time, which cost PostgreSQL more
   * than the insert itself.
   */
  private async insertRecordsUnnest(domainId: number, rs: readonly RecordData[], now: number): Promise<StoredRecord[]> {
    const columns = rs.map(recordColumns);
    const { rows } = await sql<{ id: unknown }>`
      insert into records (domain_id, type, name, ttl, data, created_at, updated_at)
      select ${domainId}::integer, r.type, r.name, r.ttl, r.data, ${now}::bigint, ${now}::bigint
      from unnest(${columns.map((c) => c.type)}::text[], ${columns.map((c) => c.name)}::text[], ${columns.map((c) => c.ttl)}::integer[], ${columns.map((c) => c.data)}::text[])
        with ordinality as r(type, name, ttl, data, n)
      order by r.n
      returning id`.execute(this.db);
    return withIds(domainId, rs, rows);
  }

  /** insertRecords' statement for `rows` records (see InsertTemplate), compiled from cells numbered in place of the values. */
  private insertTemplate(rows: number): InsertTemplate {
    const adapter = this.db.getExecutor().adapter;
    const cached = rows === INSERT_CHUNK ? fullChunkInserts.get(adapter) : undefined;
    if (cached) return cached;
    const n = INSERT_COLUMNS.length;
    const numbered = Array.from({ length: rows }, (_, r) => Object.fromEntries(INSERT_COLUMNS.map((c, k) => [c, r * n + k])));
    const compiled = this.db
      .insertInto('records')
      .values(numbered as never)
      .returning('id')
      .compile();
    const template = { sql: compiled.sql, cells: compiled.parameters.map(Number) };
    if (rows === INSERT_CHUNK) fullChunkInserts.set(adapter, template);
    return template;
  }

  async record(domainId: number, id: number): Promise<StoredRecord | undefined> {
    const row = await this.db.selectFrom('records').select(RECORD_COLUMNS).where('domain_id', '=', domainId).where('id', '=', id).executeTakeFirst();
    return row && toRecord(row);
  }

  async recordById(id: number): Promise<StoredRecord | undefined> {
    const row = await this.db.selectFrom('records').select(RECORD_COLUMNS).where('id', '=', id).executeTakeFirst();
    return row && toRecord(row);
  }

  private recordsOf(domainId: number) {
    return this.db.selectFrom('records').select(RECORD_COLUMNS).where('domain_id', '=', domainId).orderBy('id');
  }

  async listRecords(domainId: number): Promise<StoredRecord[]> {
    return (await this.recordsOf(domainId).execute()).map(toRecord);
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

  async countRecords(domainId: number): Promise<number> {
    const row = await this.db
      .selectFrom('records')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('domain_id', '=', domainId)
      .executeTakeFirstOrThrow();
    return num(row.n);
  }

  async countAllRecords(): Promise<number> {
    const row = await this.db.selectFrom('records').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    return num(row.n);
  }

  async updateRecord(id: number, r: RecordData, now: number): Promise<void> {
    await this.db.updateTable('records').set({ ...recordColumns(r), updated_at: now }).where('id', '=', id).execute();
  }

  async deleteRecord(id: number): Promise<void> {
    await this.db.deleteFrom('records').where('id', '=', id).execute();
  }

  async mirrorState(domainId: number): Promise<MirrorState | undefined> {
    const r = await this.db.selectFrom('mirror_state').selectAll().where('domain_id', '=', domainId).executeTakeFirst();
    const opt = (v: unknown) => (v === null ? null : num(v));
    return (
      r && {
        domainId: num(r.domain_id),
        serial: opt(r.serial),
        lastSuccess: opt(r.last_success),
        lastAttempt: opt(r.last_attempt),
        lastError: r.last_error,
        zone: r.zone,
      }
    );
  }

  async saveMirrorState(s: MirrorState): Promise<void> {
    const row = { serial: s.serial, last_success: s.lastSuccess, last_attempt: s.lastAttempt, last_error: s.lastError, zone: s.zone };
    await this.db
      .insertInto('mirror_state')
      .values({ domain_id: s.domainId, ...row })
      .onConflict((oc) => oc.column('domain_id').doUpdateSet(row))
      .execute();
  }

  async dnssecZone(domainId: number): Promise<DnssecZoneState | undefined> {
    const row = await this.db.selectFrom('dnssec_zones').selectAll().where('domain_id', '=', domainId).executeTakeFirst();
    return row && toDnssecZone(row);
  }

  async saveDnssecZone(z: DnssecZoneState): Promise<void> {
    const row = { status: z.status, algorithm: z.algorithm, since: z.since };
    await this.db
      .insertInto('dnssec_zones')
      .values({ domain_id: z.domainId, ...row })
      .onConflict((oc) => oc.column('domain_id').doUpdateSet(row))
      .execute();
  }

  async dnssecKeys(domainId: number): Promise<StoredDnssecKey[]> {
    return (await this.db.selectFrom('dnssec_keys').selectAll().where('domain_id', '=', domainId).orderBy('id').execute()).map(toDnssecKey);
  }

  async dnssecOfDomains(firstId: number, lastId: number): Promise<{ zones: DnssecZoneState[]; keys: StoredDnssecKey[] }> {
    // One statement, so one snapshot: a timed step committing between two reads would show a zone
    // already off with the keys it just deleted. A key never exists without its zone's row.
    const rows = await this.db
      .selectFrom('dnssec_zones as z')
      .leftJoin('dnssec_keys as k', 'k.domain_id', 'z.domain_id')
      .selectAll('k')
      .select(['z.domain_id as zone_id', 'z.status as zone_status', 'z.algorithm as zone_algorithm', 'z.since as zone_since'])
      .where('z.domain_id', '>=', firstId)
      .where('z.domain_id', '<=', lastId)
      .orderBy('z.domain_id')
      .orderBy('k.id')
      .execute();
    const zones: DnssecZoneState[] = [];
    const keys: StoredDnssecKey[] = [];
    for (const r of rows) {
      const zone = toDnssecZone({ domain_id: r.zone_id, status: r.zone_status, algorithm: r.zone_algorithm, since: r.zone_since });
      if (zones.at(-1)?.domainId !== zone.domainId) zones.push(zone);
      if (r.id !== null) keys.push(toDnssecKey(r as Selectable<DnssecKeysTable>));
    }
    return { zones, keys };
  }

  async insertDnssecKey(domainId: number, k: DnssecKeyData, now: number): Promise<StoredDnssecKey> {
    const row = await this.db
      .insertInto('dnssec_keys')
      .values({
        domain_id: domainId,
        algorithm: k.algorithm,
        flags: k.flags,
        dnskey: k.dnskey.toString('base64'),
        key_tag: k.keyTag,
        sealed_key: k.sealedKey,
        state: k.state,
        created_at: now,
        active_at: k.state === 'active' ? now : null,
        retiring_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toDnssecKey(row);
  }

  async setDnssecKeyState(id: number, state: DnssecKeyState, now: number): Promise<void> {
    const stamp = state === 'active' ? { active_at: now } : state === 'retiring' ? { retiring_at: now } : {};
    await this.db.updateTable('dnssec_keys').set({ state, ...stamp }).where('id', '=', id).execute();
  }

  async deleteDnssecKeys(domainId: number, ids?: number[]): Promise<void> {
    if (ids?.length === 0) return;
    let q = this.db.deleteFrom('dnssec_keys').where('domain_id', '=', domainId);
    if (ids) q = q.where('id', 'in', ids);
    await q.execute();
  }

  async anyDnssecKey(): Promise<StoredDnssecKey | undefined> {
    const row = await this.db.selectFrom('dnssec_keys').selectAll().orderBy('id').limit(1).executeTakeFirst();
    return row && toDnssecKey(row);
  }

  async dnssecPending(): Promise<number[]> {
    const rows = await this.db
      .selectFrom('dnssec_zones')
      .select('domain_id')
      .where('status', '=', 'unsigning')
      .union(this.db.selectFrom('dnssec_keys').select('domain_id').where('state', 'in', ['incoming', 'retiring']))
      .execute();
    return [...new Set(rows.map((r) => num(r.domain_id)))].sort((a, b) => a - b);
  }

  async appendChanges(cs: readonly NewChange[]): Promise<void> {
    // In slices, so that a write journaling many entries stays within the databases' parameter limits.
    for (let i = 0; i < cs.length; i += CHANGES_PER_INSERT) {
      await this.db
        .insertInto('changes')
        .values(
          cs.slice(i, i + CHANGES_PER_INSERT).map((c) => ({
            domain_id: c.domainId,
            account_id: c.accountId,
            serial: c.serial,
            at: c.at,
            action: c.action,
            object_id: c.objectId,
            key_label: c.keyLabel,
            key_id: c.keyId,
            iface: c.iface,
            remote_addr: c.remoteAddr,
            before: JSON.stringify(c.before ?? null),
            after: JSON.stringify(c.after ?? null),
          })),
        )
        .execute();
    }
  }

  async announce(change: ZoneEvent): Promise<void> {
    if (this.channel !== null) await sql`select pg_notify(${this.channel}, ${JSON.stringify({ origin: this.origin, change })})`.execute(this.db);
  }

  async listChanges(filter: { accountId?: number; domainId?: number; domainIds?: readonly number[]; afterSerial?: number; after?: number; limit?: number }): Promise<ChangeRow[]> {
    let q = this.db.selectFrom('changes').selectAll();
    if (filter.accountId !== undefined) q = q.where('account_id', '=', filter.accountId);
    if (filter.domainId !== undefined) q = q.where('domain_id', '=', filter.domainId);
    if (filter.domainIds !== undefined) q = q.where('domain_id', 'in', filter.domainIds.length ? [...filter.domainIds] : [0]);
    if (filter.afterSerial !== undefined) q = q.where('serial', '>', filter.afterSerial);
    if (filter.after !== undefined) q = q.where('id', '>', filter.after);
    if (filter.limit !== undefined) q = q.limit(pageLimit(filter.limit));
    const rows = await q.orderBy('id').execute();
    return rows.map((r) => ({
      id: num(r.id),
      domainId: num(r.domain_id),
      accountId: r.account_id === null ? null : num(r.account_id),
      serial: num(r.serial),
      at: num(r.at),
      action: r.action,
      objectId: r.object_id === null ? null : num(r.object_id),
      keyLabel: r.key_label,
      keyId: r.key_id === null ? null : num(r.key_id),
      iface: r.iface,
      remoteAddr: r.remote_addr,
      before: JSON.parse(r.before) as unknown,
      after: JSON.parse(r.after) as unknown,
    }));
  }
}

/** A whole store over a Kysely database; backends subclass it for their transaction and close rules. */
export abstract class KyselyStore extends KyselyOps implements Store {
  abstract readonly dialect: 'sqlite' | 'postgres';
  /** Where Kysely keeps its migration tables, when the database has several schemas. */
  protected migrationSchema: string | null = null;

  constructor(
    protected readonly kysely: Kysely<Database>,
    mapError: (e: unknown) => never,
    channel: string | null = null,
    origin = '',
  ) {
    super(kysely, mapError, channel, origin);
  }

  transaction<T>(fn: (tx: StoreOps) => Promise<T>): Promise<T> {
    return this.kysely.transaction().execute((trx) => fn(new KyselyOps(trx, this.mapError, this.channel, this.origin)));
  }

  /** Without a shared server there are no other nodes to hear from (SQLite). */
  async listen(_listener: (change: ZoneEvent) => void, _resync: () => void): Promise<(() => Promise<void>) | null> {
    return null;
  }

  /** One node, always the leader (SQLite). */
  leaderLock(_onLost: (why: string) => void): LeaderLock | null {
    return null;
  }

  async migrate(): Promise<void> {
    const migrator = new Migrator({
      db: this.kysely,
      provider: migrationProvider,
      ...(this.migrationSchema ? { migrationTableSchema: this.migrationSchema } : {}),
    });
    const { error, results } = await migrator.migrateToLatest();
    const failed = results?.find((r) => r.status === 'Error');
    if (error || failed) throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }

  async close(): Promise<void> {
    await this.kysely.destroy();
  }
}
