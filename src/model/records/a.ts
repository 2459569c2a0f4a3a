import { Type } from '@sinclair/typebox';
import { isIPv4Address, isIPv6Address } from '../names.js';
import { commonFromV1, nameField, ttlField } from './common.js';
import type { RecordType } from './types.js';

export const REMOTE_ADDR = '[remote_addr]';

/** Substitutes interface A's `[remote_addr]` token with the caller's address of the wanted family. */
export function substituteRemoteAddr(target: string, remoteAddr: string | undefined, family: 4 | 6): string | null {
  if (target.trim().toLowerCase() !== REMOTE_ADDR) return target;
  const addr = (remoteAddr ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  const ok = family === 4 ? isIPv4Address(addr) : isIPv6Address(addr);
  return ok ? addr : null;
}

export const A: RecordType = {
  type: 'A',
  description: 'IPv4 address',
  apexAllowed: true,
  address: true,
  fromV3(rec, ctx, p) {
    const target = substituteRemoteAddr(rec.target, ctx.remoteAddr, 4);
    if (target === null) p.add('target', `[remote_addr] cannot be used for an A record: the request did not come from an IPv4 address.`);
    else rec.target = target;
    return rec;
  },
  v1Fields: {
    name: nameField,
    address: Type.String({ format: 'ipv4', description: 'IPv4 address' }),
    ttl: ttlField,
  },
  v1Required: ['address'],
  fromV1(body) {
    const rec = commonFromV1('A', body);
    if (typeof body.address === 'string') rec.target = body.address;
    return rec;
  },
  toV1: (rec) => ({ name: rec.name, address: rec.target, ttl: rec.ttl }),
  validate(rec, _ctx, p) {
    // isIPv4Address takes only the canonical dotted quad (no leading zeros or short forms): nothing to rewrite.
    rec.target = rec.target.trim();
    if (!isIPv4Address(rec.target)) p.add('target', `The target '${rec.target}' is not a valid IPv4 address.`);
  },
  toWire: (rec) => rec.target,
  fromWire: (data) => ({ target: String(data), priority: 10, weight: 5, port: 80, protocol: '', tag: '' }),
};
