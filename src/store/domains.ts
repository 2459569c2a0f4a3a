/** Domains (zones and mirrors): their settings, serials, and the locks that queue writers on one zone. */
import type { Expression, Kysely, Selectable } from 'kysely';
import type { DnssecStatus } from '../model/dnssec.js';
import type { DomainData, DomainKind, DomainStatus, MasterTlsAuth, PrimaryKind, StoredDomain } from '../model/domain.js';
import type { Timestamps } from '../model/timestamps.js';
import type { TsigKeyRef } from '../model/tsig-key.js';
import { countRows, jsonList, num, raisedSerial } from './columns.js';
import type { DialectSql } from './dialect-sql.js';
import { pageLimit, type Page } from './page.js';
import type { Database, DomainsTable } from './schema.js';

export interface DomainFilter extends Page {
  kind?: DomainData['kind'];
  /** Exact (lower-case) domain name. */
  name?: string;
  /** Only these ids (an API key's scope). */
  ids?: readonly number[];
}

/** What start-up listings need of a domain: no more, since they read every domain there is. */
export type DomainKey = Pick<StoredDomain, 'id' | 'domain' | 'kind' | 'status' | 'serial'>;

export interface DomainStore {
  insertDomain(accountId: number, d: DomainData, serial: number, now: number): Promise<StoredDomain>;
  /** A domain of this account (undefined for another account's: the two look the same). */
  domain(accountId: number, id: number): Promise<StoredDomain | undefined>;
  domainByName(name: string): Promise<StoredDomain | undefined>;
  domainById(id: number): Promise<StoredDomain | undefined>;
  listDomains(accountId: number, filter?: DomainFilter): Promise<StoredDomain[]>;
  /** The same list, each domain with its DNSSEC status ('off' for a zone never signed), in one query. */
  listDomainsWithDnssec(accountId: number, filter?: DomainFilter): Promise<{ domain: StoredDomain; dnssec: DnssecStatus }[]>;
  /** Every domain of every account, by id, in brief (start-up listings and the cluster's reconciliation). */
  domainKeys(): Promise<DomainKey[]>;
  /** The domains with ids `firstId`..`lastId`, by id (the DNS server's start-up load, a batch at a time). */
  domainsInRange(firstId: number, lastId: number): Promise<StoredDomain[]>;
  countDomains(accountId: number): Promise<number>;
  /** When each domain of this account was made and last changed, by id (StoredDomain leaves them out). */
  domainTimes(accountId: number): Promise<Map<number, Timestamps>>;
  updateDomain(id: number, d: DomainData, now: number): Promise<void>;
  deleteDomain(id: number): Promise<void>;
  /**
   * Inside a transaction: holds the domain's row until commit, so concurrent writers on one zone run one
   * after the other across processes (see DialectSql.lockRow).
   */
  lockDomain(id: number): Promise<void>;
  /** The domain of that name, read and locked as lockDomain does in one step (one round trip). */
  lockedDomainByName(name: string): Promise<StoredDomain | undefined>;
  /**
   * Inside a transaction: queues writers that add or rename domains, across nodes, so two of them never
   * both miss the other's name (nesting rules compare a name with others, not with one row).
   */
  lockDomainNames(): Promise<void>;
  /** Domains whose name is an ancestor of `name` or lies below it (not `name` itself). */
  domainsNestedWith(name: string): Promise<{ id: number; accountId: number; domain: string }[]>;
  /** Raises the serial to max(serial + 1, floor) and returns it. */
  bumpSerial(domainId: number, floor: number): Promise<number>;
}

/** The columns a StoredDomain is read from (its times apart: domainTimes). */
export const STORED = ['id', 'account_id', 'domain', 'kind', 'soa_email', 'description', 'refresh', 'retry', 'expire', 'ttl', 'status', 'master_ips', 'axfr_ips', 'display_group', 'master_tsig', 'master_tls', 'master_tls_auth', 'tags', 'primary_kind', 'serial'] as const;
/** The same, qualified: a list may join other tables. */
export const STORED_QUALIFIED = STORED.map((c) => `domains.${c}` as const);

export function toDomain(row: Pick<Selectable<DomainsTable>, (typeof STORED)[number]>): StoredDomain {
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
    masterIps: jsonList(row.master_ips),
    axfrIps: jsonList(row.axfr_ips),
    displayGroup: row.display_group,
    masterTsig: row.master_tsig ? (JSON.parse(row.master_tsig) as TsigKeyRef) : null,
    masterTls: num(row.master_tls) === 1,
    // A database not yet migrated to 021 (a test of older migrations) has no such column.
    masterTlsAuth: row.master_tls_auth ? (JSON.parse(row.master_tls_auth) as MasterTlsAuth) : null,
    // A database not yet migrated to 017 (a test of older migrations) has no tags.
    tags: jsonList(row.tags ?? '[]'),
    primaryKind: row.primary_kind as PrimaryKind,
    serial: num(row.serial),
  };
}

