import { fromColumns, oneHostType, v3Columns, v4Columns } from './common.js';
import type { RecordType, V3Mapping } from './types.js';

const host = oneHostType('NS', 'nameserver', 'name server host name', 'Host name of the name server');

/** Interface A's columns of NS (Linode API v4 keeps them). */
const NS_COLUMNS: V3Mapping = {
  fromV3: (cols) => fromColumns('NS', cols, { nameserver: cols.target }),
  toV3: (rec) => v3Columns(rec, { target: String(rec.data.nameserver) }),
};

export const NS: RecordType = {
  ...host,
  type: 'NS',
  code: 2,
  description: 'Name server of the domain (at the apex) or of a delegated sub-domain',
  apexAllowed: true,
  nameServer: true,
  additionalTarget: (data) => String(data.nameserver),
  v3: NS_COLUMNS,
  v4: v4Columns(NS_COLUMNS),
  validate(rec, ctx, p) {
    // RFC 4592 4.2: a wildcard NS set has no defined meaning, and BIND refuses to load a zone holding one.
    if (rec.name === '*' || rec.name.startsWith('*.')) p.add('name', `An NS record cannot have a wildcard name ('${rec.name}'); delegate a named sub-domain instead.`);
    host.validate(rec, ctx, p);
  },
};
