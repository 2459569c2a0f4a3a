/**
 * DNSSEC keys as data (RFC 4034, 6605, 8080): the algorithms we sign with, a key's DNSKEY rdata and key tag,
 * DS digests, and what the DNS server needs to sign one zone. Keys are made with node:crypto.
 */
import { createCipheriv, createDecipheriv, createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { splitName } from './labels.js';
import { CDNSKEY, CDNSKEY_DELETE, CDS, CDS_DELETE, decodeRdata, DNSKEY, dnskeyData, DS, dsData, NSEC3PARAM, nsec3Params, rdataOf, type DnskeyFields, type DsFields, type RecordFields } from './records/index.js';

/** The algorithms we sign with, by their mnemonic (RFC 8624), and their numbers. */
export const DNSSEC_ALGORITHMS = { ECDSAP256SHA256: 13, ED25519: 15 } as const;
export type DnssecAlgorithm = keyof typeof DNSSEC_ALGORITHMS;
export const DEFAULT_DNSSEC_ALGORITHM: DnssecAlgorithm = 'ECDSAP256SHA256';
export const isDnssecAlgorithm = (s: string): s is DnssecAlgorithm => Object.hasOwn(DNSSEC_ALGORITHMS, s);
export const algorithmName = (n: number): DnssecAlgorithm | undefined => (Object.keys(DNSSEC_ALGORITHMS) as DnssecAlgorithm[]).find((a) => DNSSEC_ALGORITHMS[a] === n);

/** A combined signing key (CSK): zone key and secure entry point (RFC 4034 2.1.1). */
export const CSK_FLAGS = 257;

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
  return rdataOf(DNSKEY, dnskeyData(flags, algorithm, publicKey));
}

/** The fields of DNSKEY rdata. */
const dnskeyFields = (rdata: Buffer): DnskeyFields => decodeRdata(DNSKEY, rdata, 0, rdata.length) as DnskeyFields;

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

/** DS digest type 2: SHA-256 (RFC 4509), the only one we make. */
const SHA256_DIGEST = 2;

/** The SHA-256 DS data (digest type 2, RFC 4509) of a zone's key, from its DNSKEY rdata. */
export function dsOf(zone: string, rdata: Buffer): DsFields {
  const digest = createHash('sha256').update(canonicalName(zone)).update(rdata).digest();
  return dsData(keyTag(rdata), dnskeyFields(rdata).algorithm, SHA256_DIGEST, digest);
}

/** The SHA-256 DS digest (digest type 2, RFC 4509) of a zone's DNSKEY rdata, upper-case hex. */
export const dsDigest = (zone: string, rdata: Buffer): string => dsOf(zone, rdata).digest;

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
  /** TTL of DNSKEY, CDS and CDNSKEY: the rollover's waits assume it (DnssecTimings.dnskeyTtl). */
  dnskeyTtl: number;
}

/**
 * A zone's DNSSEC status: `signed`; `unsigning` (CDS/CDNSKEY say delete, RFC 8078 4, and the keys still sign
 * until the parent's DS has expired everywhere); `off` (unsigned, no keys).
 */
export type DnssecStatus = 'signed' | 'unsigning' | 'off';

/**
 * A key's state. Every key in the store is published and signs; they differ in what CDS/CDNSKEY say:
 * `incoming` (a rollover's new key, not in CDS yet: resolvers must see it in the DNSKEY set first),
 * `active` (in CDS/CDNSKEY: the key the parent's DS should name), `retiring` (replaced in CDS, kept until
 * the parent's old DS has expired from caches). A removed key is deleted.
 */
export type DnssecKeyState = 'incoming' | 'active' | 'retiring';
export const DNSSEC_KEY_STATES: readonly DnssecKeyState[] = ['incoming', 'active', 'retiring'];

/** A zone's DNSSEC state as stored; `algorithm` is the one its newest key uses (a rollover's target). */
export interface DnssecZoneState {
  domainId: number;
  status: DnssecStatus;
  algorithm: DnssecAlgorithm;
  /** Epoch ms of the last status change. */
  since: number;
}

/** A key as stored: public parts in clear, the private key sealed with the key-encryption key (`sealKey`). */
export interface DnssecKeyData {
  algorithm: number;
  flags: number;
  /** DNSKEY rdata. */
  dnskey: Buffer;
  keyTag: number;
  /** `sealKey` output; never leaves the service. */
  sealedKey: string;
  state: DnssecKeyState;
}

export interface StoredDnssecKey extends DnssecKeyData {
  id: number;
  domainId: number;
  /** Epoch ms: made and published; in CDS; replaced in CDS (null until it happens). */
  createdAt: number;
  activeAt: number | null;
  retiringAt: number | null;
}

/** The waits of the state machine, in seconds (documented in docs/dnssec.md). */
export interface DnssecTimings {
  /** TTL of DNSKEY, CDS and CDNSKEY as served; a new key waits this long before CDS names it. */
  dnskeyTtl: number;
  /** The parent's DS TTL we assume; a replaced key, and the signatures of a zone turned off, stay this long. */
  dsTtl: number;
  /** How long a change takes to reach every server of the zone (secondaries, other nodes). */
  propagation: number;
}

export const DEFAULT_DNSSEC_TIMINGS: DnssecTimings = { dnskeyTtl: 3600, dsTtl: 86400, propagation: 300 };

/** What happens next to a zone, and when (epoch ms); null when nothing is pending. */
export type DnssecStep =
  | { kind: 'activate'; keyId: number; at: number }
  | { kind: 'remove'; keyId: number; at: number }
  | { kind: 'off'; at: number };

