/**
 * The answer to a standard query: the zone it falls in (REFUSED outside our zones, SERVFAIL for one that
 * could not be loaded), NOTIMP for meta types we do not serve, else the zone's lookup (lookup.ts).
 */
import { CLASS_IN, META_TYPE, RCODE } from '../wire/message.js';
import type { AliasSource } from '../zone/alias.js';
import { resolve } from '../zone/lookup.js';
import type { Query } from '../wire/query.js';
import { EDE } from '../wire/edns-options.js';
import { emptyResult, errorResult, type Result } from '../zone/result.js';
import type { Draws } from '../zone/steer.js';
import type { Zone } from '../zone/zone.js';
import { steeringClient, type ClientAddress } from './steering-client.js';
import type { ZoneCache } from './zone-cache.js';

/** Extended DNS Errors (RFC 8914) of the answers made here: for the person debugging, what went wrong. */
const NOT_LOADED = { code: EDE.NOT_READY, text: 'the zone could not be loaded; retrying' };
const NOT_OURS = { code: EDE.NOT_AUTHORITATIVE, text: 'not a zone served here' };

/**
 * The answer to `q` and the zone it came from; ALIAS targets' addresses from `aliases`; `address`, the client's,
 * for steered answers, whose weighted picks take `draws`' numbers.
 */
export function answerQuery(zones: ZoneCache, q: Query, now: number, aliases?: AliasSource, address: ClientAddress = null, draws: Draws | null = null): { result: Result; zone: Zone | null } {
  if (q.qtype === META_TYPE.OPT) return { result: emptyResult(RCODE.FORMERR), zone: null };
  if (q.qtype === META_TYPE.MAILA || q.qtype === META_TYPE.MAILB) return { result: emptyResult(RCODE.NOTIMP), zone: null };
  const zone = q.qclass === CLASS_IN ? zones.find(q.key, now) : null;
  if (!zone && q.qclass === CLASS_IN && zones.unavailable(q.key)) return { result: errorResult(RCODE.SERVFAIL, NOT_LOADED), zone: null };
  return { result: zone ? resolve(zone, q, aliases, () => steeringClient(q, address), draws) : errorResult(RCODE.REFUSED, NOT_OURS), zone };
}