/**
 * The account's domains the filter lets through, in id order once the caller orders them (columns qualified: a
 * caller may join), its page size clamped already. `accountId` may be a column of an enclosing query
 * (ApiKeyStore.keyWithDomains), and the filter's values markers (CompiledQueries): they are only handed to Kysely.
 */
export function listed(db: Kysely<Database>, accountId: number | Expression<number>, filter: DomainFilter) {
  let q = db.selectFrom('domains').where('domains.account_id', '=', accountId);
  if (filter.kind) q = q.where('domains.kind', '=', filter.kind);
  if (filter.name !== undefined) q = q.where('domains.domain', '=', filter.name);
  if (filter.ids !== undefined) q = q.where('domains.id', 'in', filter.ids.length ? filter.ids : [0]);
  if (filter.after !== undefined) q = q.where('domains.id', '>', filter.after);
  if (filter.limit !== undefined) q = q.limit(filter.limit);
  return q;
}

/** The filter with its page size within bounds (pageLimit), as listed() takes it. */
export const clamped = (filter: DomainFilter): DomainFilter => (filter.limit === undefined ? filter : { ...filter, limit: pageLimit(filter.limit) });

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
    master_tls: d.masterTls ? 1 : 0,
    master_tls_auth: d.masterTlsAuth && JSON.stringify(d.masterTlsAuth),
    tags: JSON.stringify(d.tags),
    primary_kind: d.primaryKind,
  };
}

export class KyselyDomainStore implements DomainStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectSql,
  ) {}

  async insertDomain(accountId: number, d: DomainData, serial: number, now: number): Promise<StoredDomain> {
    const row = await this.db
      .insertInto('domains')
      .values({ account_id: accountId, ...domainColumns(d), serial, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch(this.dialect.mapError);
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
    const q = listed(this.db, accountId, clamped(filter)).select(STORED_QUALIFIED).orderBy('domains.id');
    return (await this.dialect.packedRows(this.db, q, STORED, 'id')).map(toDomain);
  }

  async listDomainsWithDnssec(accountId: number, filter: DomainFilter = {}): Promise<{ domain: StoredDomain; dnssec: DnssecStatus }[]> {
    const q = listed(this.db, accountId, clamped(filter))
      .leftJoin('dnssec_zones', 'dnssec_zones.domain_id', 'domains.id')
      .select([...STORED_QUALIFIED, 'dnssec_zones.status as dnssec_status'])
      .orderBy('domains.id');
    const rows = await this.dialect.packedRows(this.db, q, [...STORED, 'dnssec_status'], 'id');
    return rows.map((r) => ({ domain: toDomain(r), dnssec: (r.dnssec_status ?? 'off') as DnssecStatus }));
  }

  async domainKeys(): Promise<DomainKey[]> {
    const rows = await this.db.selectFrom('domains').select(['id', 'domain', 'kind', 'status', 'serial']).orderBy('id').execute();
    return rows.map((r) => ({ id: num(r.id), domain: r.domain, kind: r.kind as DomainKind, status: num(r.status) as DomainStatus, serial: num(r.serial) }));
  }

  async domainsInRange(firstId: number, lastId: number): Promise<StoredDomain[]> {
    const rows = await this.db.selectFrom('domains').selectAll().where('id', '>=', firstId).where('id', '<=', lastId).orderBy('id').execute();
    return rows.map(toDomain);
  }

  countDomains(accountId: number): Promise<number> {
    return countRows(this.db.selectFrom('domains').where('account_id', '=', accountId));
  }

  async domainTimes(accountId: number): Promise<Map<number, Timestamps>> {
    const rows = await this.db.selectFrom('domains').select(['id', 'created_at', 'updated_at']).where('account_id', '=', accountId).execute();
    return new Map(rows.map((r) => [num(r.id), { created: num(r.created_at), updated: num(r.updated_at) }]));
  }

  async updateDomain(id: number, d: DomainData, now: number): Promise<void> {
    await this.db
      .updateTable('domains')
      .set({ ...domainColumns(d), updated_at: now })
      .where('id', '=', id)
      .execute()
      .catch(this.dialect.mapError);
  }

  async deleteDomain(id: number): Promise<void> {
    await this.db.deleteFrom('domains').where('id', '=', id).execute();
  }

  lockDomain(id: number): Promise<void> {
    return this.dialect.lockRow(this.db, 'domains', id);
  }

  async lockedDomainByName(name: string): Promise<StoredDomain | undefined> {
    const row = await this.dialect.lockingRead(this.db.selectFrom('domains').selectAll().where('domain', '=', name)).executeTakeFirst();
    return row && toDomain(row);
  }

  lockDomainNames(): Promise<void> {
    return this.dialect.lockDomainNames(this.db);
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
      .set({ serial: raisedSerial(floor) })
      .where('id', '=', domainId)
      .returning('serial')
      .executeTakeFirstOrThrow();
    return num(row.serial);
  }
}
