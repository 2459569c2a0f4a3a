/** Accounts: the login names and password hashes everything else belongs to. */
import type { Kysely } from 'kysely';
import type { Account } from '../model/account.js';
import { num } from './columns.js';
import type { DialectSql } from './dialect-sql.js';
import type { Database } from './schema.js';

export interface AccountStore {
  createAccount(username: string, passwordHash: string, now: number): Promise<Account>;
  accountByName(username: string): Promise<Account | undefined>;
  /** Inside a transaction: holds the account's row until commit (serialises changes to its key and domain lists; see DialectSql.lockRow). */
  lockAccount(id: number): Promise<void>;
}

const toAccount = (row: { id: unknown; username: string; password_hash: string; created_at: unknown }): Account => ({
  id: num(row.id),
  username: row.username,
  passwordHash: row.password_hash,
  createdAt: num(row.created_at),
});

export class KyselyAccountStore implements AccountStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectSql,
  ) {}

  async createAccount(username: string, passwordHash: string, now: number): Promise<Account> {
    const row = await this.db
      .insertInto('accounts')
      .values({ username, password_hash: passwordHash, created_at: now })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch(this.dialect.mapError);
    return toAccount(row);
  }

  async accountByName(username: string): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('username', '=', username).executeTakeFirst();
    return row && toAccount(row);
  }

  lockAccount(id: number): Promise<void> {
    return this.dialect.lockRow(this.db, 'accounts', id);
  }
}
