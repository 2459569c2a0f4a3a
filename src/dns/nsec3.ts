/**
 * NSEC3 (RFC 5155) with RFC 9276's parameters — SHA-1, no extra iterations, no salt, no opt-out: the hashed
 * chain of a signed zone's names, and the records that prove a name or a type is not there (closest
 * encloser, next closer name, wildcard: RFC 5155 7.2).
 */
import { createHash } from 'node:crypto';
import { nameOfLabels, splitName } from '../model/labels.js';
import { canonicalName, NSEC3_PARAMS } from '../model/dnssec.js';
import { base32hex } from '../model/records/common.js';
import type { RecordFields } from '../model/records/index.js';
import { typeName } from './message.js';

/** The NSEC3 hash of a name (presentation form, or its lookup key): SHA-1 of its canonical wire form, once. */
export const nsec3Hash = (name: string): Buffer => createHash('sha1').update(canonicalName(name)).digest();

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
  readonly entries: ChainEntry[];

  constructor(
    readonly zone: string,
    names: ReadonlyMap<string, number[]>,
  ) {
    this.entries = [...names].map(([name, types]) => ({ hash: nsec3Hash(name), name, types: [...types].sort((a, b) => a - b) })).sort((a, b) => Buffer.compare(a.hash, b.hash));
  }

  /** The entry of the first hash not below `hash` (binary search). */
  private lowerBound(hash: Buffer): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (Buffer.compare((this.entries[mid] as ChainEntry).hash, hash) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The index of the entry whose hash is the name's, or -1. */
  matching(name: string): number {
    const hash = nsec3Hash(name);
    const i = this.lowerBound(hash);
    return this.entries[i]?.hash.equals(hash) ? i : -1;
  }

  /** The index of the entry whose span covers the name's hash (the last one below it, wrapping round): proves the name absent. */
  covering(name: string): number {
    const i = this.lowerBound(nsec3Hash(name));
    return (i + this.entries.length - 1) % this.entries.length;
  }

  /** The NSEC3 record of entry `i`: owner, and data as the registry's NSEC3 module takes it. */
  record(i: number): { owner: string; data: RecordFields } {
    const e = this.entries[i] as ChainEntry;
    const next = this.entries[(i + 1) % this.entries.length] as ChainEntry;
    return {
      owner: `${base32hex(e.hash).toLowerCase()}.${this.zone}`,
      data: { ...NSEC3_PARAMS, next_hashed_owner: base32hex(next.hash), types: e.types.map(typeName) },
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
