/** API keys: stored by the hash of their secret, each with its account and scope. */
import type { Expression, Kysely } from 'kysely';
import type { AccountStatus, ApiKeyRow } from '../model/account.js';
import type { StoredDomain } from '../model/domain.js';
import type { KeyScope } from '../model/key-scope.js';
import type { MemberRights, Role } from '../model/roles.js';
import { countRows, num, numOrNull } from './columns.js';
import type { DialectSql } from './dialect-sql.js';
import { clamped, listed, STORED, STORED_QUALIFIED, toDomain, type DomainFilter } from './domains.js';
import type { Database } from './schema.js';

/** A key found by its hash: with its account (name, status, whether it requires a second factor) and the member who made it. */
export type FoundKey = ApiKeyRow & { username: string; accountStatus: AccountStatus; requireTwoFactor: boolean; member: MemberRights & { username: string } };

export interface ApiKeyStore {
  /**
   * `userId`: the member making the key (absent: the account's owner of the same id, as before members);
   * `session`: a panel sign-in (a password or a passkey made it), which a password change revokes.
   */
  insertKey(accountId: number, keyHash: string, prefix: string, label: string, now: number, expiresAt: number | null, scope?: KeyScope, userId?: number, session?: boolean): Promise<ApiKeyRow>;
  /**
   * The key, its account (name, status, whether it requires a second factor) and the member who made it (name
   * and rights, as they are now) when the hash matches a key that has not expired at `now`.
   */
  keyByHash(keyHash: string, now: number): Promise<FoundKey | undefined>;
  /**
   * keyByHash, and the domains of the key's account that `filter` lets through (as DomainStore.listDomains), read
   * together: on PostgreSQL in one statement, so a request that lists domains makes one round trip, not two.
   */
  keyWithDomains(keyHash: string, now: number, filter: DomainFilter): Promise<{ key: FoundKey | undefined; domains: StoredDomain[] }>;
  /** Revokes the panel sign-ins (`session` keys) of a member but `exceptKeyId`. */
  deleteSessionKeys(userId: number, exceptKeyId?: number): Promise<number>;
  listKeys(accountId: number, now: number): Promise<ApiKeyRow[]>;
  countActiveKeys(accountId: number, now: number): Promise<number>;
  deleteKey(accountId: number, keyId: number): Promise<boolean>;
}

function toKey(row: { id: unknown; account_id: unknown; prefix: string; label: string; created_at: unknown; expires_at: unknown; scope: string; user_id: unknown; session: unknown }): ApiKeyRow {
  return {
    userId: num(row.user_id ?? row.account_id),
    scope: JSON.parse(row.scope) as KeyScope,
    id: num(row.id),
    accountId: num(row.account_id),
    prefix: row.prefix,
    label: row.label,
    createdAt: num(row.created_at),
    expiresAt: numOrNull(row.expires_at),
    session: num(row.session) === 1,
  };
}

/** The key of that hash that has not expired at `now`, with its account and member (see FoundKey). */
function keyQuery(db: Kysely<Database>, keyHash: string, now: number) {
  return (
    db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      // A key whose member is gone is no key (removing a member deletes their keys too).
      .innerJoin('users', (j) => j.onRef('users.id', '=', 'api_keys.user_id').onRef('users.account_id', '=', 'api_keys.account_id'))
      .selectAll('api_keys')
      .select(['accounts.username', 'accounts.status', 'accounts.require_2fa', 'users.username as member', 'users.role', 'users.domains'])
      .where('api_keys.key_hash', '=', keyHash)
      .where((eb) => eb.or([eb('api_keys.expires_at', 'is', null), eb('api_keys.expires_at', '>', now)]))
  );
}

