/**
 * Negative answers (RFC 2308): NXDOMAIN for a name that does not exist, NODATA (NOERROR and no record of
 * the type asked for) for one that does; both with the zone's SOA in authority, at the TTL the answer may
 * be cached for: min(SOA TTL, SOA MINIMUM) (section 5). After a CNAME chain, they speak of its last name.
 */
import type { Soa } from '../../model/zone.js';
import { RCODE } from '../wire/message.js';
import type { Result } from './result.js';
import type { Zone } from './zone.js';

function negative(zone: Zone, r: Result, rcode: number): Result {
  const soa = zone.soa.items[0] as unknown as Soa;
  r.rcode = rcode;
  r.authority.push({ set: zone.soa, ttl: Math.min(zone.soa.ttl, (soa.minimum ?? 0) >>> 0) });
  return r;
}

export const nxdomain = (zone: Zone, r: Result): Result => negative(zone, r, RCODE.NXDOMAIN);

export const nodata = (zone: Zone, r: Result): Result => negative(zone, r, RCODE.NOERROR);
