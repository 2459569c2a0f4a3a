/**
 * Authoritative answers (RFC 1034 4.3.2, RFC 2308 negative answers, RFC 4592 wildcards): exact matches,
 * CNAME chains inside the zone, referrals at delegations, NODATA vs NXDOMAIN, additional addresses.
 */
import { RECORD_TYPES } from '../model/records/index.js';
import type { Soa } from '../model/zone.js';
import { keyOf, parentKey, splitName } from '../model/labels.js';
import { EDNS_UDP_SIZE, RCODE, TCP_MAX, TSIG_BADKEY, TYPE } from './message.js';
import type { Malformed, Query } from './query.js';
import { ResponseWriter } from './writer.js';
import { aliasTarget, setOf, type RRset, type Zone, type ZoneNode } from './zone.js';
import type { ZoneCache } from './zone-cache.js';

/** Types that answer "where is this host" in the additional section (RFC 1035 3.3: type A additional processing). */
const ADDRESS_TYPES = RECORD_TYPES.filter((t) => t.address).map((t) => t.code);
/** Longest CNAME chain followed inside a zone. */
const MAX_CHAIN = 16;
const CLASSIC_UDP_SIZE = 512;

interface Entry {
  set: RRset;
  /** Owner labels as written (the query's or the CNAME target's case); the record's own when absent. */
  owner?: readonly string[];
  ttl?: number;
  /** Glue of an in-domain name server in a referral: when it does not fit, TC is set (RFC 9471 3.1). */
  required?: boolean;
}

export interface Result {
  rcode: number;
  aa: boolean;
  answer: Entry[];
  authority: Entry[];
  additional: Entry[];
}

const result = (rcode: number, aa = false): Result => ({ rcode, aa, answer: [], authority: [], additional: [] });

/** The largest response the client can take over UDP. */
export function udpLimit(q: Query): number {
  if (!q.edns) return CLASSIC_UDP_SIZE;
  return Math.max(CLASSIC_UDP_SIZE, Math.min(q.edns.udpSize, EDNS_UDP_SIZE));
}

/** Whether the name `key` is `apex` or below it. */
const within = (key: string, apex: string): boolean => key === apex || key.endsWith('.' + apex);

function negative(zone: Zone, r: Result, rcode: number): Result {
  const soa = zone.soa.items[0] as unknown as Soa;
  r.rcode = rcode;
  // RFC 2308 section 5: negative answers are cached for min(SOA TTL, SOA MINIMUM).
  r.authority.push({ set: zone.soa, ttl: Math.min(zone.soa.ttl, (soa.minimum ?? 0) >>> 0) });
  return r;
}

/**
 * Addresses of in-zone hosts the given records point at, each host once. For a referral `cut` is the
 * delegated name: the glue of name servers at or below it comes first and is required, as a resolver
 * cannot reach them without it; sibling glue (elsewhere in our zone) is optional.
 */
function addAdditional(zone: Zone, r: Result, from: Entry[], cut?: string): void {
  const seen = new Set<string>();
  const optional: Entry[] = [];
  for (const e of from) {
    for (const target of e.set.additional ?? []) {
      if (!target || seen.has(target)) continue;
      seen.add(target);
      const node = zone.nodes.get(target);
      if (!node) continue;
      const required = cut !== undefined && within(target, cut);
      for (const t of ADDRESS_TYPES) {
        const set = setOf(node, t);
        if (set) (required ? r.additional : optional).push({ set, required });
      }
    }
  }
  r.additional.push(...optional);
}

