/**
 * Negative answers (RFC 2308): NXDOMAIN for a name that does not exist, NODATA (NOERROR and no record of
 * the type asked for) for one that does; both with the zone's SOA in authority, at the TTL the answer may
 * be cached for: min(SOA TTL, SOA MINIMUM) (section 5). After a CNAME chain, they speak of its last name.
 */
import { negativeTtl, soaData } from '../../model/records/index.js';
import { RCODE } from '../wire/message.js';
import type { Result } from './result.js';
import type { Zone } from './zone.js';

/** The TTL of the zone's negative answers and of the records that prove them (NSEC3, RFC 9077): min(SOA TTL, MINIMUM). */
export const zoneNegativeTtl = (zone: Zone): number => negativeTtl(zone.soa.ttl, soaData({ data: zone.soa.items[0] }));

function negative(zone: Zone, r: Result, rcode: number): Result {
  r.rcode = rcode;
  r.authority.push({ set: zone.soa, ttl: zoneNegativeTtl(zone) });
  return r;
}

export const nxdomain = (zone: Zone, r: Result): Result => negative(zone, r, RCODE.NXDOMAIN);

export const nodata = (zone: Zone, r: Result): Result => negative(zone, r, RCODE.NOERROR);