function toFoundKey(row: Parameters<typeof toKey>[0] & { username: string; status: string; require_2fa: unknown; member: string; role: string; domains: string | null }): FoundKey {
  return {
    ...toKey(row),
    username: row.username,
    accountStatus: row.status as AccountStatus,
    requireTwoFactor: num(row.require_2fa) === 1,
    member: { username: row.member, role: row.role as Role, domains: row.domains === null ? null : (JSON.parse(row.domains) as number[]) },
  };
}

/** The account's keys that have not expired at `now`. */
function activeKeys(db: Kysely<Database>, accountId: number, now: number) {
  return db
    .selectFrom('api_keys')
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
}

/** A domain that may be handed to many requests: neither it nor its lists and objects can be changed. */
function frozenDomain(d: StoredDomain): StoredDomain {
  for (const v of Object.values(d)) if (v && typeof v === 'object') Object.freeze(v);
  return Object.freeze(d);
}

export class KyselyApiKeyStore implements ApiKeyStore {
  /** Domains made of rows the dialect may hand back again (DialectSql.rowWithList's `keep`), by those rows. */
  private readonly made = new WeakMap<readonly object[], StoredDomain[]>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectSql,
  ) {}

  async insertKey(accountId: number, keyHash: string, prefix: string, label: string, now: number, expiresAt: number | null, scope: KeyScope = {}, userId = accountId, session = false): Promise<ApiKeyRow> {
    const row = await this.db
      .insertInto('api_keys')
      .values({ account_id: accountId, user_id: userId, key_hash: keyHash, prefix, label, created_at: now, expires_at: expiresAt, scope: JSON.stringify(scope), session: session ? 1 : 0 })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch(this.dialect.mapError);
    return toKey(row);
  }

  async keyByHash(keyHash: string, now: number): Promise<FoundKey | undefined> {
    const row = await keyQuery(this.db, keyHash, now).executeTakeFirst();
    return row && toFoundKey(row);
  }

  async keyWithDomains(keyHash: string, now: number, filter: DomainFilter) {
    const make = ([keyHash, now, filter]: [string, number, DomainFilter]) => ({
      one: keyQuery(this.db, keyHash, now),
      list: (accountId: Expression<number>) => listed(this.db, accountId, filter).select(STORED_QUALIFIED).orderBy('domains.id'),
    });
    const params: [string, number, DomainFilter] = [keyHash, now, clamped(filter)];
    // The list depends on the key (its account) and the filter; `now` only decides whether the key holds.
    const keep = { table: 'domains', slot: JSON.stringify([keyHash, params[2]]) };
    const { row, rows } = await this.dialect.rowWithList(this.db, params, make, 'api_keys.account_id', STORED, 'id', keep);
    return { key: row && toFoundKey(row), domains: this.domainsOf(rows) };
  }

  /** The domains of rows as read; rows kept by the dialect (the same array again) are made into domains once. */
  private domainsOf(rows: readonly Parameters<typeof toDomain>[0][]): StoredDomain[] {
    let domains = this.made.get(rows);
    if (!domains) {
      domains = Object.freeze(rows.map((r) => frozenDomain(toDomain(r)))) as StoredDomain[];
      this.made.set(rows, domains);
    }
    return domains;
  }

  async listKeys(accountId: number, now: number): Promise<ApiKeyRow[]> {
    const rows = await activeKeys(this.db, accountId, now).selectAll().orderBy('id').execute();
    return rows.map(toKey);
  }

  countActiveKeys(accountId: number, now: number): Promise<number> {
    return countRows(activeKeys(this.db, accountId, now));
  }

  async deleteSessionKeys(userId: number, exceptKeyId?: number): Promise<number> {
    let q = this.db.deleteFrom('api_keys').where('user_id', '=', userId).where('session', '=', 1);
    if (exceptKeyId !== undefined) q = q.where('id', '!=', exceptKeyId);
    const res = await q.executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  async deleteKey(accountId: number, keyId: number): Promise<boolean> {
    const res = await this.db.deleteFrom('api_keys').where('account_id', '=', accountId).where('id', '=', keyId).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