/** Answers a QUERY for a name inside `zone`. */
export function resolve(zone: Zone, q: Query): Result {
  const r = result(RCODE.NOERROR, true);
  let labels: readonly string[] = q.labels;
  let key = q.key;
  const visited = new Set<string>();
  for (let step = 0; ; step++) {
    visited.add(key);
    // Walk from the apex down to the name: a delegation on the way ends authority there.
    const path: string[] = [];
    for (let k = key; k !== zone.key && k !== ''; k = parentKey(k)) path.push(k);
    let encloser = zone.key;
    // Whether the name exists (an empty non-terminal does, with no records), and its record sets.
    let exact = path.length === 0;
    let node: ZoneNode = exact ? (zone.nodes.get(zone.key) ?? null) : null;
    for (let i = path.length - 1; i >= 0; i--) {
      const k = path[i] as string;
      const here = zone.nodes.get(k);
      if (here === undefined) break;
      encloser = k;
      const ns = setOf(here, TYPE.NS);
      // DS belongs to the parent side of the cut, so a DS query at the cut itself is answered here.
      if (ns && !(i === 0 && q.qtype === TYPE.DS)) {
        // A referral; after a CNAME (RFC 1034 4.3.2 restarts with its target) it follows the alias, which is ours (AA).
        const ref = step > 0 ? r : result(RCODE.NOERROR, false);
        ref.authority.push({ set: ns });
        addAdditional(zone, ref, ref.authority, k);
        return ref;
      }
      if (i === 0) {
        exact = true;
        node = here;
      }
    }
    if (!exact) {
      // RFC 4592: a name that does not exist is synthesised from "*" at its closest encloser.
      const wild = zone.nodes.get('*.' + encloser);
      if (wild === undefined) return negative(zone, r, RCODE.NXDOMAIN);
      node = wild;
    }
    const cname = setOf(node, TYPE.CNAME);
    if (cname && q.qtype !== TYPE.CNAME && q.qtype !== TYPE.ANY) {
      r.answer.push({ set: cname, owner: labels });
      const target = aliasTarget(cname);
      const tkey = keyOf(target);
      if (visited.has(tkey) || step + 1 >= MAX_CHAIN || !within(tkey, zone.key)) return r;
      labels = splitName(target);
      key = tkey;
      continue;
    }
    const start = r.answer.length;
    if (q.qtype === TYPE.ANY) {
      for (let set = node; set; set = set.next) r.answer.push({ set, owner: labels });
    } else {
      const set = setOf(node, q.qtype);
      if (set) r.answer.push({ set, owner: labels });
    }
    if (r.answer.length === start) return negative(zone, r, RCODE.NOERROR);
    addAdditional(zone, r, r.answer);
    return r;
  }
}

/**
 * The full answer to a standard query, and the zone it came from: REFUSED outside our zones, NOTIMP for
 * meta types we do not serve.
 */
export function answerQuery(zones: ZoneCache, q: Query, now: number): { result: Result; zone: Zone | null } {
  if (q.qtype === TYPE.OPT) return { result: result(RCODE.FORMERR), zone: null };
  if (q.qtype === TYPE.MAILA || q.qtype === TYPE.MAILB) return { result: result(RCODE.NOTIMP), zone: null };
  const zone = q.qclass === 1 ? zones.find(q.key, now) : null;
  if (!zone && q.qclass === 1 && zones.unavailable(q.key)) return { result: result(RCODE.SERVFAIL), zone: null };
  return { result: zone ? resolve(zone, q) : result(RCODE.REFUSED), zone };
}

/** An answer with no records and this rcode. */
export const rcodeOnly = (rcode: number): Result => result(rcode);

/** An answer that does not fit in the largest DNS message: no transport can carry it. */
export class AnswerTooLarge extends Error {}

/**
 * Encodes a response within `limit` bytes: additional records that do not fit are left out (TC set when
 * one is a referral's required glue, RFC 9471 3.1), and when answer and authority do not fit either, an
 * empty response with TC asks the client to retry over TCP.
 * Throws AnswerTooLarge when they do not fit TCP_MAX, where TC would have nothing to send the client to.
 */
export function encodeResponse(q: Query | Malformed, r: Result, limit: number): Buffer {
  const w = new ResponseWriter();
  if (!('malformed' in q)) w.question(q.labels, q.qtype, q.qclass);
  const edns = q.edns;
  const room = limit - (edns ? 11 : 0);
  const afterQuestion = w.mark();
  let tc = false;
  const write = (section: 1 | 2 | 3, e: Entry) => w.rrset(section, e.owner ?? splitName(e.set.owner), e.set.type, e.ttl ?? e.set.ttl, e.set.items);
  for (const e of r.answer) write(1, e);
  for (const e of r.authority) write(2, e);
  if (w.length > room) {
    if (limit >= TCP_MAX) throw new AnswerTooLarge('the answer does not fit in one DNS message');
    w.rollback(afterQuestion);
    tc = true;
  } else {
    for (const e of r.additional) {
      const before = w.mark();
      write(3, e);
      if (w.length > room) {
        w.rollback(before);
        // Required glue comes first: what did not fit leaves a name server unreachable, so the client retries over TCP.
        tc = e.required === true;
        break;
      }
    }
  }
  if (edns) w.opt(EDNS_UDP_SIZE, r.rcode, edns.dnssecOk);
  // A signed message's answer carries TSIG, last. We hold no keys: it can only be the unsigned BADKEY.
  if (!('malformed' in q) && q.tsig) w.tsig(q.tsig, q.id, TSIG_BADKEY);
  return w.finish(q.id, q.flags, r.rcode, r.aa, tc);
}
