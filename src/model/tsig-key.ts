/**
 * TSIG keys (RFC 8945): what a key is, what it may do (its scope) and the rules its fields follow. A key is
 * found by its name alone (the TSIG record carries nothing else), so names are unique in the service.
 */
import type { AccountStatus } from './account.js';
import type { MemberRights } from './roles.js';
import { Problems } from './errors.js';
import { hostnameProblem } from './names.js';
import { checkScopeNames, checkScopeTypes, nameCovered } from './name-scope.js';

/** The HMAC algorithms we accept, by their TSIG names (RFC 8945 6), with node:crypto's hash and the MAC size. */
export const TSIG_ALGORITHMS = {
  'hmac-sha256': { hash: 'sha256', size: 32 },
  'hmac-sha224': { hash: 'sha224', size: 28 },
  'hmac-sha384': { hash: 'sha384', size: 48 },
  'hmac-sha512': { hash: 'sha512', size: 64 },
  'hmac-sha1': { hash: 'sha1', size: 20 },
} as const;
export type TsigAlgorithm = keyof typeof TSIG_ALGORITHMS;
export const TSIG_ALGORITHM_NAMES = Object.keys(TSIG_ALGORITHMS) as TsigAlgorithm[];
export const DEFAULT_TSIG_ALGORITHM: TsigAlgorithm = 'hmac-sha256';
export const isTsigAlgorithm = (s: string): s is TsigAlgorithm => Object.hasOwn(TSIG_ALGORITHMS, s);

/** A generated secret's length; a given one must have at least MIN_SECRET_BYTES (RFC 8945 6: half the MAC at least). */
export const SECRET_BYTES = 32;
export const MIN_SECRET_BYTES = 16;

/**
 * What a key may write by DNS UPDATE: nothing, anything in its domains, or only these owner names (relative
 * to the domain, `@` the apex, `*.x` the name `*.x` and everything below `x`; name-scope.ts, shared with API
 * key scopes) and these types. A list that is left out does not restrict.
 */
export type UpdateScope = boolean | { names?: string[]; types?: string[] };

export interface TsigKeyData {
  /** Absolute, lower case, without the trailing dot. */
  name: string;
  algorithm: TsigAlgorithm;
  /** Ids of the owning account's master domains and mirrors the key may act on. */
  domains: number[];
  update: UpdateScope;
  /** Whether the key may pull those domains by AXFR/IXFR. */
  transfer: boolean;
}

export interface StoredTsigKey extends TsigKeyData {
  id: number;
  accountId: number;
  /** The shared secret, base64; never shown again after creation. */
  secret: string;
  createdAt: number;
  /** The member who made the key: it never does more than they may (model/roles.ts). */
  userId: number;
}

/**
 * A key as a DNS message names it: with its account's name and status, judged once its signature checked
 * out, and its member's name and rights as they are at this message.
 */
export interface NamedTsigKey extends StoredTsigKey {
  account: string;
  accountStatus: AccountStatus;
  member: MemberRights & { id: number; username: string };
  /** The account requires a second factor (require_2fa) and the member who made the key has none yet. */
  memberHeld: boolean;
}

/** A key name as a client writes it: trimmed, one trailing dot dropped, lower case (names compare so on the wire). */
export const normalizeKeyName = (raw: string): string => raw.trim().replace(/\.$/, '').toLowerCase();

/** The secret's bytes, or null when it is not base64 (RFC 4648, padding optional). */
export function secretBytes(secret: string): Buffer | null {
  const s = secret.trim();
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 === 1) return null;
  return Buffer.from(s, 'base64');
}

/** A key as a client names it to a server: enough to sign with (a zone mirror's key for its masters). */
export interface TsigKeyRef {
  name: string;
  algorithm: TsigAlgorithm;
  secret: string;
}

/**
 * The problems of a key's name, algorithm and (when given) secret, filed under `prefix` + the field name;
 * normalises the name and the secret (canonical base64) in place. Shared by keys and mirrors' master keys.
 */
export function checkKeyFields(p: Problems, prefix: string, k: { name: string; algorithm: string; secret?: string }): void {
  k.name = normalizeKeyName(k.name);
  const nameProblem = hostnameProblem(k.name, { underscore: true });
  if (nameProblem) p.add(`${prefix}name`, `The key name '${k.name}' ${nameProblem}.`);
  if (!isTsigAlgorithm(k.algorithm)) p.add(`${prefix}algorithm`, `The algorithm must be one of ${TSIG_ALGORITHM_NAMES.join(', ')}.`);
  if (k.secret !== undefined) {
    const bytes = secretBytes(k.secret);
    if (!bytes) p.add(`${prefix}secret`, 'The secret must be base64.');
    else if (bytes.length < MIN_SECRET_BYTES) p.add(`${prefix}secret`, `The secret must be at least ${MIN_SECRET_BYTES} bytes long (it is ${bytes.length}).`);
    else k.secret = bytes.toString('base64');
  }
}

/**
 * Checks a key's fields in place (normalising its name, secret, names and types); returns every problem
 * found. The secret is checked when present (it is given only on creation).
 */
export function checkTsigKey(k: TsigKeyData & { secret?: string }): Problems {
  const p = new Problems();
  checkKeyFields(p, '', k);
  if (typeof k.update === 'object') {
    const { names, types } = k.update;
    if (names !== undefined) k.update.names = checkScopeNames(p, 'update.names', names);
    if (types !== undefined) k.update.types = checkScopeTypes(p, 'update.types', types);
  }
  return p;
}

/** Whether a key may update the name (relative to its domain) at all: the scope's names allow it. */
export function updatesName(scope: UpdateScope, name: string): boolean {
  if (scope === false) return false;
  if (scope === true || scope.names === undefined) return true;
  return scope.names.some((p) => nameCovered(p, name));
}

/** Whether a key may write records of `type` at `name` (relative to its domain). */
export function updatesRecord(scope: UpdateScope, name: string, type: string): boolean {
  if (!updatesName(scope, name)) return false;
  return scope === true || typeof scope !== 'object' || scope.types === undefined || scope.types.includes(type);
}

