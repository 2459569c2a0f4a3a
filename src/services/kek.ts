/**
 * The key-encryption key (KEK) that seals DNSSEC private keys and TOTP secrets in the store: 32 random bytes in
 * a file of their own, so a copy of the database alone does not hold usable keys. See docs/dnssec.md.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { KEK_BYTES } from '../model/dnssec.js';
import { sqlitePath } from '../store/open.js';

/** Where the KEK comes from, and whether it was made just now. */
export interface Kek {
  key: Buffer;
  /** The file it was read from or written to; null for an in-memory database's throw-away key. */
  file: string | null;
  created: boolean;
}

/** The file's text: base64 (what we write) or 64 hex digits, surrounding white space ignored. */
export function parseKek(text: string, file: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(t) ? Buffer.from(t, 'hex') : /^[A-Za-z0-9+/]+={0,2}$/.test(t) ? Buffer.from(t, 'base64') : Buffer.alloc(0);
  if (key.length !== KEK_BYTES) {
    throw new Error(`the key-encryption key file ${file} must hold ${KEK_BYTES} bytes as base64 or hex (make one with: openssl rand -base64 ${KEK_BYTES} > ${file})`);
  }
  return key;
}

function readKek(file: string): Buffer {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read the key-encryption key file ${file}: ${(e as Error).message}`);
  }
  return parseKek(text, file);
}

/**
 * The node's KEK. A file given in the configuration must exist: every node of a cluster needs the same
 * one, so a node never makes its own. Without one, an embedded SQLite database gets `PATH.kek` beside it,
 * made on first start (mode 0600) and read afterwards; an in-memory database a throw-away key; PostgreSQL
 * none (null: DNSSEC cannot be turned on, and signed zones are not served signed by this node).
 */
export function resolveKek(db: string, file: string | null | undefined, storeHasKeys: boolean): Kek | null {
  if (file) return { key: readKek(file), file, created: false };
  const path = sqlitePath(db);
  if (path === null) return null;
  if (path === ':memory:') return { key: randomBytes(KEK_BYTES), file: null, created: true };
  const beside = `${path}.kek`;
  // A database restored without its KEK file: a new key would not open the stored ones, so make none.
  if (storeHasKeys && !existsSync(beside)) {
    throw new Error(
      `the database holds DNSSEC keys or TOTP secrets sealed with a key-encryption key, but its file ${beside} is missing: restore it from the backup made with the database (if it is lost, see "Losing the KEK" in docs/dnssec.md)`,
    );
  }
  try {
    // 'wx': never overwrite a key that exists (another process may have just made it).
    writeFileSync(beside, `${randomBytes(KEK_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return { key: readKek(beside), file: beside, created: true };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`cannot create the key-encryption key file ${beside}: ${(e as Error).message}`);
  }
  return { key: readKek(beside), file: beside, created: false };
}
