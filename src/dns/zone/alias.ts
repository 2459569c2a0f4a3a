/**
 * A and AAAA queries at a name holding an ALIAS (and no addresses of its own): answered with the target's
 * addresses from the ALIAS cache (dns/alias/cache.ts), owned by the name and at the smaller of the two TTLs.
 * While the target has never been resolved the answer waits (Result.wait); when it has no addresses to
 * give, SERVFAIL with an Extended DNS Error saying why.
 */
import { ADDRESS_ALIAS_TYPE, ADDRESS_TYPES, decodeRdata, type RecordType } from '../../model/records/index.js';
import type { Addresses } from '../alias/cache.js';
import { EDE } from '../wire/edns-options.js';
import { RCODE } from '../wire/message.js';
import type { Rdata } from '../wire/writer.js';
import type { Result } from './result.js';
import { setOf, type RRset, type ZoneNode } from './zone.js';

/** Where a lookup finds ALIAS targets' addresses: the ALIAS cache. */
export interface AliasSource {
  addresses(target: string, type: RecordType): Addresses;
}

const STALE = { code: EDE.STALE_ANSWER, text: 'the ALIAS target could not be resolved again: its last addresses' };

/**
 * The RRset answering `qtype` at `node` through its ALIAS, or undefined when there is none (not an address
 * type, no ALIAS, no source). When the answer cannot be given, `r` says so instead: SERVFAIL, or what to wait for.
 */
export function viaAlias(node: ZoneNode, qtype: number, r: Result, aliases: AliasSource | undefined, choose: (set: RRset | undefined) => RRset | undefined = (s) => s): RRset | undefined {
  const type = aliases && ADDRESS_TYPES.find((t) => t.code === qtype);
  // Several steered ALIAS records: the one steering chooses for this client (steer.ts), as for a CNAME.
  const alias = type && choose(setOf(node, ADDRESS_ALIAS_TYPE.code));
  if (!type || !alias || !aliases) return undefined;
  const got = aliases.addresses(targetOf(alias), type);
  if (got.kind === 'waiting') {
    r.wait = got.done;
    return undefined;
  }
  if (got.kind === 'failed') {
    Object.assign(r, { rcode: RCODE.SERVFAIL, aa: false, answer: [], authority: [], additional: [], ede: got.ede });
    delete r.denial;
    return undefined;
  }
  r.until = Math.min(r.until ?? Infinity, got.until);
  if (got.stale) r.ede = STALE;
  // A target without addresses of the type: NODATA, as at any name without them.
  return got.items.length === 0 ? undefined : addressSet(alias, type, got.items, Math.min(alias.ttl, got.ttl));
}

/** Whether the lookup must stop at what viaAlias left in `r`: an error, or a wait. */
export const aliasStopped = (r: Result): boolean => r.wait !== undefined || r.rcode === RCODE.SERVFAIL;

/** The target of an ALIAS set (its one record), decoded once per set. */
function targetOf(alias: RRset): string {
  let target = targets.get(alias);
  if (target === undefined) {
    const item = alias.items[0] as Rdata;
    // Its name is never compressed, so the writer keeps it encoded (wire/writer.ts encodeRdata).
    const wire = Buffer.from(typeof item === 'string' ? item : '', 'latin1');
    target = String(decodeRdata(ADDRESS_ALIAS_TYPE, wire, 0, wire.length).target);
    targets.set(alias, target);
  }
  return target;
}
const targets = new WeakMap<RRset, string>();

/**
 * The address RRset at the ALIAS's name: the same object while the addresses and TTL stay the same, so its
 * signatures (dnssec/online.ts, by RRset) are made once.
 */
function addressSet(alias: RRset, type: RecordType, items: readonly Rdata[], ttl: number): RRset {
  let byAlias = sets.get(items);
  if (!byAlias) sets.set(items, (byAlias = new WeakMap()));
  const made = byAlias.get(alias);
  if (made && made.ttl === ttl) return made;
  const set: RRset = { type: type.code, ttl, owner: alias.owner, items: items as Rdata[], additional: null, next: null };
  byAlias.set(alias, set);
  return set;
}
const sets = new WeakMap<readonly Rdata[], WeakMap<RRset, RRset>>();
