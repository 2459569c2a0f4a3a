/** Accounts, sign-in (every member's, with their own password) and API keys. */
import { AuthError, LimitError, ScopeError, SuspendedError, ValidationError } from '../model/errors.js';
import { allowsAddress, checkKeyScope, checkManage, intersectScopes, widens, type KeyScope } from '../model/key-scope.js';
import type { ApiKeyRow } from '../model/account.js';
import type { StoredDomain } from '../model/domain.js';
import { checkMemberChange, managesAccount, memberScope } from '../model/roles.js';
import type { AccountStore } from '../store/accounts.js';
import type { ApiKeyStore, FoundKey } from '../store/api-keys.js';
import type { DomainFilter, DomainStore } from '../store/domains.js';
import type { JournalStore } from '../store/journal.js';
import { UniqueViolation, type Transactions } from '../store/store.js';
import type { SignInUser, UserStore } from '../store/users.js';

/** What accounts and their API keys need of the store. */
type AccountsStore = AccountStore &
  UserStore &
  ApiKeyStore &
  Pick<DomainStore, 'domain' | 'listDomains'> &
  Transactions<AccountStore & UserStore & ApiKeyStore & JournalStore>;
import { scopeOf, type Actor, type Limits } from './actor.js';
import type { SecondFactorService } from './second-factors.js';
import { generateKey, hashKey, KEY_PREFIX_LENGTH } from './api-key-material.js';
import { accountChange } from './audit.js';
import { scoped } from './domains.js';
import { checkNewPassword, hashPassword, verifyPassword } from './passwords.js';
import { LoginThrottle } from './throttle.js';

