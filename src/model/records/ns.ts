import { commonFromV1, hostField, nameField, ttlField, validateHostTarget } from './common.js';
import type { RecordType } from './types.js';

export const NS: RecordType = {
  type: 'NS',
  description: 'Name server of the domain (at the apex) or of a delegated sub-domain',
  apexAllowed: true,
  nameServer: true,
  additionalTarget: (rec) => rec.target,
  fromV3: (rec) => rec,
  v1Fields: {
    name: nameField,
    nameserver: hostField('Host name of the name server'),
    ttl: ttlField,
  },
  v1Required: ['nameserver'],
  fromV1(body) {
    const rec = commonFromV1('NS', body);
    if (typeof body.nameserver === 'string') rec.target = body.nameserver;
    return rec;
  },
  toV1: (rec) => ({ name: rec.name, nameserver: rec.target, ttl: rec.ttl }),
  validate(rec, _ctx, p) {
    // RFC 4592 4.2: a wildcard NS set has no defined meaning, and BIND refuses to load a zone holding one.
    if (rec.name === '*' || rec.name.startsWith('*.')) p.add('name', `An NS record cannot have a wildcard name ('${rec.name}'); delegate a named sub-domain instead.`);
    validateHostTarget(rec, 'name server host name', p);
  },
  toWire: (rec) => rec.target,
  fromWire: (data) => ({ target: String(data), priority: 10, weight: 5, port: 80, protocol: '', tag: '' }),
};
