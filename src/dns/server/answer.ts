/**
 * The answer to a standard query: the zone it falls in (REFUSED outside our zones, SERVFAIL for one that
 * could not be loaded), NOTIMP for meta types we do not serve, else the zone's lookup (lookup.ts).
 */
import { CLASS_IN, META_TYPE, RCODE } from '../wire/message.js';
import { resolve } from '../zone/lookup.js';
import type { Query } from '../wire/query.js';
import { emptyResult, type Result } from '../zone/result.js';
import type { Zone } from '../zone/zone.js';
import type { ZoneCache } from './zone-cache.js';

/** The answer to `q` and the zone it came from. */
export function answerQuery(zones: ZoneCache, q: Query, now: number): { result: Result; zone: Zone | null } {
  if (q.qtype === META_TYPE.OPT) return { result: emptyResult(RCODE.FORMERR), zone: null };
  if (q.qtype === META_TYPE.MAILA || q.qtype === META_TYPE.MAILB) return { result: emptyResult(RCODE.NOTIMP), zone: null };
  const zone = q.qclass === CLASS_IN ? zones.find(q.key, now) : null;
  if (!zone && q.qclass === CLASS_IN && zones.unavailable(q.key)) return { result: emptyResult(RCODE.SERVFAIL), zone: null };
  return { result: zone ? resolve(zone, q) : emptyResult(RCODE.REFUSED), zone };
}
