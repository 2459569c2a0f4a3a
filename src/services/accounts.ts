/** Accounts and API keys. */
import { AuthError, LimitError, ScopeError, SuspendedError, ValidationError } from '../model/errors.js';
import { allowsAddress, checkKeyScope, checkManage, widens, type KeyScope } from '../model/key-scope.js';
import type { ApiKeyRow } from '../model/account.js';
import type { AccountStore } from '../store/accounts.js';
import type { ApiKeyStore } from '../store/api-keys.js';
import type { DomainStore } from '../store/domains.js';
import { UniqueViolation, type Transactions } from '../store/store.js';

/** What accounts and their API keys need of the store. */
type AccountsStore = AccountStore & ApiKeyStore & Pick<DomainStore, 'domain'> & Transactions<AccountStore & ApiKeyStore>;
import { scopeOf, type Actor, type Limits } from './actor.js';
import type { SecondFactorService } from './second-factors.js';
import { generateKey, hashKey, KEY_PREFIX_LENGTH } from './api-key-material.js';
import { checkNewPassword, hashPassword, verifyPassword } from './passwords.js';
import { LoginThrottle } from './throttle.js';

export const MAX_KEY_HOURS = 8760;
export const DEFAULT_KEY_HOURS = 168;
export const MAX_LABEL = 100;
const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

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

  async createUser(username: string, password: string): Promise<{ id: number; username: string }> {
    if (!USERNAME.test(username)) {
      throw ValidationError.one('username', 'The user name must be 1 to 64 letters, digits, dots, hyphens, underscores or @, starting with a letter or digit.');
    }
    checkNewPassword('password', password);
    const hash = await hashPassword(password);
    try {
      const account = await this.store.createAccount(username, hash, this.now());
      return { id: account.id, username: account.username };
    } catch (e) {
      if (e instanceof UniqueViolation) throw ValidationError.one('username', `The user '${username}' already exists.`);
      throw e;
    }
  }

  /**
   * Checks a user name and password; throws AuthError on any mismatch (unknown user included),
   * RateLimitedError once too many attempts failed for this user or from this address, and SuspendedError
   * for the right password of a suspended account (every sign-in, on every door, comes here). `secondFactor`,
   * given the user's id once the password is right, checks what else the sign-in needs; its AuthError (a wrong
   * code) counts as a failed attempt, and only a sign-in that passes it clears the user's count.
   */
  async checkPassword(username: string, password: string, remoteAddr = '', secondFactor?: (userId: number) => Promise<void>): Promise<{ id: number; username: string }> {
    await this.throttle.check(username, remoteAddr);
    const account = await this.store.accountByName(username);
    const ok = await verifyPassword(password, account?.passwordHash);
    if (!ok || !account) {
      await this.throttle.failed(username, remoteAddr);
      throw new AuthError();
    }
    await secondFactor?.(account.id).catch(async (e: unknown) => {
      if (e instanceof AuthError) await this.throttle.failed(username, remoteAddr);
      throw e;
    });
    await this.throttle.succeeded(username);
    if (account.status === 'suspended') throw new SuspendedError(account.username);
    return { id: account.id, username: account.username };
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
    opts: { label?: string; expiresHours?: number; remoteAddr?: string; scope?: unknown; creator?: Actor; otp?: string; session?: boolean } = {},
  ): Promise<IssuedKey> {
    const { label, hours } = keyTerms(opts);
    let scope: KeyScope = {};
    if (opts.scope !== undefined) {
      const checked = checkKeyScope(opts.scope);
      checked.problems.throwIfAny();
      scope = checked.scope;
    }
    const factors = opts.creator ? undefined : this.factors;
    const account = await this.checkPassword(username, password, opts.remoteAddr, factors && ((userId) => factors.checkSignIn(userId, opts.otp)));
    const now = this.now();
    let expiresAt = hours === 0 ? null : now + hours * 3_600_000;
    const creator = opts.creator;
    if (creator) {
      // The key sent along is the account's own: a key of another account proves nothing here.
      if (creator.accountId !== account.id) throw new AuthError();
      const limit = scopeOf(creator);
      if (opts.scope === undefined) scope = limit;
      const wider = widens(scope, limit);
      if (wider) throw new ScopeError(wider, `A key made with a key gets at most its scope; the new key's scope.${wider} allows more than that of the key sent in Authorization.`);
      const until = creator.key?.expiresAt ?? null;
      if (until !== null && (expiresAt === null || expiresAt > until)) expiresAt = until;
    }
    // Domains asked for now must be the account's; inherited ones were checked when the creator was made.
    if (opts.scope !== undefined && scope.domains) {
      const missing: number[] = [];
      for (const id of scope.domains) if (!(await this.store.domain(account.id, id))) missing.push(id);
      if (missing.length) throw ValidationError.one('scope.domains', `There is no domain with id ${missing.join(', ')} in this account.`);
    }
    return this.mint(account, { label, expiresAt, scope, session: opts.session ?? false });
  }

  /** A panel sign-in of a user a passkey proved (services/passkeys.ts checked it): no password, no code. */
  async issueSessionFor(userId: number, opts: { label?: string; expiresHours?: number }): Promise<IssuedKey> {
    const { label, hours } = keyTerms(opts);
    const account = await this.store.accountById(userId);
    if (!account) throw new AuthError();
    if (account.status === 'suspended') throw new SuspendedError(account.username);
    return this.mint(account, { label, expiresAt: hours === 0 ? null : this.now() + hours * 3_600_000, scope: {}, session: true });
  }

  private async mint(account: { id: number; username: string }, k: { label: string; expiresAt: number | null; scope: KeyScope; session: boolean }): Promise<IssuedKey> {
    const now = this.now();
    const key = generateKey();
    const row = await this.store.transaction(async (tx) => {
      await tx.lockAccount(account.id);
      if ((await tx.countActiveKeys(account.id, now)) >= this.limits.keysPerAccount) {
        throw new LimitError('keys', `The number of active API keys is limited to ${this.limits.keysPerAccount}; revoke one first.`);
      }
      return tx.insertKey(account.id, hashKey(key), key.slice(0, KEY_PREFIX_LENGTH), k.label, now, k.expiresAt, k.scope, k.session);
    });
    return { ...row, key, username: account.username };
  }

  /**
   * The actor for an API key; throws AuthError for unknown or expired keys, and for a key used from an
   * address outside its scope's subnets (as for a wrong key: the caller learns nothing of the key);
   * SuspendedError for a key of a suspended account. Read on every request, never cached, so a suspension
   * holds from the next request on, on every node.
   */
  async authenticate(key: string, iface: Actor['iface'], remoteAddr: string, opts: { factorSetup?: boolean } = {}): Promise<Actor> {
    if (key.length === 0 || key.length > 256) throw new AuthError();
    const row = await this.store.keyByHash(hashKey(key), this.now());
    if (!row || !allowsAddress(row.scope, remoteAddr)) throw new AuthError();
    if (row.accountStatus === 'suspended') throw new SuspendedError(row.username);
    const actor: Actor = { accountId: row.accountId, username: row.username, keyLabel: row.label, key: { id: row.id, scope: row.scope, expiresAt: row.expiresAt }, iface, remoteAddr };
    // require_2fa: a user without a second factor may only set one up (`factorSetup`: the request does that).
    if (row.requireTwoFactor) await this.factors?.checkRequired(actor, opts.factorSetup ?? false);
    return actor;
  }

  /** The account's active keys the actor's key could have made: those whose scope is within its own. */
  async listKeys(actor: Actor): Promise<ApiKeyRow[]> {
    const scope = scopeOf(actor);
    return (await this.store.listKeys(actor.accountId, this.now())).filter((k) => widens(k.scope, scope) === null);
  }

  /** Revokes one of the keys the actor sees; false when there is no such key. Any key may revoke itself (signing out). */
  async revokeKey(actor: Actor, keyId: number): Promise<boolean> {
    if (actor.key?.id !== keyId) checkManage(scopeOf(actor), 'API keys');
    if (!(await this.listKeys(actor)).some((k) => k.id === keyId)) return false;
    return this.store.deleteKey(actor.accountId, keyId);
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
