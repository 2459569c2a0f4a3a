/**
 * A zone mirror's copy of a signed zone, served as its master signed it: the signed view (secure.ts
 * `SignedView`) of such a zone version takes everything from the master's own records and signs nothing.
 * The RRSIG records at a name cover several types: an RRset gets those whose type covered is its type (a
 * wildcard's RRset, answering for a name it synthesises, those at the wildcard). Absence is proven with the
 * master's chain: NSEC3 (RFC 5155), its names hashed with the parameters of the apex's NSEC3PARAM record,
 * or NSEC (RFC 4034 4), its names in canonical order (RFC 4034 6.1). The chain is read from the zone when
 * a query first needs it, once per zone version.
 *
 * NSEC3 records are real names of the zone (hash.apex), so queries for them find them; they stand beside
 * the zone's other names and hide none of them.
 */
import { keyOf, parentKey, splitName } from '../../model/labels.js';
import { base32hexOctets } from '../../model/records/common.js';
import { decodeRdata, NSEC, NSEC3, NSEC3PARAM, recordTypeByCode, RRSIG, type RecordFields, type RecordType } from '../../model/records/index.js';
import { coveringHash, matchingHash, nsec3Hash } from './nsec3.js';
import type { DenialChain, SignedView } from './secure.js';
import type { Rdata } from '../wire/writer.js';
import { setOf, type RRset, type Zone } from '../zone/zone.js';

/** RFC 5155's one hash algorithm, SHA-1. */
const SHA1 = 1;

/** The fields of one served record (the writer keeps DNSSEC's types as wire rdata). */
function fieldsOf(type: number, item: Rdata): RecordFields | null {
  if (typeof item !== 'string') return item;
  const wire = Buffer.from(item, 'latin1');
  try {
    return decodeRdata(recordTypeByCode(type) as RecordType, wire, 0, wire.length);
  } catch {
    return null;
  }
}

/** The type an RRSIG record covers: the first two octets of its rdata (RFC 4034 3.1). */
const typeCovered = (item: Rdata): number => (typeof item === 'string' ? (item.charCodeAt(0) << 8) | item.charCodeAt(1) : -1);

/** The master's NSEC3 chain: its records by the hash their owner names stand for. */
class HashedChain implements DenialChain {
  readonly kind = 'nsec3' as const;

  constructor(
    private readonly entries: readonly { hash: Buffer; set: RRset }[],
    private readonly iterations: number,
    private readonly salt: Buffer,
  ) {}

  matching(name: string): RRset | undefined {
    return this.entries[matchingHash(this.entries, nsec3Hash(name, this.iterations, this.salt))]?.set;
  }

  covering(name: string): RRset | undefined {
    return this.entries[coveringHash(this.entries, nsec3Hash(name, this.iterations, this.salt))]?.set;
  }
}

/** RFC 4034 6.1: two names as their labels from the root down (lower case), label by label as octets; a name before its descendants. */
function compareCanonical(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    // Labels are latin1 strings, one code unit an octet: string order is octet order.
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** A lookup key's labels from the root down. */
const fromRoot = (key: string): string[] => splitName(key).reverse();

/** The master's NSEC chain: its records in canonical order of their owners. */
class OrderedChain implements DenialChain {
  readonly kind = 'nsec' as const;

  constructor(
    private readonly zone: Zone,
    private readonly entries: readonly { labels: string[]; set: RRset }[],
  ) {}

  matching(name: string): RRset | undefined {
    return setOf(this.zone.nodes.get(name) ?? null, NSEC.code);
  }

  /** The record of the last owner before the name (wrapping round to the last of all). */
  covering(name: string): RRset | undefined {
    const labels = fromRoot(name);
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareCanonical((this.entries[mid] as { labels: string[] }).labels, labels) < 0) lo = mid + 1;
      else hi = mid;
    }
    return this.entries[(lo + this.entries.length - 1) % this.entries.length]?.set;
  }
}

