/**
 * Authoritative lookup in one zone (RFC 1034 4.3.2): exact matches, CNAME chains inside the zone,
 * referrals at zone cuts (closest.ts), wildcards (wildcard.ts), negative answers (negative.ts), and the
 * addresses of named hosts (additional.ts).
 */
import { isWithin, keyOf, splitName } from '../../model/labels.js';
import { CNAME } from '../../model/records/index.js';
import { addAdditional } from './additional.js';
import { aliasStopped, viaAlias, type AliasSource } from './alias.js';
import { closestEncloser, referral } from './closest.js';
import { META_TYPE, RCODE } from '../wire/message.js';
import { nodata, nxdomain } from './negative.js';
import type { Query } from '../wire/query.js';
import { emptyResult, prove, type Result } from './result.js';
import { steerer, type Draws, type SteeringClient } from './steer.js';
import { wildcardAt } from './wildcard.js';
import { aliasTarget, setOf, type Zone, type ZoneNode } from './zone.js';

/** Longest CNAME chain followed inside a zone. */
const MAX_CHAIN = 16;

/**
 * Answers a QUERY for a name inside `zone`; A and AAAA at an ALIAS from `aliases`; `client`, for steered sets
 * (steer.ts), is asked for only when one is met.
 */
export function resolve(zone: Zone, q: Query, aliases?: AliasSource, client: () => SteeringClient | null = () => null, draws: Draws | null = null): Result {
  const r = emptyResult(RCODE.NOERROR, true);
  const steered = steerer(r, client, draws);
  let labels: readonly string[] = q.labels;
  let key = q.key;
  const visited = new Set<string>();
  for (let step = 0; ; step++) {
    visited.add(key);
    const place = closestEncloser(zone, key, q.qtype);
    // After a CNAME (RFC 1034 4.3.2 restarts with its target) the referral follows the alias, which is ours (AA).
    if (place.found === 'cut') {
      // A referral met first answers without the AA bit: a result of its own, whose steerer notes its glue's choices.
      const out = step > 0 ? r : emptyResult(RCODE.NOERROR);
      referral(zone, out, place.cut, place.ns, out === r ? steered : steerer(out, client, draws));
      prove(out, { kind: 'referral', cut: place.cut });
      return out;
    }
    let node: ZoneNode;
    // The closest encloser of a name answered from a wildcard.
    let wildcard: string | null = null;
    if (place.found === 'name') node = place.node;
    else {
      const wild = wildcardAt(zone, place.encloser);
      if (wild === undefined) {
        prove(r, { kind: 'nxdomain', name: key, encloser: place.encloser });
        return nxdomain(zone, r);
      }
      node = wild;
      wildcard = place.encloser;
    }
    const cname = steered(setOf(node, CNAME.code));
    if (cname && q.qtype !== CNAME.code && q.qtype !== META_TYPE.ANY) {
      r.answer.push({ set: cname, owner: labels });
      if (wildcard !== null) prove(r, { kind: 'wildcard', name: key, encloser: wildcard });
      const target = aliasTarget(cname);
      const tkey = keyOf(target);
      if (visited.has(tkey) || step + 1 >= MAX_CHAIN || !isWithin(tkey, zone.key)) return r;
      labels = splitName(target);
      key = tkey;
      continue;
    }
    const start = r.answer.length;
    if (q.qtype === META_TYPE.ANY) {
      for (let set = node; set; set = set.next) {
        const served = steered(set);
        if (served) r.answer.push({ set: served, owner: labels });
      }
    } else {
      const set = steered(setOf(node, q.qtype)) ?? viaAlias(node, q.qtype, r, aliases, steered);
      if (set) r.answer.push({ set, owner: labels });
    }
    if (r.answer.length === start) {
      if (aliasStopped(r)) return r;
      prove(r, wildcard === null ? { kind: 'nodata', name: key } : { kind: 'wildcard-nodata', name: key, encloser: wildcard });
      return nodata(zone, r);
    }
    if (wildcard !== null) prove(r, { kind: 'wildcard', name: key, encloser: wildcard });
    addAdditional(zone, r, r.answer, steered);
    return r;
  }
}
