/**
 * DNSSEC keys as data (RFC 4034, 6605, 8080): the algorithms we sign with, a key's DNSKEY rdata and key tag,
 * DS digests, and what the DNS server needs to sign one zone. Keys are made with node:crypto.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { splitName } from './labels.js';

/** The algorithms we sign with, by their mnemonic (RFC 8624), and their numbers. */
export const DNSSEC_ALGORITHMS = { ECDSAP256SHA256: 13, ED25519: 15 } as const;
export type DnssecAlgorithm = keyof typeof DNSSEC_ALGORITHMS;
export const DEFAULT_DNSSEC_ALGORITHM: DnssecAlgorithm = 'ECDSAP256SHA256';
export const isDnssecAlgorithm = (s: string): s is DnssecAlgorithm => Object.hasOwn(DNSSEC_ALGORITHMS, s);
export const algorithmName = (n: number): DnssecAlgorithm | undefined => (Object.keys(DNSSEC_ALGORITHMS) as DnssecAlgorithm[]).find((a) => DNSSEC_ALGORITHMS[a] === n);

/** A combined signing key (CSK): zone key and secure entry point (RFC 4034 2.1.1). */
export const CSK_FLAGS = 257;
/** DNSKEY protocol field: always 3 (RFC 4034 2.1.2). */
const PROTOCOL = 3;

/** A new private key of the algorithm, as PKCS#8 PEM (what the store keeps, encrypted). */
export function generatePrivateKey(algorithm: DnssecAlgorithm): string {
  const pair = algorithm === 'ED25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

/** The public key as DNSKEY carries it: P-256's X and Y (RFC 6605 4), Ed25519's 32 bytes (RFC 8080 3). */
export function dnskeyPublicKey(privateKeyPem: string): Buffer {
  const jwk = createPublicKey(createPrivateKey(privateKeyPem)).export({ format: 'jwk' });
  if (jwk.kty === 'OKP') return Buffer.from(jwk.x as string, 'base64url');
  return Buffer.concat([Buffer.from(jwk.x as string, 'base64url'), Buffer.from(jwk.y as string, 'base64url')]);
}

/** DNSKEY rdata: flags, protocol, algorithm, public key (RFC 4034 2.1). */
export function dnskeyRdata(flags: number, algorithm: number, publicKey: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(flags, 0);
  head[2] = PROTOCOL;
  head[3] = algorithm;
  return Buffer.concat([head, publicKey]);
}

/** The key tag of DNSKEY rdata (RFC 4034 appendix B; not algorithm 1). */
export function keyTag(rdata: Buffer): number {
  let ac = 0;
  for (let i = 0; i < rdata.length; i++) ac += i & 1 ? (rdata[i] as number) : (rdata[i] as number) << 8;
  ac += (ac >> 16) & 0xffff;
  return ac & 0xffff;
}

/** A name in canonical wire form (RFC 4034 6.2): lower case, uncompressed. */
export function canonicalName(name: string): Buffer {
  const parts: Buffer[] = [];
  for (const label of splitName(name)) {
    const bytes = Buffer.from(label.toLowerCase(), 'latin1');
    parts.push(Buffer.from([bytes.length]), bytes);
  }
  parts.push(Buffer.from([0]));
  return Buffer.concat(parts);
}

/** The SHA-256 DS digest (digest type 2, RFC 4509) of a zone's DNSKEY rdata, upper-case hex. */
export function dsDigest(zone: string, rdata: Buffer): string {
  return createHash('sha256').update(canonicalName(zone)).update(rdata).digest('hex').toUpperCase();
}

/** One key as the DNS server uses it for a zone. */
export interface ZoneKey {
  keyTag: number;
  algorithm: number;
  flags: number;
  /** DNSKEY rdata. */
  dnskey: Buffer;
  /** Whether the DNSKEY is published at the apex. */
  published: boolean;
  /** Whether the key signs the zone now. */
  signs: boolean;
  /** For signing (only when it signs). */
  privateKey: KeyObject | null;
}

/**
 * What the DNS server needs to serve one zone signed: its keys and what CDS/CDNSKEY say (RFC 7344, 8078):
 * the keys of these tags, `delete` (the zone is on its way out of DNSSEC), or nothing.
 */
export interface ZoneSigning {
  keys: ZoneKey[];
  cds: { keyTags: number[] } | 'delete' | null;
}

/** The TTL of DNSKEY, CDS and CDNSKEY records (the rollover waits count with it). */
export const DNSKEY_TTL = 3600;

/** NSEC3PARAM of every signed zone (RFC 9276: SHA-1, no extra iterations, no salt, no opt-out), in the registry's NSEC3PARAM fields. */
export const NSEC3_PARAMS = { hash_algorithm: 1, flags: 0, iterations: 0, salt: '' } as const;

/**
 * The records a signed zone holds at its apex besides its own: DNSKEY of every published key, CDS and
 * CDNSKEY for the keys the parent should point at — or the delete forms (RFC 8078 4) — and NSEC3PARAM.
 * Each in the registry's fields of its type.
 */
export function dnssecApex(zone: string, signing: ZoneSigning): { name: string; type: string; ttl: number; data: Record<string, unknown> }[] {
  const out: { name: string; type: string; ttl: number; data: Record<string, unknown> }[] = [];
  const apex = (type: string, data: Record<string, unknown>) => out.push({ name: zone, type, ttl: DNSKEY_TTL, data });
  const dnskeyData = (k: ZoneKey) => ({ flags: k.flags, protocol: 3, algorithm: k.algorithm, public_key: k.dnskey.subarray(4).toString('base64') });
  for (const k of signing.keys) if (k.published) apex('DNSKEY', dnskeyData(k));
  if (signing.cds === 'delete') {
    apex('CDS', { key_tag: 0, algorithm: 0, digest_type: 0, digest: '00' });
    apex('CDNSKEY', { flags: 0, protocol: 3, algorithm: 0, public_key: 'AA==' });
  } else if (signing.cds) {
    for (const k of signing.keys) {
      if (!signing.cds.keyTags.includes(k.keyTag)) continue;
      apex('CDS', { key_tag: k.keyTag, algorithm: k.algorithm, digest_type: 2, digest: dsDigest(zone, k.dnskey) });
      apex('CDNSKEY', dnskeyData(k));
    }
  }
  apex('NSEC3PARAM', { ...NSEC3_PARAMS });
  return out;
}
