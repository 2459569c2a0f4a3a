/** TSIG keys: shared secrets, found by name alone, with the domains and names they may update or transfer. */
import type { Kysely, Selectable } from 'kysely';
import type { AccountStatus } from '../model/account.js';
import type { Role } from '../model/roles.js';
import type { NamedTsigKey, StoredTsigKey, TsigAlgorithm, TsigKeyData, UpdateScope } from '../model/tsig-key.js';
import { countRows, num } from './columns.js';
import type { DialectSql } from './dialect-sql.js';
import { pageLimit, type Page } from './page.js';
import type { Database, TsigKeysTable } from './schema.js';

export interface TsigKeyStore {
  /** Raises UniqueViolation when the name is taken (by any account). `userId`: the member making it (absent: the owner of the account's id). */
  insertTsigKey(accountId: number, k: TsigKeyData, secret: string, now: number, userId?: number): Promise<StoredTsigKey>;
  /** A key of this account (undefined for another account's: the two look the same). */
  tsigKey(accountId: number, id: number): Promise<StoredTsigKey | undefined>;
  /** The key with this (normalised) name, of whichever account, with that account's name and status and its member's rights now. */
  tsigKeyByName(name: string): Promise<NamedTsigKey | undefined>;
  listTsigKeys(accountId: number, page?: Page): Promise<StoredTsigKey[]>;
  countTsigKeys(accountId: number): Promise<number>;
  /** Everything but the secret and the owner; raises UniqueViolation when the new name is taken. */
  updateTsigKey(id: number, k: TsigKeyData): Promise<void>;
  deleteTsigKey(accountId: number, id: number): Promise<boolean>;
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
    userId: num(row.user_id ?? row.account_id),
  };
}

function tsigKeyColumns(k: TsigKeyData) {
  return { name: k.name, algorithm: k.algorithm, domains: JSON.stringify(k.domains), update_scope: JSON.stringify(k.update), transfer: k.transfer ? 1 : 0 };
}

export class KyselyTsigKeyStore implements TsigKeyStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectSql,
  ) {}

  async insertTsigKey(accountId: number, k: TsigKeyData, secret: string, now: number, userId = accountId): Promise<StoredTsigKey> {
    const row = await this.db
      .insertInto('tsig_keys')
      .values({ account_id: accountId, user_id: userId, ...tsigKeyColumns(k), secret, created_at: now })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch(this.dialect.mapError);
    return toTsigKey(row);
  }

  async tsigKey(accountId: number, id: number): Promise<StoredTsigKey | undefined> {
    const row = await this.db.selectFrom('tsig_keys').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return row && toTsigKey(row);
  }

  async tsigKeyByName(name: string): Promise<NamedTsigKey | undefined> {
    const row = await this.db
      .selectFrom('tsig_keys')
      .innerJoin('accounts', 'accounts.id', 'tsig_keys.account_id')
      // A key whose member is gone is no key (removing a member deletes their keys too).
      .innerJoin('users', (j) => j.onRef('users.id', '=', 'tsig_keys.user_id').onRef('users.account_id', '=', 'tsig_keys.account_id'))
      .selectAll('tsig_keys')
      .select(['accounts.username', 'accounts.status', 'accounts.require_2fa', 'users.username as member', 'users.role', 'users.domains as member_domains'])
      .select((eb) => [
        // Whether the member has a second factor, asked only where the account requires one.
        eb.or([
          eb('accounts.require_2fa', '=', 0),
          eb.exists(eb.selectFrom('totp_secrets').select('user_id').whereRef('totp_secrets.user_id', '=', 'tsig_keys.user_id').where('totp_secrets.enabled', '=', 1)),
          eb.exists(eb.selectFrom('passkeys').select('user_id').whereRef('passkeys.user_id', '=', 'tsig_keys.user_id')),
        ]).as('factor_ok'),
      ])
      .where('tsig_keys.name', '=', name)
      .executeTakeFirst();
    if (!row) return undefined;
    const domains = row.member_domains === null ? null : (JSON.parse(row.member_domains) as number[]);
    return {
      ...toTsigKey(row),
      account: row.username,
      accountStatus: row.status as AccountStatus,
      member: { id: num(row.user_id), username: row.member, role: row.role as Role, domains },
      memberHeld: !(row.factor_ok === true || Number(row.factor_ok) === 1),
    };
  }

  async listTsigKeys(accountId: number, page: Page = {}): Promise<StoredTsigKey[]> {
    let q = this.db.selectFrom('tsig_keys').selectAll().where('account_id', '=', accountId);
    if (page.after !== undefined) q = q.where('id', '>', page.after);
    if (page.limit !== undefined) q = q.limit(pageLimit(page.limit));
    return (await q.orderBy('id').execute()).map(toTsigKey);
  }

  countTsigKeys(accountId: number): Promise<number> {
    return countRows(this.db.selectFrom('tsig_keys').where('account_id', '=', accountId));
  }

  async updateTsigKey(id: number, k: TsigKeyData): Promise<void> {
    await this.db.updateTable('tsig_keys').set(tsigKeyColumns(k)).where('id', '=', id).execute().catch(this.dialect.mapError);
  }

  async deleteTsigKey(accountId: number, id: number): Promise<boolean> {
    const res = await this.db.deleteFrom('tsig_keys').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
