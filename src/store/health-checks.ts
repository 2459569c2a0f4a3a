/** Health checks: an account's probes and the status the leader's runner keeps of each. */
import type { Kysely, Selectable } from 'kysely';
import type { HealthCheckData, HealthCheckType, HealthStatus, StoredHealthCheck } from '../model/health-check.js';
import type { Steering } from '../model/steering.js';
import { countRows, num, numOrNull } from './columns.js';
import type { DialectSql } from './dialect-sql.js';
import { pageLimit, type Page } from './page.js';
import type { Database, HealthChecksTable } from './schema.js';

export interface HealthCheckStore {
  insertHealthCheck(accountId: number, c: HealthCheckData, now: number): Promise<StoredHealthCheck>;
  /** A check of this account (undefined for another account's: the two look the same). */
  healthCheck(accountId: number, id: number): Promise<StoredHealthCheck | undefined>;
  listHealthChecks(accountId: number, page?: Page): Promise<StoredHealthCheck[]>;
  countHealthChecks(accountId: number): Promise<number>;
  /** Every check of every account, by id (what the runner runs). */
  allHealthChecks(): Promise<StoredHealthCheck[]>;
  /** The fields (the status stays: the next probes decide). */
  updateHealthCheck(id: number, c: HealthCheckData): Promise<void>;
  deleteHealthCheck(accountId: number, id: number): Promise<boolean>;
  setHealthStatus(id: number, status: HealthStatus, changedAt: number): Promise<void>;
  /** Of the checks `ids`, those down now. */
  downHealthChecks(ids: readonly number[]): Promise<number[]>;
  /** The account's domains (id and name) with a record whose steering names the check. */
  domainsUsingCheck(accountId: number, checkId: number): Promise<{ id: number; domain: string }[]>;
}

function toHealthCheck(row: Selectable<HealthChecksTable>): StoredHealthCheck {
  return {
    id: num(row.id),
    accountId: num(row.account_id),
    type: row.type as HealthCheckType,
    address: row.address,
    port: num(row.port),
    path: row.path,
    host: row.host,
    interval: num(row.interval),
    timeout: num(row.timeout_ms) / 1000,
    fall: num(row.fall),
    rise: num(row.rise),
    status: row.status as HealthStatus,
    changedAt: numOrNull(row.changed_at),
    createdAt: num(row.created_at),
  };
}

function columns(c: HealthCheckData) {
  return {
    type: c.type,
    address: c.address,
    port: c.port,
    path: c.path,
    host: c.host,
    interval: c.interval,
    timeout_ms: Math.round(c.timeout * 1000),
    fall: c.fall,
    rise: c.rise,
  };
}

export class KyselyHealthCheckStore implements HealthCheckStore {
  constructor(
    private readonly db: Kysely<Database>,
    _dialect: DialectSql,
  ) {}

  async insertHealthCheck(accountId: number, c: HealthCheckData, now: number): Promise<StoredHealthCheck> {
    const row = await this.db
      .insertInto('healthchecks')
      .values({ account_id: accountId, ...columns(c), status: 'unknown', changed_at: null, created_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toHealthCheck(row);
  }

  async healthCheck(accountId: number, id: number): Promise<StoredHealthCheck | undefined> {
    const row = await this.db.selectFrom('healthchecks').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return row && toHealthCheck(row);
  }

  async listHealthChecks(accountId: number, page: Page = {}): Promise<StoredHealthCheck[]> {
    let q = this.db.selectFrom('healthchecks').selectAll().where('account_id', '=', accountId);
    if (page.after !== undefined) q = q.where('id', '>', page.after);
    return (await q.orderBy('id').limit(pageLimit(page.limit)).execute()).map(toHealthCheck);
  }

  countHealthChecks(accountId: number): Promise<number> {
    return countRows(this.db.selectFrom('healthchecks').where('account_id', '=', accountId));
  }

  async allHealthChecks(): Promise<StoredHealthCheck[]> {
    return (await this.db.selectFrom('healthchecks').selectAll().orderBy('id').execute()).map(toHealthCheck);
  }

  async updateHealthCheck(id: number, c: HealthCheckData): Promise<void> {
    await this.db.updateTable('healthchecks').set(columns(c)).where('id', '=', id).execute();
  }

  async deleteHealthCheck(accountId: number, id: number): Promise<boolean> {
    const res = await this.db.deleteFrom('healthchecks').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  async setHealthStatus(id: number, status: HealthStatus, changedAt: number): Promise<void> {
    await this.db.updateTable('healthchecks').set({ status, changed_at: changedAt }).where('id', '=', id).execute();
  }

  async downHealthChecks(ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('healthchecks').select('id').where('id', 'in', [...ids]).where('status', '=', 'down').execute();
    return rows.map((r) => num(r.id));
  }

  async domainsUsingCheck(accountId: number, checkId: number): Promise<{ id: number; domain: string }[]> {
    // Few records carry steering: those of the account's domains are read and their JSON looked into here.
    const rows = await this.db
      .selectFrom('records')
      .innerJoin('domains', 'domains.id', 'records.domain_id')
      .select(['domains.id', 'domains.domain', 'records.steering'])
      .where('domains.account_id', '=', accountId)
      .where('records.steering', 'is not', null)
      .execute();
    const out = new Map<number, string>();
    for (const r of rows) if ((JSON.parse(r.steering as string) as Steering).healthcheck === checkId) out.set(num(r.id), r.domain);
    return [...out].map(([id, domain]) => ({ id, domain }));
  }
}
