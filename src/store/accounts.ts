/** Accounts: the login names and password hashes everything else belongs to, and what the operator sets on them. */
import type { Kysely, Selectable } from 'kysely';
import type { Account, AccountControls, AccountStatus, AccountSummary } from '../model/account.js';
import { num, numOrNull } from './columns.js';
import type { DialectSql } from './dialect-sql.js';
import type { AccountsTable, Database } from './schema.js';

export interface AccountStore {
  /** `id`: the owner's user id, which a new account takes (UserStore.insertUser); absent, the next free one. */
  createAccount(username: string, passwordHash: string, now: number, id?: number): Promise<Account>;
  accountByName(username: string): Promise<Account | undefined>;
  accountById(id: number): Promise<Account | undefined>;
  /** Inside a transaction: holds the account's row until commit (serialises changes to its key and domain lists; see DialectSql.lockRow). */
  lockAccount(id: number): Promise<void>;
  /** Every account (or the one of that name) with what it holds, by name. */
  listAccounts(name?: string): Promise<AccountSummary[]>;
  setAccountControls(id: number, controls: AccountControls): Promise<void>;
  setRequireTwoFactor(id: number, on: boolean): Promise<void>;
  /** The password of a user (today: the account's one user, whose id is the account's). */
  setPasswordHash(userId: number, passwordHash: string): Promise<void>;
  /**
   * Deletes the account with everything it holds: its domains (with their records, mirror states and DNSSEC
   * keys) and its API and TSIG keys by the foreign keys, and the journal entries of its domains and of its
   * users, which no foreign key holds: the audit trail goes with the account; and its members.
   */
  deleteAccount(id: number): Promise<void>;
}

const toAccount = (row: Selectable<AccountsTable>): Account => ({
  id: num(row.id),
  username: row.username,
  passwordHash: row.password_hash,
  createdAt: num(row.created_at),
  status: row.status as AccountStatus,
  maxDomains: numOrNull(row.max_domains),
  maxRecords: numOrNull(row.max_records),
  requireTwoFactor: num(row.require_2fa) === 1,
});

export class KyselyAccountStore implements AccountStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectSql,
  ) {}

  async createAccount(username: string, passwordHash: string, now: number, id?: number): Promise<Account> {
    const row = await this.db
      .insertInto('accounts')
      .values({ ...(id === undefined ? {} : { id }), username, password_hash: passwordHash, created_at: now })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch(this.dialect.mapError);
    return toAccount(row);
  }

  async accountByName(username: string): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('username', '=', username).executeTakeFirst();
    return row && toAccount(row);
  }

  async accountById(id: number): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toAccount(row);
  }

  lockAccount(id: number): Promise<void> {
    return this.dialect.lockRow(this.db, 'accounts', id);
  }

  async listAccounts(name?: string): Promise<AccountSummary[]> {
    let q = this.db.selectFrom('accounts');
    if (name !== undefined) q = q.where('accounts.username', '=', name);
    const rows = await q
      .select(['accounts.id', 'accounts.username', 'accounts.status', 'accounts.max_domains', 'accounts.max_records'])
      .select((eb) => [
        eb.selectFrom('users').whereRef('users.account_id', '=', 'accounts.id').select(eb.fn.countAll().as('n')).as('members'),
        eb.selectFrom('domains').whereRef('domains.account_id', '=', 'accounts.id').select(eb.fn.countAll().as('n')).as('domains'),
        eb
          .selectFrom('records')
          .innerJoin('domains', 'domains.id', 'records.domain_id')
          .whereRef('domains.account_id', '=', 'accounts.id')
          .select(eb.fn.countAll().as('n'))
          .as('records'),
      ])
      .orderBy('accounts.username')
      .execute();
    return rows.map((r) => ({
      id: num(r.id),
      name: r.username,
      members: num(r.members ?? 0),
      domains: num(r.domains ?? 0),
      records: num(r.records ?? 0),
      status: r.status as AccountStatus,
      maxDomains: numOrNull(r.max_domains),
      maxRecords: numOrNull(r.max_records),
    }));
  }

  async setAccountControls(id: number, controls: AccountControls): Promise<void> {
    const set = {
      ...(controls.status === undefined ? {} : { status: controls.status }),
      ...(controls.maxDomains === undefined ? {} : { max_domains: controls.maxDomains }),
      ...(controls.maxRecords === undefined ? {} : { max_records: controls.maxRecords }),
    };
    if (Object.keys(set).length > 0) await this.db.updateTable('accounts').set(set).where('id', '=', id).execute();
  }

  async setRequireTwoFactor(id: number, on: boolean): Promise<void> {
    await this.db.updateTable('accounts').set({ require_2fa: on ? 1 : 0 }).where('id', '=', id).execute();
  }

  async setPasswordHash(userId: number, passwordHash: string): Promise<void> {
    // Sign-in reads the member's (users) password; accounts.password_hash is no longer read (014_members).
    await this.db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
  }

  async deleteAccount(id: number): Promise<void> {
    // Its members' second factors, which no foreign key holds.
    const members = this.db.selectFrom('users').select('id').where('account_id', '=', id);
    for (const table of ['totp_secrets', 'recovery_codes', 'passkeys', 'webauthn_challenges'] as const) await this.db.deleteFrom(table).where('user_id', 'in', members).execute();
    await this.db
      .deleteFrom('changes')
      .where((eb) => eb.or([eb('account_id', '=', id), eb('domain_id', 'in', eb.selectFrom('domains').select('id').where('account_id', '=', id))]))
      .execute();
    // No foreign key holds users (an owner is inserted before its account).
    await this.db.deleteFrom('users').where('account_id', '=', id).execute();
    await this.db.deleteFrom('accounts').where('id', '=', id).execute();
  }
}
