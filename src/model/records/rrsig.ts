/**
 * RRSIG (RFC 4034 3): the signature over one RRset, made by the signer (`hosted: false`). `type_covered` is
 * the type's mnemonic (TYPE<n> for one without), `expiration` and `inception` seconds since 1970 (the u32 of
 * the wire; presented as YYYYMMDDHHmmSS, RFC 4034 3.2), `signer_name` absolute without the dot, `signature`
 * base64. The signer name is written in full, and lower-cased in canonical form (RFC 4034 3.1.7, 6.2).
 */
import { Type } from '@sinclair/typebox';
import { WireError } from '../labels.js';
import { parseType, typeMnemonic, typeCode, validateTypeField } from './bitmap.js';
import { base64Field, decodeBase64Rest, hostField, nameField, parseAlgorithm, parseBase64, presentHost, ttlField, uint16Field, uint8Field, uintField, validateBase64, validateHost, validateUint } from './common.js';
import { parseName, parseUint, PresentationError, type Token } from './presentation.js';
import type { RecordType } from './types.js';

const U32 = 0xffffffff;

/** Seconds since 1970 (a u32) as YYYYMMDDHHmmSS in UTC (RFC 4034 3.2). */
export function presentTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/[-T:]/g, '').slice(0, 14);
}

/** A time field of a master file: YYYYMMDDHHmmSS in UTC, or seconds since 1970 (RFC 4034 3.2). */
export function parseTime(token: Token | undefined, what: string): number {
  if (!token) throw new PresentationError(`${what} is missing`);
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(token.text);
  if (!m) {
    if (!/^\d{1,10}$/.test(token.text)) throw new PresentationError(`${what} must be YYYYMMDDHHmmSS or seconds since 1970, not '${token.text}'`);
    return parseUint(token, U32, what);
  }
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const ms = Date.UTC(y as number, (mo as number) - 1, d, h, mi, s);
  const date = new Date(ms);
  const valid = date.getUTCMonth() === (mo as number) - 1 && date.getUTCDate() === d && (h as number) < 24 && (mi as number) < 60 && (s as number) < 60;
  if (!valid || ms < 0 || ms / 1000 > U32) throw new PresentationError(`${what} '${token.text}' is not a time between 1970 and 2106`);
  return ms / 1000;
}

/**
 * The fields of an RRSIG record's data (RFC 4034 3.1), in rdata order: the type covered by mnemonic, times in
 * seconds since 1970, the signer absolute, the signature base64.
 */
export type RrsigFields = {
  type_covered: string;
  algorithm: number;
  labels: number;
  original_ttl: number;
  expiration: number;
  inception: number;
  key_tag: number;
  signer_name: string;
  signature: string;
};

const FIELDS = ['type_covered', 'algorithm', 'labels', 'original_ttl', 'expiration', 'inception', 'key_tag', 'signer_name', 'signature'] as const;

export const RRSIG: RecordType = {
  type: 'RRSIG',
  code: 46,
  description: 'DNSSEC signature over the records of one type at a name (RFC 4034), made by the signer',
  hosted: false,
  dnssec: true,
  apexAllowed: true,
  ttlGroup: (data) => String(data.type_covered).toUpperCase(),
  v1Fields: {
    name: nameField,
    type_covered: Type.String({ pattern: '^[A-Za-z0-9-]+$', maxLength: 10, description: 'The type of the records signed, by mnemonic (TYPE and a number for one without)' }),
    algorithm: uint8Field('DNSSEC algorithm number of the key, such as 13 (ECDSA P-256 with SHA-256)'),
    labels: uint8Field('Labels of the owner name, not counting the root nor a leading * (a wildcard)'),
    original_ttl: uintField('The TTL of the records signed, in seconds', U32),
    expiration: uintField('End of the validity period, in seconds since 1970 (presented as YYYYMMDDHHmmSS)', U32),
    inception: uintField('Start of the validity period, in seconds since 1970 (presented as YYYYMMDDHHmmSS)', U32),
    key_tag: uint16Field('Key tag of the DNSKEY that verifies the signature'),
    signer_name: hostField("The signing zone's name, absolute"),
    signature: base64Field('The signature in base64'),
    ttl: ttlField,
  },
  v1Required: [...FIELDS],
  validate(rec, _ctx, p) {
    rec.data = Object.fromEntries(FIELDS.map((f) => [f, rec.data[f]]));
    validateTypeField(rec.data, 'type_covered', 'type covered', p);
    validateUint(rec.data, 'algorithm', p, 255);
    validateUint(rec.data, 'labels', p, 255);
    for (const f of ['original_ttl', 'expiration', 'inception'] as const) validateUint(rec.data, f, p, U32);
    validateUint(rec.data, 'key_tag', p);
    validateHost(rec.data, 'signer_name', 'RRSIG', 'signer name', p);
    validateBase64(rec.data, 'signature', 'signature', p);
  },
  encode(data, w) {
    const covered = typeCode(String(data.type_covered));
    if (covered === undefined) throw new WireError(`${JSON.stringify(data.type_covered)} is not a record type`);
    w.u16(covered);
    w.u8(Number(data.algorithm));
    w.u8(Number(data.labels));
    w.u32(Number(data.original_ttl));
    w.u32(Number(data.expiration));
    w.u32(Number(data.inception));
    w.u16(Number(data.key_tag));
    w.name(String(data.signer_name));
    w.bytes(Buffer.from(String(data.signature), 'base64'));
  },
  decode: (r): RrsigFields => ({
    type_covered: typeMnemonic(r.u16()),
    algorithm: r.u8(),
    labels: r.u8(),
    original_ttl: r.u32(),
    expiration: r.u32(),
    inception: r.u32(),
    key_tag: r.u16(),
    signer_name: r.name(),
    signature: decodeBase64Rest(r, 'the signature'),
  }),
  // The signature in one piece, as kdig prints it (dig and named-compilezone split it every 56 characters).
  present: (data) =>
    [
      String(data.type_covered),
      Number(data.algorithm),
      Number(data.labels),
      Number(data.original_ttl),
      presentTime(Number(data.expiration)),
      presentTime(Number(data.inception)),
      Number(data.key_tag),
      presentHost(data.signer_name),
      String(data.signature),
    ].join(' '),
  parse: (tokens, origin) => ({
    type_covered: parseType(tokens[0], 'the type covered'),
    algorithm: parseAlgorithm(tokens[1]),
    labels: parseUint(tokens[2], 255, 'the labels'),
    original_ttl: parseUint(tokens[3], U32, 'the original TTL'),
    expiration: parseTime(tokens[4], 'the expiration'),
    inception: parseTime(tokens[5], 'the inception'),
    key_tag: parseUint(tokens[6], 65535, 'the key tag'),
    signer_name: parseName(tokens[7], origin, 'the signer name'),
    signature: parseBase64(tokens.slice(8), 'the signature'),
  }),
};
