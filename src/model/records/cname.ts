import { absoluteName } from '../names.js';
import { commonFromV1, hostField, nameField, ttlField, validateHostTarget } from './common.js';
import type { RecordType } from './types.js';

export const CNAME: RecordType = {
  type: 'CNAME',
  description: 'Alias of another host name',
  exclusive: true,
  apexAllowed: false,
  fromV3: (rec) => rec,
  v1Fields: {
    name: nameField,
    target: hostField('The canonical host name this name is an alias of'),
    ttl: ttlField,
  },
  v1Required: ['name', 'target'],
  fromV1(body) {
    const rec = commonFromV1('CNAME', body);
    if (typeof body.target === 'string') rec.target = body.target;
    return rec;
  },
  toV1: (rec) => ({ name: rec.name, target: rec.target, ttl: rec.ttl }),
  validate(rec, ctx, p) {
    validateHostTarget(rec, 'target host name', p);
    // An alias of itself is a loop: resolvers give up on it (SERVFAIL) instead of finding an answer.
    const own = absoluteName(rec.name, ctx.zone);
    if (rec.target.toLowerCase() === own.toLowerCase()) p.add('target', `A CNAME record cannot point at its own name (${own}).`);
  },
  toWire: (rec) => rec.target,
  fromWire: (data) => ({ target: String(data), priority: 10, weight: 5, port: 80, protocol: '', tag: '' }),
};
