/**
 * Online signing (RFC 4034 3, RFC 4035 2.2): the RRSIG records of an RRset, made the first time they are
 * needed and cached by the RRset's content, so a repeated answer, a rebuilt zone or a transfer costs no
 * signing. Signatures start an hour in the past (clocks run apart) and last two weeks; a cached one is
 * made anew after one week, well before any resolver could hold it past its expiry.
 */
import { createHash, sign as cryptoSign } from 'node:crypto';
import { splitName } from '../../model/labels.js';
import { canonicalName, type ZoneKey } from '../../model/dnssec.js';
import { rdataOf, RRSIG, type RrsigFields } from '../../model/records/index.js';
import { CLASS_IN, typeName } from '../wire/message.js';

export const INCEPTION_OFFSET_S = 3600;
export const VALIDITY_S = 14 * 86400;
export const REFRESH_AFTER_S = 7 * 86400;
/** Signature sets kept; beyond it the least recently used go. */
const MAX_ENTRIES = 200_000;

/** An RRset to sign: owner (a wildcard's own `*` name for synthesised answers), type, TTL, canonical rdata (RFC 4034 6.2). */
export interface SignInput {
  owner: string;
  type: number;
  ttl: number;
  rdata: readonly Buffer[];
}

export interface Signatures {
  /** RRSIG data, one per signing key, as the registry's RRSIG module takes it. */
  rrsigs: RrsigFields[];
  /** Epoch seconds after which they are made anew. */
  refreshAt: number;
}

const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

/** The number of labels of an owner, not counting a leading `*` (RFC 4034 3.1.3). */
function labelCount(owner: string): number {
  const labels = splitName(owner);
  return labels[0] === '*' ? labels.length - 1 : labels.length;
}

/** One RRSIG (RFC 4034 3.1.8.1): the signed data is the RRSIG rdata without its signature, then each record in canonical order. */
function rrsig(zone: string, key: ZoneKey, set: SignInput, sorted: readonly Buffer[], inception: number, expiration: number): RrsigFields {
  const unsigned: RrsigFields = {
    type_covered: typeName(set.type),
    algorithm: key.algorithm,
    labels: labelCount(set.owner),
    original_ttl: set.ttl,
    expiration,
    inception,
    key_tag: key.keyTag,
    signer_name: zone,
    signature: '',
  };
  // The RRSIG rdata without its signature, in canonical form (the signer name lower-cased, RFC 4034 3.1.7).
  const head = rdataOf(RRSIG, unsigned, true);
  const owner = canonicalName(set.owner);
  const fixed = Buffer.concat([u16(set.type), u16(CLASS_IN), u32(set.ttl)]);
  const parts: Buffer[] = [head];
  for (const r of sorted) parts.push(owner, fixed, u16(r.length), r);
  const data = Buffer.concat(parts);
  const privateKey = key.privateKey;
  if (!privateKey) throw new SigningError(`key ${key.keyTag} has no private key`);
  let signature: Buffer;
  try {
    // ECDSA signatures are r and s side by side (RFC 6605 4), not DER.
    signature = privateKey.asymmetricKeyType === 'ed25519' ? cryptoSign(null, data, privateKey) : cryptoSign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
  } catch (e) {
    throw new SigningError(`key ${key.keyTag} could not sign: ${(e as Error).message}`);
  }
  return { ...unsigned, signature: signature.toString('base64') };
}

/** A signature that could not be made: the answer is SERVFAIL (with RRSIGs Missing, RFC 8914, for EDNS clients). */
export class SigningError extends Error {}

/** Signatures by RRset content and signing keys, shared by every zone this process serves. */
export class SignatureCache {
  private readonly entries = new Map<string, Signatures>();
  signed = 0;

  constructor(private readonly max = MAX_ENTRIES) {}

  /** The RRSIG data for `set`, signed by every key of `keys` that signs; `now` in epoch seconds. */
  sign(zone: string, keys: readonly ZoneKey[], set: SignInput, now: number): Signatures {
    const sorted = [...set.rdata].sort(Buffer.compare).filter((r, i, all) => i === 0 || !r.equals(all[i - 1] as Buffer));
    const signers = keys.filter((k) => k.signs);
    const h = createHash('sha256');
    h.update(`${zone}|${signers.map((k) => `${k.algorithm}/${k.keyTag}`).join(',')}|${set.type}|${set.ttl}|`).update(canonicalName(set.owner));
    for (const r of sorted) h.update(u16(r.length)).update(r);
    const id = h.digest('base64');
    const hit = this.entries.get(id);
    if (hit && hit.refreshAt > now) {
      this.entries.delete(id);
      this.entries.set(id, hit);
      return hit;
    }
    const inception = now - INCEPTION_OFFSET_S;
    const made: Signatures = { rrsigs: signers.map((k) => rrsig(zone, k, set, sorted, inception, now + VALIDITY_S)), refreshAt: now + REFRESH_AFTER_S };
    this.signed += signers.length;
    this.entries.delete(id);
    this.entries.set(id, made);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
    return made;
  }
}
