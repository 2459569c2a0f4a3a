/**
 * Second factors as stored, keyed by user id: TOTP secrets with the last step used, recovery codes (hashed),
 * passkeys, and the WebAuthn challenges handed out and not yet answered.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Passkey, TotpState } from '../model/second-factor.js';
import { countRows, num, numOrNull } from './columns.js';
import type { DialectSql } from './dialect-sql.js';
import type { Database, PasskeysTable } from './schema.js';

export interface SecondFactorStore {
  totpOf(userId: number): Promise<TotpState | undefined>;
  /** Stores a secret not yet confirmed, in place of an earlier one not confirmed; false when TOTP is already on. */
  putPendingTotp(userId: number, secret: string, now: number): Promise<boolean>;
  /**
   * Records a code's time step as used; false when that step or a later one already was, so each code works once
   * (also when two requests race: the update itself decides). `enable` turns a pending secret on with it.
   */
  useTotpStep(userId: number, step: number, enable?: boolean): Promise<boolean>;
  /** Turns TOTP off: the secret and the recovery codes go. */
  deleteTotp(userId: number): Promise<void>;
  replaceRecoveryCodes(userId: number, codeHashes: readonly string[]): Promise<void>;
  /** Marks an unused recovery code used; false when there is none of that hash left. */
  useRecoveryCode(userId: number, codeHash: string, now: number): Promise<boolean>;
  unusedRecoveryCodes(userId: number): Promise<number>;
  passkeysOf(userId: number): Promise<Passkey[]>;
  passkeyByCredential(credentialId: string): Promise<Passkey | undefined>;
  addPasskey(p: Omit<Passkey, 'id' | 'lastUsedAt'>): Promise<Passkey>;
  /** After a sign-in: the authenticator's new signature counter, and when. */
  passkeyUsed(id: number, counter: number, now: number): Promise<void>;
  deletePasskey(userId: number, id: number): Promise<boolean>;
  /** Whether any TOTP secret is stored sealed (`v1:…`; base32 has no ':'): the node then needs its key-encryption key. */
  anySealedTotpSecret(): Promise<boolean>;
  /** Whether the user has TOTP on or a passkey (what require_2fa asks for). */
  hasSecondFactor(userId: number): Promise<boolean>;
  addChallenge(challenge: string, purpose: string, userId: number | null, expiresAt: number): Promise<void>;
  /** Takes (deletes) a challenge of this purpose and user that has not expired; false when there is none. */
  takeChallenge(challenge: string, purpose: string, userId: number | null, now: number): Promise<boolean>;
}

const toPasskey = (r: Selectable<PasskeysTable>): Passkey => ({
  id: num(r.id),
  userId: num(r.user_id),
  credentialId: r.credential_id,
  publicKey: r.public_key,
  counter: num(r.counter),
  transports: JSON.parse(r.transports) as string[],
  name: r.name,
  createdAt: num(r.created_at),
  lastUsedAt: numOrNull(r.last_used_at),
});

export class KyselySecondFactorStore implements SecondFactorStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectSql,
  ) {}

  async totpOf(userId: number): Promise<TotpState | undefined> {
    const r = await this.db.selectFrom('totp_secrets').selectAll().where('user_id', '=', userId).executeTakeFirst();
    return r && { secret: r.secret, enabled: num(r.enabled) === 1, lastStep: numOrNull(r.last_step) };
  }

  async putPendingTotp(userId: number, secret: string, now: number): Promise<boolean> {
    const res = await this.db
      .insertInto('totp_secrets')
      .values({ user_id: userId, secret, enabled: 0, last_step: null, created_at: now })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ secret, created_at: now, last_step: null }).where('totp_secrets.enabled', '=', 0))
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async useTotpStep(userId: number, step: number, enable = false): Promise<boolean> {
    const res = await this.db
      .updateTable('totp_secrets')
      .set({ last_step: step, ...(enable ? { enabled: 1 } : {}) })
      .where('user_id', '=', userId)
      .where('enabled', '=', enable ? 0 : 1)
      .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async deleteTotp(userId: number): Promise<void> {
    await this.db.deleteFrom('totp_secrets').where('user_id', '=', userId).execute();
    await this.db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  }

  async replaceRecoveryCodes(userId: number, codeHashes: readonly string[]): Promise<void> {
    await this.db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
    if (codeHashes.length) await this.db.insertInto('recovery_codes').values(codeHashes.map((h) => ({ user_id: userId, code_hash: h, used_at: null }))).execute();
  }

  async useRecoveryCode(userId: number, codeHash: string, now: number): Promise<boolean> {
    const res = await this.db
      .updateTable('recovery_codes')
      .set({ used_at: now })
      .where('user_id', '=', userId)
      .where('code_hash', '=', codeHash)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  unusedRecoveryCodes(userId: number): Promise<number> {
    return countRows(this.db.selectFrom('recovery_codes').where('user_id', '=', userId).where('used_at', 'is', null));
  }

  async passkeysOf(userId: number): Promise<Passkey[]> {
    return (await this.db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('id').execute()).map(toPasskey);
  }

  async passkeyByCredential(credentialId: string): Promise<Passkey | undefined> {
    const r = await this.db.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
    return r && toPasskey(r);
  }

  async addPasskey(p: Omit<Passkey, 'id' | 'lastUsedAt'>): Promise<Passkey> {
    const r = await this.db
      .insertInto('passkeys')
      .values({
        user_id: p.userId,
        credential_id: p.credentialId,
        public_key: p.publicKey,
        counter: p.counter,
        transports: JSON.stringify(p.transports),
        name: p.name,
        created_at: p.createdAt,
        last_used_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch(this.dialect.mapError);
    return toPasskey(r);
  }

  async passkeyUsed(id: number, counter: number, now: number): Promise<void> {
    await this.db.updateTable('passkeys').set({ counter, last_used_at: now }).where('id', '=', id).execute();
  }

  async deletePasskey(userId: number, id: number): Promise<boolean> {
    const res = await this.db.deleteFrom('passkeys').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  async anySealedTotpSecret(): Promise<boolean> {
    return (await this.db.selectFrom('totp_secrets').select('user_id').where('secret', 'like', '%:%').limit(1).executeTakeFirst()) !== undefined;
  }

  async hasSecondFactor(userId: number): Promise<boolean> {
    const totp = await countRows(this.db.selectFrom('totp_secrets').where('user_id', '=', userId).where('enabled', '=', 1));
    return totp > 0 || (await countRows(this.db.selectFrom('passkeys').where('user_id', '=', userId))) > 0;
  }

  async addChallenge(challenge: string, purpose: string, userId: number | null, expiresAt: number): Promise<void> {
    await this.db.insertInto('webauthn_challenges').values({ challenge, purpose, user_id: userId, expires_at: expiresAt }).execute();
  }

  async takeChallenge(challenge: string, purpose: string, userId: number | null, now: number): Promise<boolean> {
    // Expired challenges of anyone go on the way.
    await this.db.deleteFrom('webauthn_challenges').where('expires_at', '<=', now).execute();
    const res = await this.db
      .deleteFrom('webauthn_challenges')
      .where('challenge', '=', challenge)
      .where('purpose', '=', purpose)
      .where((eb) => (userId === null ? eb('user_id', 'is', null) : eb('user_id', '=', userId)))
      .executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
