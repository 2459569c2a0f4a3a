/** Accounts and API keys. */
import { AuthError, LimitError, ValidationError } from '../model/errors.js';
import type { ApiKeyRow, Store } from '../store/store.js';
import { UniqueViolation } from '../store/store.js';
import type { Actor, Limits } from './actor.js';
import { generateKey, hashKey, KEY_PREFIX_LENGTH } from './keys.js';
import { hashPassword, verifyPassword } from './passwords.js';
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
    private readonly store: Store,
    private readonly limits: Limits,
    private readonly now: () => number,
    private readonly throttle: LoginThrottle = new LoginThrottle(),
  ) {}

  async createUser(username: string, password: string): Promise<{ id: number; username: string }> {
    if (!USERNAME.test(username)) {
      throw ValidationError.one('username', 'The user name must be 1 to 64 letters, digits, dots, hyphens, underscores or @, starting with a letter or digit.');
    }
    if (password.length === 0) throw ValidationError.one('password', 'The password must not be empty.');
    if (password.length > 1024) throw ValidationError.one('password', 'The password must be at most 1024 characters long.');
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
   * Checks a user name and password; throws AuthError on any mismatch (unknown user included), and
   * RateLimitedError once too many attempts failed for this user or from this address.
   */
  async checkPassword(username: string, password: string, remoteAddr = ''): Promise<{ id: number; username: string }> {
    await this.throttle.check(username, remoteAddr);
    const account = await this.store.accountByName(username);
    const ok = await verifyPassword(password, account?.passwordHash);
    if (!ok || !account) {
      await this.throttle.failed(username, remoteAddr);
      throw new AuthError();
    }
    await this.throttle.succeeded(username);
    return { id: account.id, username: account.username };
  }

  /** Issues a key after checking the password. `expiresHours` 0 means the key never expires. */
  async issueKey(username: string, password: string, opts: { label?: string; expiresHours?: number; remoteAddr?: string } = {}): Promise<IssuedKey> {
    const hours = opts.expiresHours ?? DEFAULT_KEY_HOURS;
    if (!Number.isInteger(hours) || hours < 0 || hours > MAX_KEY_HOURS) {
      throw ValidationError.one('expires', `The expiry must be a whole number of hours between 0 and ${MAX_KEY_HOURS} (0 means never).`);
    }
    const label = opts.label ?? '';
    if (label.length > MAX_LABEL) throw ValidationError.one('label', `The key label must be at most ${MAX_LABEL} characters long.`);
    const account = await this.checkPassword(username, password, opts.remoteAddr);
    const key = generateKey();
    const now = this.now();
    const row = await this.store.transaction(async (tx) => {
      await tx.lockAccount(account.id);
      if ((await tx.countActiveKeys(account.id, now)) >= this.limits.keysPerAccount) {
        throw new LimitError('keys', `The number of active API keys is limited to ${this.limits.keysPerAccount}; revoke one first.`);
      }
      return tx.insertKey(account.id, hashKey(key), key.slice(0, KEY_PREFIX_LENGTH), label, now, hours === 0 ? null : now + hours * 3_600_000);
    });
    return { ...row, key, username: account.username };
  }

  /** The actor for an API key; throws AuthError for unknown or expired keys. */
  async authenticate(key: string, iface: Actor['iface'], remoteAddr: string): Promise<Actor> {
    if (key.length === 0 || key.length > 256) throw new AuthError();
    const row = await this.store.keyByHash(hashKey(key), this.now());
    if (!row) throw new AuthError();
    return { accountId: row.accountId, username: row.username, keyLabel: row.label, iface, remoteAddr };
  }

  listKeys(actor: Actor): Promise<ApiKeyRow[]> {
    return this.store.listKeys(actor.accountId, this.now());
  }

  /** Revokes one of the actor's keys; false when there is no such key of this account. */
  revokeKey(actor: Actor, keyId: number): Promise<boolean> {
    return this.store.deleteKey(actor.accountId, keyId);
  }
}
