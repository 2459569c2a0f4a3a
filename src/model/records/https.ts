/** HTTPS (RFC 9460 9): SVCB for HTTP origins, with the same fields and rules under its own name and number. */
import { serviceBinding } from './svcb.js';
import type { RecordType } from './types.js';

export const HTTPS: RecordType = serviceBinding('HTTPS', 65, 'Service binding for HTTPS origins: alternative endpoints, ALPN protocols, ECH keys and address hints (RFC 9460)');
