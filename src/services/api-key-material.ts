/** API key material: generation and the hash under which a key is stored. */
import { createHash, randomInt } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const KEY_LENGTH = 64;
/** How many leading characters of a key are kept to let a user recognise it. */
export const KEY_PREFIX_LENGTH = 6;
// certbot's Linode plugin takes a key of this shape for a v4 token, so we never issue one.
const LOOKS_LIKE_V4 = /^[0-9a-f]{64}$/;

export function generateKey(): string {
  for (;;) {
    let key = '';
    for (let i = 0; i < KEY_LENGTH; i++) key += ALPHABET[randomInt(ALPHABET.length)];
    if (!LOOKS_LIKE_V4.test(key)) return key;
  }
}

/** Keys carry 380 bits of entropy, so one unsalted SHA-256 is enough to make the stored form useless. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
