/**
 * PTR (RFC 1035 3.3.12): the name the owner points to, most often a host name in a reverse zone
 * (`10.2.0.192.in-addr.arpa` or a nibble name under ip6.arpa). Reverse zones are ordinary domains here.
 */
import { oneHostType } from './common.js';
import type { RecordType } from './types.js';

export const PTR: RecordType = {
  ...oneHostType('PTR', 'ptrdname', 'host name it points to', 'Host name the name points to'),
  type: 'PTR',
  code: 12,
  description: 'Host name the name points to, such as the host of an address in a reverse (in-addr.arpa, ip6.arpa) domain',
  apexAllowed: true,
};
