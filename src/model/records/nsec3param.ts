/**
 * NSEC3PARAM (RFC 5155 4): at a zone's apex, the parameters its NSEC3 records were made with, which an
 * authoritative server needs to find them. Made by the signer (`hosted: false`). Its rdata is the start of
 * NSEC3's, so nsec3.ts builds on what is here. `salt`: upper-case hex, "" for none (presented as "-").
 */
import { Type } from '@sinclair/typebox';
import type { Problems } from '../errors.js';
import { WireError } from '../labels.js';
import { nameField, ttlField, uint16Field, uint8Field, validateUint } from './common.js';
import { noMore, parseHex, parseUint, PresentationError, type Token } from './presentation.js';
import type { RdataReader, RdataWriter, RecordFields, RecordType } from './types.js';

/** The fields NSEC3 and NSEC3PARAM share, in rdata order. */
export const PARAM_FIELDS = ['hash_algorithm', 'flags', 'iterations', 'salt'] as const;

/** The data of an NSEC3PARAM record, and the start of an NSEC3 record's; `salt` upper-case hex, "" for none. */
export type Nsec3Params = { hash_algorithm: number; flags: number; iterations: number; salt: string };

/** NSEC3 parameters: the hash algorithm, the flags, the additional iterations and the salt. */
export const nsec3Params = (hashAlgorithm: number, flags: number, iterations: number, salt: Buffer): Nsec3Params => ({
  hash_algorithm: hashAlgorithm,
  flags,
  iterations,
  salt: salt.toString('hex').toUpperCase(),
});

export const paramV1Fields = (flags: string) => ({
  hash_algorithm: uint8Field('Hash algorithm: 1 (SHA-1), the only one defined (RFC 5155)'),
  flags: uint8Field(flags),
  iterations: uint16Field('Additional hash iterations (RFC 9276 recommends 0)'),
  salt: Type.String({ pattern: '^([0-9a-fA-F]{2}){0,255}$', description: 'Salt in hexadecimal, stored upper-case; "" for none (RFC 9276 recommends none)' }),
});

/** Checks the shared fields of `data` (already holding only its own fields). */
export function validateParams(data: RecordFields, p: Problems): void {
  validateUint(data, 'hash_algorithm', p, 255);
  validateUint(data, 'flags', p, 255);
  validateUint(data, 'iterations', p);
  const salt = data.salt;
  if (typeof salt !== 'string' || !/^([0-9a-fA-F]{2}){0,255}$/.test(salt)) p.add('salt', 'The salt must be hexadecimal, at most 255 octets, or "" for none.');
  else data.salt = salt.toUpperCase();
}

export function encodeParams(data: RecordFields, w: RdataWriter): void {
  const salt = Buffer.from(String(data.salt), 'hex');
  if (salt.length > 255) throw new WireError('the salt is longer than 255 octets');
  w.u8(Number(data.hash_algorithm));
  w.u8(Number(data.flags));
  w.u16(Number(data.iterations));
  w.u8(salt.length);
  w.bytes(salt);
}

export const decodeParams = (r: RdataReader): Nsec3Params => ({
  hash_algorithm: r.u8(),
  flags: r.u8(),
  iterations: r.u16(),
  salt: r.bytes(r.u8()).toString('hex').toUpperCase(),
});

/** `1 0 0 -`: the salt as hex, "-" for none (RFC 5155 3.3). */
export const presentParams = (data: RecordFields): string => `${Number(data.hash_algorithm)} ${Number(data.flags)} ${Number(data.iterations)} ${data.salt === '' ? '-' : String(data.salt)}`;

export function parseParams(tokens: Token[]): Nsec3Params {
  if (!tokens[3]) throw new PresentationError('the salt is missing ("-" for none)');
  const salt = parseHex([tokens[3]], 'the salt', true);
  if (salt.length > 510) throw new PresentationError('the salt is longer than 255 octets');
  return {
    hash_algorithm: parseUint(tokens[0], 255, 'the hash algorithm'),
    flags: parseUint(tokens[1], 255, 'the flags'),
    iterations: parseUint(tokens[2], 65535, 'the iterations'),
    salt,
  };
}

export const NSEC3PARAM: RecordType = {
  type: 'NSEC3PARAM',
  code: 51,
  description: "NSEC3 parameters: at a signed zone's apex, how its NSEC3 records' names were hashed (RFC 5155), made by the signer",
  hosted: false,
  dnssec: true,
  apexAllowed: true,
  v1Fields: { name: nameField, ...paramV1Fields('Flags: 0 (RFC 5155 4.1.2: resolvers ignore a record with others)'), ttl: ttlField },
  v1Required: [...PARAM_FIELDS],
  validate(rec, _ctx, p) {
    rec.data = Object.fromEntries(PARAM_FIELDS.map((f) => [f, rec.data[f]]));
    validateParams(rec.data, p);
  },
  encode: encodeParams,
  decode: decodeParams,
  present: presentParams,
  parse(tokens) {
    noMore(tokens, 4, 'NSEC3PARAM');
    return parseParams(tokens);
  },
};
