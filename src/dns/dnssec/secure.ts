/**
 * A signed zone's answers to queries with the DO bit (RFC 4035 3.1): every authoritative RRset of the
 * answer and authority sections with its RRSIG records, and what the lookup noted it must prove (result.ts
 * `Denial`) as NSEC3 records (RFC 5155 7.2) or NSEC records (RFC 4035 3.1.3) with theirs; a referral
 * carries the delegation's DS records, or the proof it has none. Glue and additional addresses go unsigned
 * (RFC 4035 3.1.1 asks for their signatures only as room allows).
 *
 * What the records are comes from the zone version's signed view (`SignedView`): our own zones signed
 * online (online.ts), or a zone mirror's copy as its master signed it (presigned.ts).
 */
import { keyOf, parentKey } from '../../model/labels.js';
import { DS, NS, RRSIG } from '../../model/records/index.js';
import { denialNames } from './nsec3.js';
import type { Denial, Entry, Result } from '../zone/result.js';
import { setOf, type RRset, type Zone } from '../zone/zone.js';

/** The records that prove names and types absent in one zone version. */
export interface DenialChain {
  /** Hashed names (NSEC3, RFC 5155), or names in canonical order (NSEC, RFC 4034 4). */
  readonly kind: 'nsec3' | 'nsec';
  /** The NSEC3 or NSEC RRset that stands for the name (a lookup key) itself, if the chain has one. */
  matching(name: string): RRset | undefined;
  /** The one whose span covers the name (a lookup key), proving it absent, if the chain has any. */
  covering(name: string): RRset | undefined;
}

/** The signed view of one zone version: what answers to queries with DO are given besides the records. */
export interface SignedView {
  /**
   * The RRSIG records over `set`, an RRset of the zone version (a wildcard's own for a synthesised answer),
   * and when they are due to be asked for anew (epoch seconds; Infinity: never); undefined when it has none.
   */
  signatures(set: RRset, now: number): { set: RRset; refreshAt: number } | undefined;
  /** The chain that proves absence, or null when the zone has none. */
  readonly chain: DenialChain | null;
}

/** Adds signatures and proofs to `r`, an answer of `zone` (signed) to a query with DO; returns when its signatures are due anew. */
export function secure(zone: Zone, view: SignedView, r: Result, now: number): number {
  let refreshAt = Infinity;
  const sigsOf = (set: RRset): RRset | undefined => {
    const made = view.signatures(set, now);
    if (!made || made.set.items.length === 0) return undefined;
    refreshAt = Math.min(refreshAt, made.refreshAt);
    return made.set;
  };
  const withSigs = (entries: Entry[], skip: (e: Entry) => boolean): Entry[] => {
    // An ANY answer of a presigned zone holds the RRSIG records at a name already: they are not added twice.
    const rrsigsAt = new Set(entries.filter((e) => e.set.type === RRSIG.code).map((e) => keyOf(e.set.owner)));
    const out: Entry[] = [];
    for (const e of entries) {
      out.push(e);
      if (e.set.type === RRSIG.code || skip(e) || (rrsigsAt.size > 0 && rrsigsAt.has(keyOf(e.set.owner)))) continue;
      const sigs = sigsOf(e.set);
      if (sigs) out.push({ set: sigs, ...(e.owner ? { owner: e.owner } : {}), ...(e.ttl !== undefined ? { ttl: e.ttl } : {}) });
    }
    return out;
  };
  r.answer = withSigs(r.answer, () => false);
  // A delegation's NS set is the child's: not signed by the parent (RFC 4035 2.2).
  r.authority = withSigs(r.authority, (e) => e.set.type === NS.code && e.set !== setOf(zone.nodes.get(zone.key) ?? null, NS.code));
  const sent = new Set<RRset>();
  const send = (set: RRset | undefined) => {
    if (!set || sent.has(set)) return;
    sent.add(set);
    r.authority.push({ set });
    const sigs = sigsOf(set);
    if (sigs) r.authority.push({ set: sigs });
  };
  for (const d of r.denial ?? []) {
    if (d.kind === 'referral') {
      const ds = setOf(zone.nodes.get(d.cut) ?? null, DS.code);
      if (ds) {
        send(ds);
        continue;
      }
    }
    if (!view.chain) continue;
    for (const set of view.chain.kind === 'nsec3' ? nsec3Proof(zone, view.chain, d) : nsecProof(view.chain, d)) send(set);
  }
  return refreshAt;
}

/**
 * The NSEC3 records that prove `d` (RFC 5155 7.2). Where the chain has no record for a name — an opt-out
 * chain leaves out insecure delegations and the empty non-terminals above only them — the proof is the
 * closest provable encloser's: the nearest ancestor the chain has, and the record covering the next closer
 * name below it, whose opt-out flag tells the validator the answer is insecure (7.2.4, 7.2.7).
 */
function nsec3Proof(zone: Zone, chain: DenialChain, d: Denial): (RRset | undefined)[] {
  /** The closest encloser proof of `name` from `encloser` (an ancestor that exists) up. */
  const enclosed = (name: string, encloser: string): (RRset | undefined)[] => {
    let at = encloser;
    let match = chain.matching(at);
    while (!match && at !== zone.key && at !== '') {
      at = parentKey(at);
      match = chain.matching(at);
    }
    return [match, chain.covering(denialNames(name, at).nextCloser)];
  };
  /** The record of a name that exists, or the closest provable encloser proof of it. */
  const existing = (name: string): (RRset | undefined)[] => {
    const match = chain.matching(name);
    return match || name === zone.key ? [match] : enclosed(name, parentKey(name));
  };
  switch (d.kind) {
    case 'nodata':
      return existing(d.name);
    case 'nxdomain':
      return [...enclosed(d.name, d.encloser), chain.covering(denialNames(d.name, d.encloser).wildcard)];
    case 'wildcard':
      return [chain.covering(denialNames(d.name, d.encloser).nextCloser)];
    case 'wildcard-nodata':
      return [...enclosed(d.name, d.encloser), chain.matching(denialNames(d.name, d.encloser).wildcard)];
    case 'referral':
      return existing(d.cut);
  }
}

/**
 * The NSEC records that prove `d` (RFC 4035 3.1.3): the name's own record for NODATA (or, at an empty
 * non-terminal, which has none, the one covering it), the one covering a name that does not exist, and for
 * NXDOMAIN the one covering the wildcard that would have matched; at a delegation without DS its record.
 */
function nsecProof(chain: DenialChain, d: Denial): (RRset | undefined)[] {
  switch (d.kind) {
    case 'nodata':
      return [chain.matching(d.name) ?? chain.covering(d.name)];
    case 'nxdomain':
      return [chain.covering(d.name), chain.covering(denialNames(d.name, d.encloser).wildcard)];
    case 'wildcard':
      return [chain.covering(d.name)];
    case 'wildcard-nodata':
      return [chain.covering(d.name), chain.matching(denialNames(d.name, d.encloser).wildcard)];
    case 'referral':
      return [chain.matching(d.cut) ?? chain.covering(d.cut)];
  }
}