export const MAX_KEY_HOURS = 8760;
export const DEFAULT_KEY_HOURS = 168;
export const MAX_LABEL = 100;
const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** A new user name (an account's owner or a member: one name space for the whole service). */
export function checkUsername(username: string): void {
  if (!USERNAME.test(username)) {
    throw ValidationError.one('username', 'The user name must be 1 to 64 letters, digits, dots, hyphens, underscores or @, starting with a letter or digit.');
  }
}

/** An API key as the audit trail shows it (it holds no secret). */
export const auditedKey = (k: ApiKeyRow) => ({ id: k.id, label: k.label, prefix: k.prefix, scope: k.scope, expires_at: k.expiresAt, user_id: k.userId });

/** The actor a sign-in acts as, before it has a key (for the audit trail of the key it makes). */
const signedIn = (u: SignInUser, iface: Actor['iface'], remoteAddr: string, keyLabel: string): Actor => ({
  accountId: u.accountId,
  userId: u.id,
  role: u.role,
  username: u.username,
  keyLabel,
  iface,
  remoteAddr,
});

export interface IssuedKey extends ApiKeyRow {
  key: string;
  username: string;
}

export class AccountService {
  constructor(
    private readonly store: AccountsStore,
    private readonly limits: Limits,
    private readonly now: () => number,
    private readonly throttle: LoginThrottle = new LoginThrottle(),
    /** What a sign-in asks of a user with a second factor, and of one without where the account requires one. */
    private readonly factors?: SecondFactorService,
  ) {}

  /**
   * Makes an account with its first member, the owner: the user is inserted first and the account takes its
   * id, so an owner's user id is the account's id (store/migrations/014_members.ts).
   */
  async createUser(username: string, password: string): Promise<{ id: number; username: string }> {
    checkUsername(username);
    checkNewPassword('password', password);
    const hash = await hashPassword(password);
    const now = this.now();
    try {
      return await this.store.transaction(async (tx) => {
        const owner = await tx.insertUser(0, { username, passwordHash: hash, role: 'owner', domains: null, invitationHash: null, invitationExpiresAt: null }, now);
        const account = await tx.createAccount(username, hash, now, owner.id);
        await tx.setUserAccount(owner.id, account.id);
        return { id: account.id, username: account.username };
      });
    } catch (e) {
      if (e instanceof UniqueViolation) throw ValidationError.one('username', `The user '${username}' already exists.`);
      throw e;
    }
  }

  /**
   * Checks a member's user name and password; throws AuthError on any mismatch (unknown user included),
   * RateLimitedError once too many attempts failed for this user or from this address, and SuspendedError
   * for the right password of a suspended account (every sign-in, on every door, comes here). `secondFactor`,
   * given the user's id once the password is right, checks what else the sign-in needs; its AuthError (a wrong
   * code) counts as a failed attempt, and only a sign-in that passes it clears the user's count.
   */
  async checkPassword(username: string, password: string, remoteAddr = '', secondFactor?: (userId: number) => Promise<void>): Promise<SignInUser> {
    await this.throttle.check(username, remoteAddr);
    const user = await this.store.userByName(username);
    // A member yet to accept an invitation has no password: checked against the dummy, as an unknown user is.
    const ok = await verifyPassword(password, user?.passwordHash || undefined);
    if (!ok || !user) {
      await this.throttle.failed(username, remoteAddr);
      throw new AuthError();
    }
    await secondFactor?.(user.id).catch(async (e: unknown) => {
      if (e instanceof AuthError) await this.throttle.failed(username, remoteAddr);
      throw e;
    });
    await this.throttle.succeeded(username);
    if (user.accountStatus === 'suspended') throw new SuspendedError(user.accountName);
    return user;
  }

  /**
   * Issues a key after checking the password. `expiresHours` 0 means the key never expires. `scope` (not yet
   * checked) limits the key. `creator`, the actor of an API key sent along, caps the new key: its scope
   * may not be wider (absent, the creator's is taken) and it expires no later than the creator's key.
   * A user with a second factor also sends `otp` (a TOTP or recovery code), unless a creator key is sent: it
   * was itself made by a full sign-in, and bounds the new key. `session`: a panel sign-in (see ApiKeyRow).
   */
  async issueKey(
    username: string,
    password: string,
    opts: { label?: string; expiresHours?: number; remoteAddr?: string; scope?: unknown; creator?: Actor; iface?: Actor['iface']; otp?: string; session?: boolean } = {},
  ): Promise<IssuedKey> {
    const { label, hours } = keyTerms(opts);
    let scope: KeyScope = {};
    if (opts.scope !== undefined) {
      const checked = checkKeyScope(opts.scope);
      checked.problems.throwIfAny();
      scope = checked.scope;
    }
    const factors = opts.creator ? undefined : this.factors;
    const user = await this.checkPassword(username, password, opts.remoteAddr, factors && ((userId) => factors.checkSignIn(userId, opts.otp)));
    const now = this.now();
    let expiresAt = hours === 0 ? null : now + hours * 3_600_000;
    const creator = opts.creator;
    if (creator) {
      // The key sent along is the member's own: another member's or account's key proves nothing here.
      if (creator.accountId !== user.accountId || creator.userId !== user.id) throw new AuthError();
      const limit = scopeOf(creator);
      if (opts.scope === undefined) scope = limit;
      const wider = widens(scope, limit);
      if (wider) throw new ScopeError(wider, `A key made with a key gets at most its scope; the new key's scope.${wider} allows more than that of the key sent in Authorization.`);
      const until = creator.key?.expiresAt ?? null;
      if (until !== null && (expiresAt === null || expiresAt > until)) expiresAt = until;
    }
    // Domains asked for now must be the account's and the member's; inherited ones were checked when the creator was made.
    if (opts.scope !== undefined && scope.domains) {
      const missing: number[] = [];
      for (const id of scope.domains) if (!(await this.store.domain(user.accountId, id)) || !(user.domains ?? [id]).includes(id)) missing.push(id);
      if (missing.length) throw ValidationError.one('scope.domains', `There is no domain with id ${missing.join(', ')} in this account.`);
    }
    const actor = signedIn(user, opts.creator?.iface ?? opts.iface ?? 'v1', opts.remoteAddr ?? '', label);
    return this.mint(user, actor, { label, expiresAt, scope, session: opts.session ?? false }, now);
  }

  /** A panel sign-in of a member a passkey proved (services/passkeys.ts checked it): no password, no code. */
  async issueSessionFor(userId: number, opts: { label?: string; expiresHours?: number; remoteAddr?: string }): Promise<IssuedKey> {
    const { label, hours } = keyTerms(opts);
    const user = await this.store.userById(userId);
    if (!user) throw new AuthError();
    if (user.accountStatus === 'suspended') throw new SuspendedError(user.accountName);
    const actor = signedIn(user, 'v1', opts.remoteAddr ?? '', label);
    const now = this.now();
    return this.mint(user, actor, { label, expiresAt: hours === 0 ? null : now + hours * 3_600_000, scope: {}, session: true }, now);
  }

  /** Makes the key, created at `now`: the clock its expiry was counted from, so it lives exactly as long as asked. */
  private async mint(user: SignInUser, actor: Actor, k: { label: string; expiresAt: number | null; scope: KeyScope; session: boolean }, now: number): Promise<IssuedKey> {
    const key = generateKey();
    const row = await this.store.transaction(async (tx) => {
      await tx.lockAccount(user.accountId);
      if ((await tx.countActiveKeys(user.accountId, now)) >= this.limits.keysPerAccount) {
        throw new LimitError('keys', `The number of active API keys is limited to ${this.limits.keysPerAccount}; revoke one first.`);
      }
      const made = await tx.insertKey(user.accountId, hashKey(key), key.slice(0, KEY_PREFIX_LENGTH), k.label, now, k.expiresAt, k.scope, user.id, k.session);
      await tx.appendJournal([accountChange({ ...actor, key: { id: made.id, scope: k.scope, expiresAt: k.expiresAt } }, now, 'key.create', made.id, null, auditedKey(made))]);
      return made;
    });
    return { ...row, key, username: user.username };
  }

  /**
   * The actor for an API key; throws AuthError for unknown or expired keys, for a key whose member is gone,
   * and for a key used from an address outside its scope's subnets (as for a wrong key: the caller learns
   * nothing of the key); SuspendedError for a key of a suspended account. The key acts within its own scope
   * and its member's rights as they are now (intersected). Read on every request, never cached, so a
   * suspension or a member narrowed holds from the next request on, on every node.
   */
  async authenticate(key: string, iface: Actor['iface'], remoteAddr: string, opts: { factorSetup?: boolean } = {}): Promise<Actor> {
    if (key.length === 0 || key.length > 256) throw new AuthError();
    return this.actorOf(await this.store.keyByHash(hashKey(key), this.now()), iface, remoteAddr, opts);
  }

  /**
   * authenticate(), and the caller's domains as DomainService.list gives them: the key is read with the list in
   * one query where the store can, so a request that lists domains makes one round trip to the database, not
   * two. The key is checked all the same before anything is returned; a key that sees only some of the
   * account's domains has its list read again, narrowed.
   */
  async authenticateListing(key: string, iface: Actor['iface'], remoteAddr: string, filter: DomainFilter): Promise<{ actor: Actor; domains: StoredDomain[] }> {
    if (key.length === 0 || key.length > 256) throw new AuthError();
    const read = await this.store.keyWithDomains(hashKey(key), this.now(), filter);
    const actor = await this.actorOf(read.key, iface, remoteAddr, {});
    return { actor, domains: scopeOf(actor).domains ? await this.store.listDomains(actor.accountId, scoped(actor, filter)) : read.domains };
  }

  /** The actor of a key found by its hash (see authenticate). */
  private async actorOf(row: FoundKey | undefined, iface: Actor['iface'], remoteAddr: string, opts: { factorSetup?: boolean }): Promise<Actor> {
    if (!row || !allowsAddress(row.scope, remoteAddr)) throw new AuthError();
    if (row.accountStatus === 'suspended') throw new SuspendedError(row.username);
    const scope = intersectScopes(row.scope, memberScope(row.member));
    const actor: Actor = {
      accountId: row.accountId,
      userId: row.userId,
      role: row.member.role,
      username: row.member.username,
      keyLabel: row.label,
      key: { id: row.id, scope, expiresAt: row.expiresAt },
      iface,
      remoteAddr,
    };
    // require_2fa: a member without a second factor may only set one up (`factorSetup`: the request does that).
    if (row.requireTwoFactor) await this.factors?.checkRequired(actor, opts.factorSetup ?? false);
    return actor;
  }

  /**
   * The account's active keys that can do no more than the actor's key can now (each judged as it acts: its
   * own scope within its member's rights): every member's for owners and admins, their own for editors and
   * viewers.
   */
  async listKeys(actor: Actor): Promise<ApiKeyRow[]> {
    const scope = scopeOf(actor);
    const all = managesAccount(actor.role);
    const members = new Map((await this.store.listUsers(actor.accountId)).map((m) => [m.id, m]));
    return (await this.store.listKeys(actor.accountId, this.now())).filter((k) => {
      const member = members.get(k.userId);
      return member !== undefined && (all || k.userId === actor.userId) && widens(intersectScopes(k.scope, memberScope(member)), scope) === null;
    });
  }

  /**
   * Revokes one of the keys the actor sees; false when there is no such key. Any key may revoke itself
   * (signing out); another member's key only an owner or admin may, and an owner's only an owner.
   */
  async revokeKey(actor: Actor, keyId: number): Promise<boolean> {
    if (actor.key?.id !== keyId) checkManage(scopeOf(actor), 'API keys');
    const key = (await this.listKeys(actor)).find((k) => k.id === keyId);
    if (!key) return false;
    if (key.userId !== actor.userId) checkMemberChange(actor.role, (await this.store.user(actor.accountId, key.userId))?.role ?? null);
    return this.store.transaction(async (tx) => {
      const done = await tx.deleteKey(actor.accountId, keyId);
      if (done) await tx.appendJournal([accountChange(actor, this.now(), 'key.revoke', keyId, auditedKey(key), null)]);
      return done;
    });
  }
}

/** A new key's label and hours, checked. */
function keyTerms(opts: { label?: string; expiresHours?: number }): { label: string; hours: number } {
  const hours = opts.expiresHours ?? DEFAULT_KEY_HOURS;
  if (!Number.isInteger(hours) || hours < 0 || hours > MAX_KEY_HOURS) {
    throw ValidationError.one('expires', `The expiry must be a whole number of hours between 0 and ${MAX_KEY_HOURS} (0 means never).`);
  }
  const label = opts.label ?? '';
  if (label.length > MAX_LABEL) throw ValidationError.one('label', `The key label must be at most ${MAX_LABEL} characters long.`);
  return { label, hours };
}
