/**
 * Second factors: TOTP (RFC 6238) with one-time recovery codes, what a sign-in asks of a user who has them,
 * and an account's rule that every member have one (require_2fa). Passkeys are in passkeys.ts; this service
 * counts them as a factor. Everything is the user's (userIdOf), never the key's. TOTP secrets are stored sealed
 * with the key-encryption key, as DNSSEC private keys are, where the node has one; each change is audited.
 */
import { Secret, TOTP as Totp } from 'otpauth';
import { randomInt } from 'node:crypto';
import { AuthError, ConflictError, MisconfiguredError, SecondFactorNeededError, SecondFactorSetupError, ValidationError } from '../model/errors.js';
import { checkAccountWide } from '../model/key-scope.js';
import { checkManagesAccount } from '../model/roles.js';
import { openKey, sealKey } from '../model/dnssec.js';
import { isTotpCode, normaliseCode, RECOVERY_ALPHABET, RECOVERY_CODES, RECOVERY_LENGTH, showRecoveryCode, TOTP } from '../model/second-factor.js';
import type { AccountStore } from '../store/accounts.js';
import type { JournalStore } from '../store/journal.js';
import type { SecondFactorStore } from '../store/second-factors.js';
import type { Transactions } from '../store/store.js';
import { scopeOf, userIdOf, type Actor } from './actor.js';
import { hashKey } from './api-key-material.js';
import { accountChange } from './audit.js';
import type { LoginThrottle } from './throttle.js';

type FactorOps = SecondFactorStore & Pick<AccountStore, 'accountById' | 'setRequireTwoFactor'> & JournalStore;
type FactorStore = FactorOps & Transactions<FactorOps>;

/** The issuer authenticator apps show beside the user name. */
export const TOTP_ISSUER = 'zonehost';

const totpOf = (secret: string, username: string) =>
  new Totp({ issuer: TOTP_ISSUER, label: username, algorithm: TOTP.algorithm, digits: TOTP.digits, period: TOTP.period, secret: Secret.fromBase32(secret) });

