/**
 * Second factors as the services and doors see them: a user's TOTP state, passkeys, and the shapes of the codes
 * a user types (a TOTP code, or a one-time recovery code).
 */

/** RFC 6238 as every authenticator app does it: SHA-1, 6 digits, 30-second steps; one step of skew either way. */
export const TOTP = { algorithm: 'SHA1', digits: 6, period: 30, window: 1 } as const;

export interface TotpState {
  /** Base32. */
  secret: string;
  /** false until a first code confirmed the secret. */
  enabled: boolean;
  /** The time step of the last code accepted; null before any. */
  lastStep: number | null;
}

export interface Passkey {
  id: number;
  userId: number;
  /** Base64url. */
  credentialId: string;
  /** Base64url of the COSE public key. */
  publicKey: string;
  counter: number;
  transports: string[];
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

export const RECOVERY_CODES = 10;
/** Letters and digits nobody confuses when copying from paper (no 0/o, 1/l/i). */
export const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
/** 10 characters of 31: about 50 bits each, shown as two groups of five. */
export const RECOVERY_LENGTH = 10;

/** A typed code without the spaces and hyphens people add; lower case. */
export const normaliseCode = (code: string): string => code.replace(/[\s-]/g, '').toLowerCase();

/** Whether a typed code is a TOTP code (six digits) rather than a recovery code. */
export const isTotpCode = (code: string): boolean => new RegExp(`^\\d{${TOTP.digits}}$`).test(normaliseCode(code));

/** A recovery code as shown: xxxxx-xxxxx. */
export const showRecoveryCode = (code: string): string => `${code.slice(0, 5)}-${code.slice(5)}`;
