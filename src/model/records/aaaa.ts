import { Type } from '@sinclair/typebox';
import { canonicalIPv6, isIPv6Address } from '../names.js';
import { substituteRemoteAddr } from './a.js';
import { commonFromV1, nameField, ttlField } from './common.js';
import type { RecordType } from './types.js';

export const AAAA: RecordType = {
  type: 'AAAA',
  description: 'IPv6 address',
  apexAllowed: true,
  address: true,
  fromV3(rec, ctx, p) {
    const target = substituteRemoteAddr(rec.target, ctx.remoteAddr, 6);
    if (target === null) p.add('target', `[remote_addr] cannot be used for an AAAA record: the request did not come from an IPv6 address.`);
    else rec.target = target;
    return rec;
  },
  v1Fields: {
    name: nameField,
    address: Type.String({ format: 'ipv6', description: 'IPv6 address; stored and shown in RFC 5952 canonical text (2001:DB8:0::1 becomes 2001:db8::1)' }),
    ttl: ttlField,
  },
  v1Required: ['address'],
  fromV1(body) {
    const rec = commonFromV1('AAAA', body);
    if (typeof body.address === 'string') rec.target = body.address;
    return rec;
  },
  toV1: (rec) => ({ name: rec.name, address: rec.target, ttl: rec.ttl }),
  validate(rec, _ctx, p) {
    rec.target = rec.target.trim();
    if (!isIPv6Address(rec.target)) p.add('target', `The target '${rec.target}' is not a valid IPv6 address.`);
    // Stored canonical, so the duplicate check and both interfaces see one spelling of each address.
    else rec.target = canonicalIPv6(rec.target);
  },
  toWire: (rec) => rec.target,
  fromWire: (data) => ({ target: String(data), priority: 10, weight: 5, port: 80, protocol: '', tag: '' }),
};