/** The NSEC3 chain made with the parameters of the apex's NSEC3PARAM record, or null when there is none the server can use. */
function hashedChain(zone: Zone, apex: RRset | null): HashedChain | null {
  const param = setOf(apex, NSEC3PARAM.code);
  // RFC 5155 4.1.2: a record with flags other than 0 is not for servers to use.
  const params = param?.items.map((i) => fieldsOf(NSEC3PARAM.code, i)).find((p) => p && p.hash_algorithm === SHA1 && p.flags === 0);
  if (!params) return null;
  const iterations = Number(params.iterations);
  const salt = String(params.salt).toUpperCase();
  const entries: { hash: Buffer; set: RRset }[] = [];
  for (const [key, node] of zone.nodes) {
    const set = setOf(node, NSEC3.code);
    if (!set || parentKey(key) !== zone.key) continue;
    const hash = base32hexOctets(splitName(key)[0] ?? '');
    if (!hash || hash.length !== 20) continue;
    // The records of this chain's parameters only (another chain may be on its way in or out).
    const mine = set.items.filter((i) => {
      const f = fieldsOf(NSEC3.code, i);
      return f !== null && f.hash_algorithm === SHA1 && Number(f.iterations) === iterations && String(f.salt).toUpperCase() === salt;
    });
    if (mine.length === 0) continue;
    entries.push({ hash, set: mine.length === set.items.length ? set : { ...set, items: mine, next: null } });
  }
  if (entries.length === 0) return null;
  entries.sort((a, b) => Buffer.compare(a.hash, b.hash));
  return new HashedChain(entries, iterations, Buffer.from(salt, 'hex'));
}

/** The NSEC chain, or null when the apex has no NSEC record. */
function orderedChain(zone: Zone, apex: RRset | null): OrderedChain | null {
  if (!setOf(apex, NSEC.code)) return null;
  const entries: { labels: string[]; set: RRset }[] = [];
  for (const [key, node] of zone.nodes) {
    const set = setOf(node, NSEC.code);
    if (set) entries.push({ labels: fromRoot(key), set });
  }
  entries.sort((a, b) => compareCanonical(a.labels, b.labels));
  return new OrderedChain(zone, entries);
}

/** The signed view of a zone version as its master signed it. */
class PresignedView implements SignedView {
  private denial: DenialChain | null | undefined;
  /** The RRSIG records over each RRset asked for (null: none). */
  private readonly rrsigs = new WeakMap<RRset, RRset | null>();

  constructor(private readonly zone: Zone) {}

  signatures(set: RRset): { set: RRset; refreshAt: number } | undefined {
    let sigs = this.rrsigs.get(set);
    if (sigs === undefined) {
      const all = setOf(this.zone.nodes.get(keyOf(set.owner)) ?? null, RRSIG.code);
      const items = all?.items.filter((i) => typeCovered(i) === set.type) ?? [];
      // At the covered set's TTL, as the master serves it (RFC 4034 3).
      sigs = items.length > 0 ? { type: RRSIG.code, ttl: set.ttl, owner: set.owner, items, additional: null, next: null } : null;
      this.rrsigs.set(set, sigs);
    }
    return sigs ? { set: sigs, refreshAt: Infinity } : undefined;
  }

  /** NSEC3 when the apex names its parameters, else NSEC when the apex has a record, else none. */
  get chain(): DenialChain | null {
    if (this.denial === undefined) {
      const apex = this.zone.nodes.get(this.zone.key) ?? null;
      this.denial = hashedChain(this.zone, apex) ?? orderedChain(this.zone, apex);
    }
    return this.denial;
  }
}

/** The signed view of a zone version that holds its master's signatures (RRSIG at the apex), else undefined. */
export function presigned(zone: Zone): SignedView | undefined {
  return setOf(zone.nodes.get(zone.key) ?? null, RRSIG.code) ? new PresignedView(zone) : undefined;
}
