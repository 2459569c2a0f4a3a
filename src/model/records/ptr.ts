/**
 * PTR (RFC 1035 3.3.12): the name the owner points to, most often a host name in a reverse zone
 * (`10.2.0.192.in-addr.arpa` or a nibble name under ip6.arpa). Reverse zones are ordinary domains here.
 */
import { fromColumns, oneHostType, v3Columns, v4Columns } from './common.js';
import type { RecordType } from './types.js';

export const PTR: RecordType = {
  ...oneHostType('PTR', 'ptrdname', 'host name it points to', 'Host name the name points to'),
  type: 'PTR',
  code: 12,
  description: 'Host name the name points to, such as the host of an address in a reverse (in-addr.arpa, ip6.arpa) domain',
  apexAllowed: true,
  // Linode API v4 has PTR (interface A's v3 did not): the host name is `target`, as for CNAME and NS.
  v4: v4Columns({
    fromV3: (cols) => fromColumns('PTR', cols, { ptrdname: cols.target }),
    toV3: (rec) => v3Columns(rec, { target: String(rec.data.ptrdname) }),
  }),
};
