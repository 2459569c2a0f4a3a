/**
 * ALIAS: a CNAME that may stand at the apex and beside other data. It is not served as itself: A and AAAA
 * queries at its name are answered with its target's addresses, resolved through the configured resolver and
 * owned by the queried name (dns/alias/), and zone transfers carry those addresses instead of it. Its type
 * number is PowerDNS's (65401, from the private-use range), so a zone file or a transfer between the two means
 * the same thing; interface A does not know it (the real Linode API never had it).
 */
import { absoluteName } from '../names.js';
import { oneHostType } from './common.js';
import type { RecordType } from './types.js';

const host = oneHostType('ALIAS', 'target', 'target host name', 'The host name whose A and AAAA records this name answers with');

export const ALIAS: RecordType = {
  ...host,
  type: 'ALIAS',
  code: 65401,
  description: "Answers A and AAAA queries with another host name's addresses, at the apex too",
  apexAllowed: true,
  addressAlias: true,
  v1Required: ['name', 'target'],
  // Not one of RFC 1035's types: its name is never compressed (RFC 3597 4).
  encode: (data, w) => w.name(String(data.target)),
  validate(rec, ctx, p) {
    host.validate(rec, ctx, p);
    // An alias of itself would answer with its own answers: nothing.
    const own = absoluteName(rec.name, ctx.zone);
    if (String(rec.data.target).toLowerCase() === own.toLowerCase()) p.add('target', `An ALIAS record cannot point at its own name (${own}).`);
  },
};