/**
 * The zone's next step under the timings. An incoming key goes into CDS once its DNSKEY has been published
 * for the DNSKEY TTL plus propagation; a retiring key goes once the DS TTL plus propagation has passed since
 * CDS stopped naming it; a zone being turned off goes off once the DS TTL plus propagation has passed since
 * CDS said delete. While a zone is being turned off its keys stay as they are.
 */
export function nextDnssecStep(zone: DnssecZoneState | undefined, keys: readonly StoredDnssecKey[], t: DnssecTimings): DnssecStep | null {
  if (!zone || zone.status === 'off') return null;
  const ms = (s: number) => s * 1000;
  if (zone.status === 'unsigning') return { kind: 'off', at: zone.since + ms(t.dsTtl + t.propagation) };
  const steps: DnssecStep[] = [];
  for (const k of keys) {
    if (k.state === 'incoming') steps.push({ kind: 'activate', keyId: k.id, at: k.createdAt + ms(t.dnskeyTtl + t.propagation) });
    if (k.state === 'retiring') steps.push({ kind: 'remove', keyId: k.id, at: (k.retiringAt ?? k.createdAt) + ms(t.dsTtl + t.propagation) });
  }
  return steps.sort((a, b) => a.at - b.at)[0] ?? null;
}

/** What CDS/CDNSKEY publish for a zone in this state (RFC 7344, RFC 8078 4). */
export function cdsOf(zone: DnssecZoneState, keys: readonly StoredDnssecKey[]): ZoneSigning['cds'] {
  if (zone.status === 'unsigning') return 'delete';
  if (zone.status === 'off') return null;
  return { keyTags: keys.filter((k) => k.state === 'active').map((k) => k.keyTag) };
}

/** The DNSKEY record in master-file form: `<zone>. TTL IN DNSKEY flags 3 alg base64` (RFC 4034 2.2). */
export function dnskeyText(zone: string, ttl: number, rdata: Buffer): string {
  return `${zone}. ${ttl} IN ${DNSKEY.type} ${DNSKEY.present(dnskeyFields(rdata))}`;
}

/** The SHA-256 DS record for the parent, in master-file form (RFC 4034 5.3). */
export function dsText(zone: string, ttl: number, rdata: Buffer): string {
  return `${zone}. ${ttl} IN ${DS.type} ${DS.present(dsOf(zone, rdata))}`;
}

/** Bytes of the key-encryption key (AES-256). */
export const KEK_BYTES = 32;
const SEAL_VERSION = 'v1';

/**
 * A private key sealed with the key-encryption key: AES-256-GCM, a random 12-byte IV, and `aad` (which key
 * of which zone) authenticated, so a sealed key copied onto another key's row does not open. TOTP secrets are
 * sealed with it too (services/second-factors.ts, `aad` naming their user). Text:
 * `v1:<base64 iv>:<base64 tag>:<base64 ciphertext>`.
 */
export function sealKey(kek: Buffer, privateKeyPem: string, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', kek, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(privateKeyPem, 'utf8'), cipher.final()]);
  return [SEAL_VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
}

/** The PEM a `sealKey` text holds; throws when the KEK or the `aad` is not the one it was sealed with. */
export function openKey(kek: Buffer, sealed: string, aad: string): string {
  const [version, iv, tag, body] = sealed.split(':');
  if (version !== SEAL_VERSION || iv === undefined || tag === undefined || body === undefined) throw new Error('not a sealed key');
  const decipher = createDecipheriv('aes-256-gcm', kek, Buffer.from(iv, 'base64'));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
}

/** What `sealKey` authenticates besides the key: the zone and the key's place in it. */
export const sealContext = (domainId: number, algorithm: number, keyTag: number) => `zonehost dnssec key: domain ${domainId}, algorithm ${algorithm}, tag ${keyTag}`;

/** NSEC3PARAM of every signed zone (RFC 9276: SHA-1, no extra iterations, no salt, no opt-out), in the registry's NSEC3PARAM fields. */
export const NSEC3_PARAMS = Object.freeze(nsec3Params(1, 0, 0, Buffer.alloc(0)));

/**
 * The records a signed zone holds at its apex besides its own: DNSKEY of every published key, CDS and
 * CDNSKEY for the keys the parent should point at — or the delete forms (RFC 8078 4) — and NSEC3PARAM.
 * Each in the registry's fields of its type.
 */
export function dnssecApex(zone: string, signing: ZoneSigning): { name: string; type: string; ttl: number; data: RecordFields }[] {
  const out: { name: string; type: string; ttl: number; data: RecordFields }[] = [];
  const apex = (type: string, data: RecordFields) => out.push({ name: zone, type, ttl: signing.dnskeyTtl, data });
  for (const k of signing.keys) if (k.published) apex(DNSKEY.type, dnskeyFields(k.dnskey));
  if (signing.cds === 'delete') {
    apex(CDS.type, { ...CDS_DELETE });
    apex(CDNSKEY.type, { ...CDNSKEY_DELETE });
  } else if (signing.cds) {
    for (const k of signing.keys) {
      if (!signing.cds.keyTags.includes(k.keyTag)) continue;
      apex(CDS.type, dsOf(zone, k.dnskey));
      apex(CDNSKEY.type, dnskeyFields(k.dnskey));
    }
  }
  apex(NSEC3PARAM.type, { ...NSEC3_PARAMS });
  return out;
}
