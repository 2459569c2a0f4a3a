/** An answer as the lookup leaves it, before it is encoded: rcode, AA, and the RRsets of each section. */
import type { RRset } from './zone.js';

export interface Entry {
  set: RRset;
  /** Owner labels as written (the query's or the CNAME target's case); the record's own when absent. */
  owner?: readonly string[];
  ttl?: number;
  /** Glue of an in-domain name server in a referral: when it does not fit, TC is set (RFC 9471 3.1). */
  required?: boolean;
}

export interface Result {
  rcode: number;
  aa: boolean;
  answer: Entry[];
  authority: Entry[];
  additional: Entry[];
}

/** An answer with this rcode and no records (yet). */
export const emptyResult = (rcode: number, aa = false): Result => ({ rcode, aa, answer: [], authority: [], additional: [] });
