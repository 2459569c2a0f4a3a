import { fromColumns, oneHostType, v3Columns } from './common.js';
import type { RecordType } from './types.js';

const host = oneHostType('NS', 'nameserver', 'name server host name', 'Host name of the name server');

export const NS: RecordType = {
  ...host,
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
  validate(rec, ctx, p) {
    // RFC 4592 4.2: a wildcard NS set has no defined meaning, and BIND refuses to load a zone holding one.
    if (rec.name === '*' || rec.name.startsWith('*.')) p.add('name', `An NS record cannot have a wildcard name ('${rec.name}'); delegate a named sub-domain instead.`);
    host.validate(rec, ctx, p);
  },
};
