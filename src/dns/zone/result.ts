/** An answer as the lookup leaves it, before it is encoded: rcode, AA, and the RRsets of each section. */
import type { ExtendedError } from '../wire/edns-options.js';
import type { SteeringChoice } from '../../model/steering.js';
import type { RRset } from './zone.js';

export interface Entry {
  set: RRset;
  /** Owner labels as written (the query's or the CNAME target's case); the record's own when absent. */
  owner?: readonly string[];
  ttl?: number;
  /** Glue of an in-domain name server in a referral: when it does not fit, TC is set (RFC 9471 3.1). */
  required?: boolean;
}

/**
 * What an answer from a signed zone must prove, noted by the lookup (names are lookup keys); the signer
 * (secure.ts) turns each into NSEC3 records, or DS records at a secure delegation.
 */
export type Denial =
  /** The name does not exist; its closest encloser does. */
  | { kind: 'nxdomain'; name: string; encloser: string }
  /** The name exists without the type asked for (an empty non-terminal, or a delegation asked for DS). */
  | { kind: 'nodata'; name: string }
  /** The answer was made from the wildcard below `encloser`: the name itself does not exist. */
  | { kind: 'wildcard'; name: string; encloser: string }
  /** The wildcard below `encloser` matched the name but holds no record of the type. */
  | { kind: 'wildcard-nodata'; name: string; encloser: string }
  /** A referral to the delegation at `cut`: its DS records, or the proof it has none. */
  | { kind: 'referral'; cut: string };

export interface Result {
  rcode: number;
  aa: boolean;
  answer: Entry[];
  authority: Entry[];
  additional: Entry[];
  /** For a signed zone's answers; absent when there is nothing to prove. */
  denial?: Denial[];
  /** Why an error, for a client that speaks EDNS (RFC 8914). */
  ede?: ExtendedError;
  /** An ALIAS target not resolved yet: the answer is made again once this settles (zone/alias.ts). */
  wait?: Promise<unknown>;
  /** Epoch ms after which the answer may not be reused: it holds an ALIAS target's addresses, which run out then. */
  until?: number;
  /**
   * Present when the lookup met a steered set (steer.ts): the answer is one variant, cached as that variant
   * alone; `scope`, the prefix of the client's network the choices hold for (an ECS answer's scope, RFC 7871).
   */
  steered?: { scope: number; choices: Chosen[] };
}

/** One steered set a lookup met, in the order met, and the variant chosen of it (steer.ts variantKey). */
export interface Chosen {
  steering: SteeringChoice;
  key: string;
}

/** An answer with this rcode and no records (yet). */
export const emptyResult = (rcode: number, aa = false): Result => ({ rcode, aa, answer: [], authority: [], additional: [] });

/** An error answer with its Extended DNS Error. */
export const errorResult = (rcode: number, ede: ExtendedError): Result => ({ ...emptyResult(rcode), ede });

/** Notes what the answer must prove, should the zone be signed. */
export function prove(r: Result, d: Denial): void {
  (r.denial ??= []).push(d);
}
