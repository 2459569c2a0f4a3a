import * as ip from '@leichtgewicht/ip-codec';
import { Type } from '@sinclair/typebox';
import { WireError } from '../labels.js';
import { isIPv4Address, isIPv6Address } from '../names.js';
import { fromColumns, nameField, ttlField, v3Columns, v4Columns } from './common.js';
import { PresentationError } from './presentation.js';
import type { RecordType, V3Mapping } from './types.js';

export const REMOTE_ADDR = '[remote_addr]';

/** Substitutes interface A's `[remote_addr]` token with the caller's address of the wanted family. */
export function substituteRemoteAddr(target: string, remoteAddr: string | undefined, family: 4 | 6): string | null {
  if (target.trim().toLowerCase() !== REMOTE_ADDR) return target;
  const addr = (remoteAddr ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  const ok = family === 4 ? isIPv4Address(addr) : isIPv6Address(addr);
  return ok ? addr : null;
}

/** Interface A's mapping of an address type: Target is the address, or `[remote_addr]`. */
export function addressV3(type: 'A' | 'AAAA', family: 4 | 6): V3Mapping {
  return {
    fromV3(cols, ctx, p) {
      const target = substituteRemoteAddr(cols.target, ctx.remoteAddr, family);
      if (target === null) p.add('address', `[remote_addr] cannot be used for an ${type} record: the request did not come from an IPv${family} address.`);
      return fromColumns(type, cols, { address: target ?? cols.target });
    },
    toV3: (rec) => v3Columns(rec, { target: String(rec.data.address) }),
  };
}

/** Where an address is encoded before it is written: zones hold a million of them, one Buffer each would cost. */
const OCTETS = Buffer.alloc(4);

export const A: RecordType = {
  type: 'A',
  code: 1,
  description: 'IPv4 address',
  apexAllowed: true,
  address: true,
  v3: addressV3('A', 4),
  v4: v4Columns(addressV3('A', 4)),
  v1Fields: {
    name: nameField,
    address: Type.String({ format: 'ipv4', description: 'IPv4 address' }),
    ttl: ttlField,
  },
  v1Required: ['address'],
  validate(rec, _ctx, p) {
    // isIPv4Address takes only the canonical dotted quad (no leading zeros or short forms): nothing to rewrite.
    const address = typeof rec.data.address === 'string' ? rec.data.address.trim() : '';
    rec.data = { address };
    if (!isIPv4Address(address)) p.add('address', `The target '${address}' is not a valid IPv4 address.`);
  },
  encode(data, w) {
    const address = String(data.address);
    if (!isIPv4Address(address)) throw new WireError(`bad IPv4 address ${address}`);
    w.bytes(ip.v4.encode(address, OCTETS) as Buffer);
  },
  decode: (r) => ({ address: ip.v4.decode(r.bytes(4)) }),
  present: (data) => String(data.address),
  parse(tokens) {
    const address = tokens.length === 1 ? tokens[0]?.text : undefined;
    if (!address || !isIPv4Address(address)) throw new PresentationError(`an IPv4 address is expected, not '${tokens.map((t) => t.text).join(' ')}'`);
    return { address };
  },
};