const newRecoveryCode = (): string => Array.from({ length: RECOVERY_LENGTH }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');

/** What sealing a user's TOTP secret authenticates besides it: whose it is, so a sealed secret copied onto another user's row does not open. */
const sealContext = (userId: number) => `zonehost totp secret: user ${userId}`;

/** A sealed secret (`v1:iv:tag:body`) from a plain one stored before sealing or without a KEK (base32 has no ':'). */
const isSealed = (stored: string) => stored.includes(':');

/** The audit trail's view of a user's second factor: whose, never the secret. */
const auditedUser = (actor: Actor) => ({ user_id: userIdOf(actor), username: actor.username });

const wrongCode = () => ValidationError.one('code', 'The code is not right: type the six digits your authenticator app shows now (or an unused recovery code).');

export class SecondFactorService {
  constructor(
    private readonly store: FactorStore,
    private readonly now: () => number,
    /** The sign-in throttle: wrong codes count as wrong passwords do. */
    private readonly throttle: LoginThrottle,
    /** The key-encryption key that seals TOTP secrets (services/kek.ts); null: stored as they are (PostgreSQL without one). */
    private readonly kek: Buffer | null = null,
  ) {}

  /** Whether TOTP is on, and how many recovery codes are left. */
  async totpStatus(actor: Actor): Promise<{ enabled: boolean; recoveryCodesLeft: number }> {
    const userId = userIdOf(actor);
    const state = await this.store.totpOf(userId);
    return { enabled: state?.enabled ?? false, recoveryCodesLeft: state?.enabled ? await this.store.unusedRecoveryCodes(userId) : 0 };
  }

  /** A new secret to put in an authenticator app; TOTP is on once a code of it is confirmed. */
  async startTotp(actor: Actor): Promise<{ secret: string; uri: string }> {
    checkAccountWide(scopeOf(actor), 'two-factor sign-in');
    const secret = new Secret({ size: 20 }).base32;
    const userId = userIdOf(actor);
    const stored = this.kek ? sealKey(this.kek, secret, sealContext(userId)) : secret;
    if (!(await this.store.putPendingTotp(userId, stored, this.now()))) {
      throw new ConflictError(null, 'Two-factor sign-in is already on; turn it off first (DELETE /v1/me/totp) to move to another authenticator.');
    }
    return { secret, uri: totpOf(secret, actor.username).toString() };
  }

  /** Turns TOTP on with a first code of the new secret; answers the recovery codes, shown only this once. */
  async confirmTotp(actor: Actor, code: string): Promise<string[]> {
    checkAccountWide(scopeOf(actor), 'two-factor sign-in');
    const userId = userIdOf(actor);
    const state = await this.store.totpOf(userId);
    if (!state || state.enabled) {
      throw new ConflictError(null, state ? 'Two-factor sign-in is already on.' : 'There is no set-up to confirm: start one with POST /v1/me/totp.');
    }
    await this.throttle.check(actor.username, actor.remoteAddr);
    const step = isTotpCode(code) ? this.stepOf(this.secretOf(userId, state.secret), code) : null;
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    const enabled =
      step !== null &&
      (await this.store.transaction(async (tx) => {
        if (!(await tx.useTotpStep(userId, step, true))) return false;
        await tx.replaceRecoveryCodes(userId, codes.map(hashKey));
        await tx.appendJournal([accountChange(actor, this.now(), 'totp.enable', userId, null, auditedUser(actor))]);
        return true;
      }));
    if (!enabled) {
      await this.throttle.failed(actor.username, actor.remoteAddr);
      throw wrongCode();
    }
    return codes.map(showRecoveryCode);
  }

  /** Turns TOTP off (its recovery codes go with it), given a code or a recovery code. */
  async disableTotp(actor: Actor, code: string): Promise<void> {
    checkAccountWide(scopeOf(actor), 'two-factor sign-in');
    const userId = userIdOf(actor);
    if (!(await this.store.totpOf(userId))?.enabled) throw new ConflictError(null, 'Two-factor sign-in is not on.');
    await this.throttle.check(actor.username, actor.remoteAddr);
    if (!(await this.accepts(userId, code))) {
      await this.throttle.failed(actor.username, actor.remoteAddr);
      throw wrongCode();
    }
    await this.store.transaction(async (tx) => {
      await tx.deleteTotp(userId);
      await tx.appendJournal([accountChange(actor, this.now(), 'totp.disable', userId, auditedUser(actor), null)]);
    });
  }

  /**
   * What a password sign-in of this user needs besides the password (called once the password checked out):
   * with TOTP on, a code (`otp`) accepted once; with passkeys only, a passkey sign-in instead. AuthError for a
   * wrong or used code (the caller counts it as a failed sign-in).
   */
  async checkSignIn(userId: number, otp: string | undefined): Promise<void> {
    const state = await this.store.totpOf(userId);
    if (state?.enabled) {
      if (!otp) throw new SecondFactorNeededError('totp');
      if (!(await this.accepts(userId, otp))) throw new AuthError();
      return;
    }
    if ((await this.store.passkeysOf(userId)).length > 0) throw new SecondFactorNeededError('passkey');
  }

  /**
   * For a key of an account that requires a second factor: a user without one may only set one up
   * (`setupAllowed`: the request is for /v1/me/totp or /v1/me/passkeys); anything else is refused.
   */
  async checkRequired(actor: Actor, setupAllowed: boolean): Promise<void> {
    if (setupAllowed || (await this.store.hasSecondFactor(userIdOf(actor)))) return;
    throw new SecondFactorSetupError();
  }

  /** The account's settings of this service. */
  async accountSettings(actor: Actor): Promise<{ requireTwoFactor: boolean }> {
    return { requireTwoFactor: (await this.store.accountById(actor.accountId))?.requireTwoFactor ?? false };
  }

  /**
   * Requires a second factor of every member, or stops requiring it. Whoever turns it on must have one, so
   * the rule never locks out the one who set it. Owners and admins only.
   */
  async setRequireTwoFactor(actor: Actor, on: boolean): Promise<void> {
    checkAccountWide(scopeOf(actor), 'account settings');
    checkManagesAccount(actor.role, 'account settings');
    if (on && !(await this.store.hasSecondFactor(userIdOf(actor)))) {
      throw new ConflictError('require_2fa', 'Set up a second factor for yourself first (TOTP or a passkey): requiring one of every member starts with you.');
    }
    await this.store.transaction(async (tx) => {
      const before = (await tx.accountById(actor.accountId))?.requireTwoFactor ?? false;
      await tx.setRequireTwoFactor(actor.accountId, on);
      if (before !== on) await tx.appendJournal([accountChange(actor, this.now(), 'account.update', actor.accountId, { require_2fa: before }, { require_2fa: on })]);
    });
  }

  /** A TOTP code's time step, within one step of now either way; null when it matches none. */
  private stepOf(secret: string, code: string): number | null {
    const now = this.now();
    const delta = totpOf(secret, '').validate({ token: normaliseCode(code), timestamp: now, window: TOTP.window });
    return delta === null ? null : Math.floor(now / 1000 / TOTP.period) + delta;
  }

  /** Takes a code of an enabled TOTP (its step after the last used) or an unused recovery code; each works once. */
  private async accepts(userId: number, code: string): Promise<boolean> {
    if (!isTotpCode(code)) return this.store.useRecoveryCode(userId, hashKey(normaliseCode(code)), this.now());
    const state = await this.store.totpOf(userId);
    const step = state?.enabled ? this.stepOf(this.secretOf(userId, state.secret), code) : null;
    return step !== null && this.store.useTotpStep(userId, step);
  }

  /** The base32 secret of a stored one: opened when sealed, as it is when stored before sealing (or without a KEK). */
  private secretOf(userId: number, stored: string): string {
    if (!isSealed(stored)) return stored;
    // Another node sealed it after this one started (a node without a KEK refuses to start where sealed secrets are).
    if (!this.kek) throw new MisconfiguredError('This node cannot check TOTP codes: the secret is sealed with the cluster\'s key-encryption key, which this node was not given (--key-encryption-key-file). Sign in through another node, or ask the operator.');
    return openKey(this.kek, stored, sealContext(userId));
  }
}
