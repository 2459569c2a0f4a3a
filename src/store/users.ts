/** Users: the members of accounts, each with a role, the domains they may act on, and a pending invitation. */
import type { Kysely, Selectable } from 'kysely';
import type { AccountStatus } from '../model/account.js';
import type { Member, MemberRights, Role } from '../model/roles.js';
import { countRows, num, numOrNull } from './columns.js';
import type { DialectSql } from './dialect-sql.js';
import type { Database, UsersTable } from './schema.js';

/** A member with what signing in needs: the password hash and the account's name and status. */
export interface SignInUser extends Member {
  passwordHash: string;
  accountName: string;
  accountStatus: AccountStatus;
}

export interface NewUser extends MemberRights {
  username: string;
  passwordHash: string;
  invitationHash: string | null;
  invitationExpiresAt: number | null;
}

export interface UserStore {
  /** Raises UniqueViolation when the user name is taken (anywhere in the service). `accountId` 0: the owner of an account made next (setUserAccount). */
  insertUser(accountId: number, u: NewUser, now: number): Promise<Member>;
  /** The owner of a new account: its user, inserted first, takes the account's id (AccountStore.createAccount). */
  setUserAccount(userId: number, accountId: number): Promise<void>;
  userByName(username: string): Promise<SignInUser | undefined>;
  /** The same by the user's id (a passkey names its user so). */
  userById(id: number): Promise<SignInUser | undefined>;
  /** A member of this account (undefined for another account's). */
  user(accountId: number, id: number): Promise<Member | undefined>;
  listUsers(accountId: number): Promise<Member[]>;
  countOwners(accountId: number): Promise<number>;
  updateUser(id: number, rights: MemberRights): Promise<void>;
  /** The member whose unexpired invitation has this token hash. */
  userByInvitation(hash: string, now: number): Promise<Member | undefined>;
  /** Sets the password and ends the invitation. */
  acceptInvitation(id: number, passwordHash: string): Promise<void>;
  /** Deletes the member with the API keys and TSIG keys they made: they stop working at the next request. */
  deleteUser(accountId: number, id: number): Promise<boolean>;
}

const toMember = (row: Selectable<UsersTable>): Member => ({
  id: num(row.id),
  accountId: num(row.account_id),
  username: row.username,
  role: row.role as Role,
  domains: row.domains === null ? null : (JSON.parse(row.domains) as number[]),
  createdAt: num(row.created_at),
  invitationExpiresAt: numOrNull(row.invitation_expires_at),
});

export class KyselyUserStore implements UserStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectSql,
  ) {}

  async insertUser(accountId: number, u: NewUser, now: number): Promise<Member> {
    const row = await this.db
      .insertInto('users')
      .values({
        account_id: accountId,
        username: u.username,
        password_hash: u.passwordHash,
        role: u.role,
        domains: u.domains === null ? null : JSON.stringify(u.domains),
        created_at: now,
        invitation_hash: u.invitationHash,
        invitation_expires_at: u.invitationExpiresAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch(this.dialect.mapError);
    return toMember(row);
  }

  async setUserAccount(userId: number, accountId: number): Promise<void> {
    await this.db.updateTable('users').set({ account_id: accountId }).where('id', '=', userId).execute();
  }

  userByName(username: string): Promise<SignInUser | undefined> {
    return this.signInUser('username', username);
  }

  userById(id: number): Promise<SignInUser | undefined> {
    return this.signInUser('id', id);
  }

  private async signInUser(column: 'username' | 'id', value: string | number): Promise<SignInUser | undefined> {
    const row = await this.db
      .selectFrom('users')
      .innerJoin('accounts', 'accounts.id', 'users.account_id')
      .selectAll('users')
      .select(['accounts.username as account_name', 'accounts.status as account_status'])
      .where(`users.${column}`, '=', value)
      .executeTakeFirst();
    return row && { ...toMember(row), passwordHash: row.password_hash, accountName: row.account_name, accountStatus: row.account_status as AccountStatus };
  }

  async user(accountId: number, id: number): Promise<Member | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    return row && toMember(row);
  }

  async listUsers(accountId: number): Promise<Member[]> {
    return (await this.db.selectFrom('users').selectAll().where('account_id', '=', accountId).orderBy('id').execute()).map(toMember);
  }

  countOwners(accountId: number): Promise<number> {
    return countRows(this.db.selectFrom('users').where('account_id', '=', accountId).where('role', '=', 'owner'));
  }

  async updateUser(id: number, rights: MemberRights): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ role: rights.role, domains: rights.domains === null ? null : JSON.stringify(rights.domains) })
      .where('id', '=', id)
      .execute();
  }

  async userByInvitation(hash: string, now: number): Promise<Member | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('invitation_hash', '=', hash).where('invitation_expires_at', '>', now).executeTakeFirst();
    return row && toMember(row);
  }

  async acceptInvitation(id: number, passwordHash: string): Promise<void> {
    await this.db.updateTable('users').set({ password_hash: passwordHash, invitation_hash: null, invitation_expires_at: null }).where('id', '=', id).execute();
  }

  async deleteUser(accountId: number, id: number): Promise<boolean> {
    await this.db.deleteFrom('api_keys').where('account_id', '=', accountId).where('user_id', '=', id).execute();
    await this.db.deleteFrom('tsig_keys').where('account_id', '=', accountId).where('user_id', '=', id).execute();
    if (!(await this.user(accountId, id))) return false;
    // Their second factors, which no foreign key holds.
    for (const table of ['totp_secrets', 'recovery_codes', 'passkeys', 'webauthn_challenges'] as const) await this.db.deleteFrom(table).where('user_id', '=', id).execute();
    const res = await this.db.deleteFrom('users').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
