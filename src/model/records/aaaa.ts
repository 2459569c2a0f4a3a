import * as ip from '@leichtgewicht/ip-codec';
import { Type } from '@sinclair/typebox';
import { WireError } from '../labels.js';
import { canonicalIPv6, isIPv6Address } from '../names.js';
import { addressV3 } from './a.js';
import { nameField, ttlField, v4Columns } from './common.js';
import { PresentationError } from './presentation.js';
import type { RecordType } from './types.js';

/** The 16 octets of an IPv6 address. */
export function ipv6Bytes(address: string): Buffer {
  if (!isIPv6Address(address)) throw new WireError(`bad IPv6 address ${address}`);
  return Buffer.from(ip.v6.encode(address));
}

export const AAAA: RecordType = {
  type: 'AAAA',
  code: 28,
  description: 'IPv6 address',
  apexAllowed: true,
  address: true,
  v3: addressV3('AAAA', 6),
  v4: v4Columns(addressV3('AAAA', 6)),
  // PowerDNS takes an IPv6 address written any way, and shows it in its shortest form.
  pdns: { anyForm: true },
  v1Fields: {
    name: nameField,
    address: Type.String({ format: 'ipv6', description: 'IPv6 address; stored and shown in RFC 5952 canonical text (2001:DB8:0::1 becomes 2001:db8::1)' }),
    ttl: ttlField,
  },
  v1Required: ['address'],
  validate(rec, _ctx, p) {
    const address = typeof rec.data.address === 'string' ? rec.data.address.trim() : '';
    // Stored canonical, so the duplicate check and both interfaces see one spelling of each address.
    rec.data = { address: isIPv6Address(address) ? canonicalIPv6(address) : address };
    if (!isIPv6Address(address)) p.add('address', `The target '${address}' is not a valid IPv6 address.`);
  },
  encode: (data, w) => w.bytes(ipv6Bytes(String(data.address))),
  decode: (r) => ({ address: canonicalIPv6(ip.v6.decode(r.bytes(16))) }),
  present: (data) => String(data.address),
  parse(tokens) {
    const address = tokens.length === 1 ? tokens[0]?.text : undefined;
    if (!address || !isIPv6Address(address)) throw new PresentationError(`an IPv6 address is expected, not '${tokens.map((t) => t.text).join(' ')}'`);
    return { address: canonicalIPv6(address) };
  },
};
