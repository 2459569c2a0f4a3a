/**
 * Where a name stands in a zone (RFC 1034 4.3.2 step 3): walking down from the apex one label at a time,
 * it reaches the name itself, or the closest encloser of a name that does not exist, or first a zone cut
 * (NS records below the apex), below which the zone is not authoritative and answers with a referral.
 */
import { parentKey } from '../../model/labels.js';
import { DS, NS } from '../../model/records/index.js';
import { addAdditional } from './additional.js';
import type { Result } from './result.js';
import { setOf, type RRset, type Zone, type ZoneNode } from './zone.js';

export type Place =
  /** The name exists; `node` is its RRsets (null at an empty non-terminal, which exists with none). */
  | { found: 'name'; node: ZoneNode }
  /** The name does not exist; `encloser` is the lookup key of its closest encloser. */
  | { found: 'encloser'; encloser: string }
  /** A zone cut at `cut`, the name or one of its ancestors, with the delegation's NS set. */
  | { found: 'cut'; cut: string; ns: RRset };

/** Where the name with lookup key `key` (inside `zone`) stands, for a query of type `qtype`. */
export function closestEncloser(zone: Zone, key: string, qtype: number): Place {
  const path: string[] = [];
  for (let k = key; k !== zone.key && k !== ''; k = parentKey(k)) path.push(k);
  let encloser = zone.key;
  for (let i = path.length - 1; i >= 0; i--) {
    const k = path[i] as string;
    const here = zone.nodes.get(k);
    if (here === undefined) return { found: 'encloser', encloser };
    encloser = k;
    const ns = setOf(here, NS.code);
    // DS belongs to the parent side of the cut, so a DS query at the cut itself is answered here.
    if (ns && !(i === 0 && qtype === DS.code)) return { found: 'cut', cut: k, ns };
    if (i === 0) return { found: 'name', node: here };
  }
  // The name is the apex.
  return { found: 'name', node: zone.nodes.get(zone.key) ?? null };
}

/**
 * A referral to the delegation at `cut`: its NS set in authority, then glue (required for in-domain servers),
 * steered glue as `steered` (the referral's steerer, steer.ts) gives it to the client.
 */
export function referral(zone: Zone, r: Result, cut: string, ns: RRset, steered: (set: RRset | undefined) => RRset | undefined): Result {
  r.authority.push({ set: ns });
  addAdditional(zone, r, r.authority, steered, cut);
  return r;
}
