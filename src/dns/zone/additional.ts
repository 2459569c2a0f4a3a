/**
 * Additional section processing (RFC 1035 3.3; glue, RFC 9471): the addresses of in-zone hosts that the
 * records of an answer or referral name (MX, SRV and NS targets).
 */
import { isWithin } from '../../model/labels.js';
import { RECORD_TYPES } from '../../model/records/index.js';
import type { Entry, Result } from './result.js';
import { setOf, type RRset, type Zone } from './zone.js';

/** Types that answer "where is this host" in the additional section (RFC 1035 3.3: type A additional processing). */
const ADDRESS_TYPES = RECORD_TYPES.filter((t) => t.address).map((t) => t.code);

/**
 * Adds the addresses of in-zone hosts the given records point at, each host once. For a referral `cut` is
 * the delegated name: the glue of name servers at or below it comes first and is required, as a resolver
 * cannot reach them without it; sibling glue (elsewhere in our zone) is optional. A steered host's addresses
 * are the variant `steered` (the answer's steerer, steer.ts) gives the client, as it would answer them.
 */
export function addAdditional(zone: Zone, r: Result, from: Entry[], steered: (set: RRset | undefined) => RRset | undefined, cut?: string): void {
  const seen = new Set<string>();
  const optional: Entry[] = [];
  for (const e of from) {
    for (const target of e.set.additional ?? []) {
      if (!target || seen.has(target)) continue;
      seen.add(target);
      const node = zone.nodes.get(target);
      if (!node) continue;
      const required = cut !== undefined && isWithin(target, cut);
      for (const t of ADDRESS_TYPES) {
        const found = setOf(node, t);
        const set = steered(found);
        if (set) (required ? r.additional : optional).push({ set, required });
      }
    }
  }
  r.additional.push(...optional);
}
