import { fromColumns, hostField, nameField, parseOneHost, presentHost, ttlField, v3Columns, validateHost } from './common.js';
import type { RecordType } from './types.js';

export const NS: RecordType = {
  type: 'NS',
  code: 2,
  description: 'Name server of the domain (at the apex) or of a delegated sub-domain',
  apexAllowed: true,
  nameServer: true,
  additionalTarget: (data) => String(data.nameserver),
  v3: {
    fromV3: (cols) => fromColumns('NS', cols, { nameserver: cols.target }),
    toV3: (rec) => v3Columns(rec, { target: String(rec.data.nameserver) }),
  },
  v1Fields: {
    name: nameField,
    nameserver: hostField('Host name of the name server'),
    ttl: ttlField,
  },
  v1Required: ['nameserver'],
  validate(rec, _ctx, p) {
    rec.data = { nameserver: rec.data.nameserver };
    // RFC 4592 4.2: a wildcard NS set has no defined meaning, and BIND refuses to load a zone holding one.
    if (rec.name === '*' || rec.name.startsWith('*.')) p.add('name', `An NS record cannot have a wildcard name ('${rec.name}'); delegate a named sub-domain instead.`);
    validateHost(rec.data, 'nameserver', 'NS', 'name server host name', p);
  },
  encode: (data, w) => w.name(String(data.nameserver), true),
  decode: (r) => ({ nameserver: r.name() }),
  present: (data) => presentHost(data.nameserver),
  parse: (tokens, origin) => ({ nameserver: parseOneHost(tokens, origin, 'the name server host name') }),
};
