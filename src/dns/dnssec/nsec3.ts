/**
 * NSEC3 (RFC 5155): the hash of a name with any parameters (a mirrored master's chain may use a salt and
 * iterations); our own signed zones' chain with RFC 9276's parameters — SHA-1, no extra iterations, no salt,
 * no opt-out; and the names a proof that a name or a type is not there speaks of (closest encloser, next
 * closer name, wildcard: RFC 5155 7.2).
 */
import { createHash } from 'node:crypto';
import { nameOfLabels, splitName } from '../../model/labels.js';
import { canonicalName, NSEC3_PARAMS } from '../../model/dnssec.js';
import { base32hex } from '../../model/records/common.js';
import { nsec3Data, type Nsec3Fields } from '../../model/records/index.js';
import { typeName } from '../wire/message.js';

const NO_SALT = Buffer.alloc(0);

/**
 * The NSEC3 hash of a name (presentation form, or its lookup key), RFC 5155 5: SHA-1 of its canonical wire
 * form and the salt, then `iterations` times more of the hash and the salt. Our own zones use neither.
 */
export function nsec3Hash(name: string, iterations = 0, salt: Buffer = NO_SALT): Buffer {
  let hash = createHash('sha1').update(canonicalName(name)).update(salt).digest();
  for (let i = 0; i < iterations; i++) hash = createHash('sha1').update(hash).update(salt).digest();
  return hash;
}

/** The index of the first of `sorted` (by hash) whose hash is not below `hash` (binary search). */
function lowerBound(sorted: readonly { hash: Buffer }[], hash: Buffer): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (Buffer.compare((sorted[mid] as { hash: Buffer }).hash, hash) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** In a chain sorted by hash: the index of the entry with this hash, or -1. */
export function matchingHash(sorted: readonly { hash: Buffer }[], hash: Buffer): number {
  const i = lowerBound(sorted, hash);
  return sorted[i]?.hash.equals(hash) ? i : -1;
}

/** In a chain sorted by hash: the index of the entry whose span covers `hash` (the last one below it, wrapping round); -1 when empty. */
export function coveringHash(sorted: readonly { hash: Buffer }[], hash: Buffer): number {
  if (sorted.length === 0) return -1;
  return (lowerBound(sorted, hash) + sorted.length - 1) % sorted.length;
}

/** One name of the chain. */
export interface ChainEntry {
  hash: Buffer;
  /** The name it stands for (a lookup key). */
  name: string;
  /** Type numbers at that name, ascending. */
  types: number[];
}

/** A zone's NSEC3 chain, sorted by hash. */
export class Nsec3Chain {
  private constructor(
    readonly zone: string,
    readonly entries: ChainEntry[],
  ) {}

  /** The chain of these names (lookup key to types); `previous`, the chain of the zone's version before, lends the hashes of the names they share. */
  static of(zone: string, names: ReadonlyMap<string, number[]>, previous?: Nsec3Chain): Nsec3Chain {
    const known = previous?.zone === zone ? new Map(previous.entries.map((e) => [e.name, e.hash])) : undefined;
    // Sorted on the hashes as latin1 strings: Buffer.compare's order, without a call into C++ per comparison.
    const keyed: { order: string; entry: ChainEntry }[] = [];
    for (const [name, types] of names) {
      const hash = known?.get(name) ?? nsec3Hash(name);
      keyed.push({ order: hash.toString('latin1'), entry: { hash, name, types: [...types].sort((a, b) => a - b) } });
    }
    keyed.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
    return new Nsec3Chain(zone, keyed.map((k) => k.entry));
  }

  /**
   * The chain of `previous` with the names of `changes` made anew: each with its types now, or left out
   * (null). Each is found, and put back, by a binary search on its hash. The entries are changed in place
   * (no copy of a chain as long as the zone, per write): `previous` belongs to a zone version no longer served.
   */
  static patched(previous: Nsec3Chain, changes: ReadonlyMap<string, number[] | null>): Nsec3Chain {
    const entries = previous.entries;
    const hashes = new Map([...changes.keys()].map((name) => [name, nsec3Hash(name)]));
    for (const hash of hashes.values()) {
      const i = matchingHash(entries, hash);
      if (i >= 0) entries.splice(i, 1);
    }
    for (const [name, types] of changes) {
      if (!types) continue;
      const hash = hashes.get(name) as Buffer;
      entries.splice(lowerBound(entries, hash), 0, { hash, name, types: [...types].sort((a, b) => a - b) });
    }
    return new Nsec3Chain(previous.zone, entries);
  }

  /** The index of the entry whose hash is the name's, or -1. */
  matching(name: string): number {
    return matchingHash(this.entries, nsec3Hash(name));
  }

  /** The index of the entry whose span covers the name's hash (the last one below it, wrapping round): proves the name absent. */
  covering(name: string): number {
    return coveringHash(this.entries, nsec3Hash(name));
  }

  /** The NSEC3 record of entry `i`: owner, and data as the registry's NSEC3 module takes it. */
  record(i: number): { owner: string; data: Nsec3Fields } {
    const e = this.entries[i] as ChainEntry;
    const next = this.entries[(i + 1) % this.entries.length] as ChainEntry;
    return {
      owner: `${base32hex(e.hash).toLowerCase()}.${this.zone}`,
      data: nsec3Data(NSEC3_PARAMS, next.hash, e.types.map(typeName)),
    };
  }
}

/**
 * The names a denial of `name` (that does not exist, its closest encloser `encloser`) speaks of: the
 * closest encloser, the next closer name (one label longer, toward `name`) and the wildcard at the encloser.
 */
export function denialNames(name: string, encloser: string): { encloser: string; nextCloser: string; wildcard: string } {
  const labels = splitName(name);
  const depth = encloser === '' ? 0 : splitName(encloser).length;
  const nextCloser = nameOfLabels(labels.slice(labels.length - depth - 1));
  return { encloser, nextCloser, wildcard: `*.${encloser}` };
}
