/** Password hashing with scrypt (node:crypto); constant-time verification. */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { ValidationError } from '../model/errors.js';

const scrypt = (password: string, salt: Buffer, keylen: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))));

const PARAMS = { N: 16384, r: 8, p: 1 };
const KEYLEN = 32;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, KEYLEN, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

// Verified against when the user does not exist, so that the reply takes as long as for a wrong password.
const DUMMY = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

export async function verifyPassword(password: string, stored: string | undefined): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = (stored ?? DUMMY).split('$');
  if (alg !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(actual, expected) && stored !== undefined;
}

export const MAX_PASSWORD = 1024;

/** The rules a new password follows (a user made, a password changed); `field` names it in the problem. */
export function checkNewPassword(field: string, password: string): void {
  if (password.length === 0) throw ValidationError.one(field, 'The password must not be empty.');
  if (password.length > MAX_PASSWORD) throw ValidationError.one(field, `The password must be at most ${MAX_PASSWORD} characters long.`);
}
