/** Rules, schema pieces and codecs that several record types share. */
import { Type } from '@sinclair/typebox';
import type { Problems } from '../errors.js';
import { WireError } from '../labels.js';
import { absoluteName, hostnameProblem, MAX_NAME_LENGTH, normalizeTarget } from '../names.js';
import { MAX_TTL, roundTtl, ttlProblem } from '../ttl.js';
import { parseName, parseUint, presentName, PresentationError, type Token } from './presentation.js';
import { V3_DEFAULTS, type RdataReader, type RecordContext, type RecordData, type RecordFields, type RecordType, type V3Columns, type V3Mapping, type V4Mapping } from './types.js';

/** Owner name (relative, "" = apex): a host name that may hold `_` labels and a leading `*`. */
export function validateOwner(rec: RecordData, zone: string, p: Problems): void {
  if (rec.name === '') return;
  const problem = hostnameProblem(absoluteName(rec.name, zone), { underscore: true, wildcard: true });
  if (problem) p.add('name', `The name '${rec.name}' ${problem}.`);
}

export function validateTtl(rec: RecordData, p: Problems): void {
  const problem = ttlProblem(rec.ttl);
  if (problem) p.add('ttl', `The TTL ${problem}.`);
  else rec.ttl = roundTtl(rec.ttl);
}

/**
 * A host name in record data (CNAME/MX/NS/SRV target), stored without the trailing dot. Underscores are
 * allowed (a CNAME to `_acme-challenge.other.example` delegates ACME validation); a `*` label is not.
 * `root`: the type gives the root name "." a meaning ("no name": NAPTR's replacement); it is stored as ".".
 * `wildcard`: the name is an owner name, which may be a wildcard (NSEC's next domain name).
 */
export function validateHost(data: RecordFields, field: string, type: string, what: string, p: Problems, opts: { root?: boolean; wildcard?: boolean } = {}): void {
  const raw = data[field];
  if (opts.root && typeof raw === 'string' && raw.trim() === '.') {
    data[field] = '.';
    return;
  }
  if (typeof raw !== 'string' || normalizeTarget(raw) === '') {
    p.add(field, `A ${type} record needs ${what}${opts.root ? ', or "." for none' : ''}.`);
    return;
  }
  data[field] = normalizeTarget(raw);
  const problem = hostnameProblem(data[field] as string, { underscore: true, wildcard: opts.wildcard });
  if (problem) p.add(field, `The ${what} '${data[field] as string}' ${problem}.`);
}

/** A whole number field within 0..max (65535 unless given). */
export function validateUint(data: RecordFields, field: string, p: Problems, max = 65535): void {
  const v = data[field];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max) p.add(field, `The ${field} must be a whole number between 0 and ${max}.`);
}

/** The values of an IANA registry field that customers may use, each with its mnemonic: `{ 1: 'SHA-1', 2: 'SHA-256' }`. */
export type Codes = Readonly<Record<number, string>>;

/** "1 (SHA-1) or 2 (SHA-256)". */
function listCodes(codes: Codes): string {
  const each = Object.entries(codes).map(([code, mnemonic]) => `${code} (${mnemonic})`);
  return each.length > 1 ? `${each.slice(0, -1).join(', ')} or ${each.at(-1) as string}` : each.join('');
}

/**
 * An octet field holding a registry value: customers may use the `codes` given (values a validator knows),
 * a master (ctx.transferred) any octet, values registered later included.
 */
export function validateCode(data: RecordFields, field: string, what: string, codes: Codes, ctx: RecordContext, p: Problems): void {
  if (ctx.transferred) return validateUint(data, field, p, 255);
  const v = data[field];
  if (typeof v !== 'number' || !Object.hasOwn(codes, v)) p.add(field, `The ${what} must be ${listCodes(codes)}${v === undefined ? '' : `, not ${JSON.stringify(v)}`}.`);
}

/**
 * A field of hexadecimal octets, stored upper case (as dig and BIND print it); `bytes` is the length the
 * field must have, when one is known.
 */
export function validateHex(data: RecordFields, field: string, what: string, p: Problems, bytes?: number): void {
  const v = data[field];
  if (typeof v !== 'string' || !/^([0-9a-fA-F]{2})+$/.test(v)) {
    p.add(field, `The ${what} must be hexadecimal: an even number of the digits 0-9 and A-F.`);
    return;
  }
  data[field] = v.toUpperCase();
  if (bytes !== undefined && v.length !== bytes * 2) p.add(field, `The ${what} must be ${bytes} bytes (${bytes * 2} hexadecimal digits) long, not ${v.length / 2}.`);
}

/** A relative owner name as interface B shows and takes it. */
export const nameField = Type.String({
  maxLength: MAX_NAME_LENGTH,
  description: 'Owner name relative to the domain; "" (or "@") is the domain itself. A fully qualified name inside the domain is accepted and stored relative.',
  default: '',
});
export const ttlField = Type.Integer({
  minimum: 0,
  maximum: MAX_TTL,
  description: 'Seconds; 0 uses the domain default. Other values are rounded up to 300, 3600, 7200, 14400, 28800, 57600, 86400, 172800, 345600, 604800, 1209600 or 2419200.',
  default: 0,
});
export const hostField = (description: string) => Type.String({ minLength: 1, maxLength: MAX_NAME_LENGTH + 1, description });
export const uintField = (description: string, max: number, dflt?: number) =>
  Type.Integer({ minimum: 0, maximum: max, description, ...(dflt === undefined ? {} : { default: dflt }) });
export const uint16Field = (description: string, dflt?: number) => uintField(description, 65535, dflt);
export const uint8Field = (description: string, dflt?: number) => uintField(description, 255, dflt);
/** An octet field of a registry, taking the values customers may use (see validateCode). */
export const codeField = (description: string, codes: Codes) =>
  Type.Integer({ enum: Object.keys(codes).map(Number), description: `${description}: ${listCodes(codes)}` });
export const hexField = (description: string) => Type.String({ pattern: '^([0-9a-fA-F]{2})+$', maxLength: 8192, description });

/** Interface A's columns of a record: its own values over the api.spec defaults. */
export const v3Columns = (rec: RecordData, own: Partial<V3Columns>): V3Columns => ({ ...V3_DEFAULTS, name: rec.name, ttl: rec.ttl, ...own });

/** A record of `type` from interface A's columns: owner and TTL as given, `data` the type's own fields. */
export const fromColumns = (type: string, cols: V3Columns, data: RecordFields): RecordData => ({ type, name: cols.name, ttl: cols.ttl, data });

/**
 * Linode API v4's mapping of a type whose columns map as interface A's do (Linode kept v3's columns in v4):
 * the same rules both ways, through `columns`; `tag` when the type shows v4's `tag` (CAA), which is null on others.
 */
export const v4Columns = (columns: V3Mapping, shows: { tag?: true } = {}): V4Mapping => ({
  fromV4: (cols, ctx, p, previous) => columns.fromV3(cols, ctx, p, previous),
  toV4(rec) {
    const c = columns.toV3(rec);
    return { ...c, service: null, protocol: null, tag: shows.tag ? c.tag : null };
  },
});

/** The master-file form of a host-name field. */
export const presentHost = (name: unknown): string => presentName(String(name));

/**
 * The rest of the rdata as hexadecimal, upper case as validateHex keeps it. Empty is malformed: a master file
 * could not show it (BIND requires at least one octet).
 */
export function decodeHexRest(r: RdataReader, what: string): string {
  if (r.left === 0) throw new WireError(`${what} is missing`);
  return r.bytes(r.left).toString('hex').toUpperCase();
}
/** A name read from the wire or a master file (the root there is "") in the form validateHost's `root` stores: ".". */
export const rootAsDot = (name: string): string => (name === '' ? '.' : name);

/** Reads exactly one host name from master-file tokens. */
export function parseOneHost(tokens: Token[], origin: string, what: string): string {
  if (tokens.length !== 1) throw new PresentationError(`one ${what} is expected, not ${tokens.length} fields`);
  return parseName(tokens[0], origin, what);
}

/**
 * The schema, checks, wire format and master-file text of a type whose data is one host name in `field`
 * (NS, CNAME, PTR): RFC 1035's, so a response may compress the name (RFC 3597 4). `what` names the host
 * name in messages; a type with rules of its own calls this `validate` from its own.
 */
export const oneHostType = (type: string, field: string, what: string, description: string): Pick<RecordType, 'v1Fields' | 'v1Required' | 'validate' | 'encode' | 'decode' | 'present' | 'parse'> => ({
  v1Fields: { name: nameField, [field]: hostField(description), ttl: ttlField },
  v1Required: [field],
  validate(rec, _ctx, p) {
    rec.data = { [field]: rec.data[field] };
    validateHost(rec.data, field, type, what, p);
  },
  encode: (data, w) => w.name(String(data[field]), true),
  decode: (r) => ({ [field]: r.name() }),
  present: (data) => presentHost(data[field]),
  parse: (tokens, origin) => ({ [field]: parseOneHost(tokens, origin, `the ${what}`) }),
});

/** Base64 (RFC 4648 4) with its padding, as DNSSEC's keys and signatures are written (RFC 4034 2.2, 3.2). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** The octets of base64 text, or null when it is not base64 or has no octets. */
export function base64Octets(text: string): Buffer | null {
  if (!BASE64.test(text) || text === '') return null;
  return Buffer.from(text, 'base64');
}

/** A field of base64 octets (at least one), stored in the form Buffer writes (unused bits of the last character zero). */
export function validateBase64(data: RecordFields, field: string, what: string, p: Problems): void {
  const v = data[field];
  const octets = typeof v === 'string' ? base64Octets(v) : null;
  if (!octets) p.add(field, `The ${what} must be base64 (RFC 4648) with its padding, at least one octet.`);
  else data[field] = octets.toString('base64');
}

/** Master-file base64, which may be split over several tokens (RFC 4034 2.2). */
export function parseBase64(tokens: Token[], what: string): string {
  const octets = base64Octets(tokens.map((t) => t.text).join(''));
  if (!octets) throw new PresentationError(`${what} must be base64, at least one octet`);
  return octets.toString('base64');
}

/** The rest of the rdata in base64; empty is malformed. */
export function decodeBase64Rest(r: RdataReader, what: string): string {
  if (r.left === 0) throw new WireError(`${what} is missing`);
  return r.bytes(r.left).toString('base64');
}

export const base64Field = (description: string) => Type.String({ pattern: BASE64.source, minLength: 4, maxLength: 87384, description });

/** RFC 4648 7's "Extended Hex" base32 alphabet, which keeps the octets' order (NSEC3's hashed names, RFC 5155 3.3). */
const BASE32HEX = '0123456789ABCDEFGHIJKLMNOPQRSTUV';

/** Octets in base32hex, upper case, without padding (RFC 5155 3.3). */
export function base32hex(octets: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of octets) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32HEX[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32HEX[(value << (5 - bits)) & 31];
  return out;
}

/**
 * The octets of unpadded base32hex in either case, or null when it is not: a character outside the alphabet,
 * a length no octets give, or bits set past the last octet.
 */
export function base32hexOctets(text: string): Buffer | null {
  const upper = text.toUpperCase();
  if (!/^[0-9A-V]*$/.test(upper) || ![0, 2, 4, 5, 7].includes(upper.length % 8)) return null;
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const c of upper) {
    value = (value << 5) | BASE32HEX.indexOf(c);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
    value &= (1 << bits) - 1;
  }
  return value === 0 ? Buffer.from(out) : null;
}

/** DNSSEC algorithm mnemonics (RFC 4034 A.1 and the IANA registry), which master files may write for the number. */
const DNSSEC_ALGORITHM_MNEMONICS: Readonly<Record<string, number>> = {
  RSAMD5: 1, DH: 2, DSA: 3, RSASHA1: 5, 'DSA-NSEC3-SHA1': 6, NSEC3DSA: 6, 'RSASHA1-NSEC3-SHA1': 7, NSEC3RSASHA1: 7, RSASHA256: 8, RSASHA512: 10,
  'ECC-GOST': 12, ECCGOST: 12, ECDSAP256SHA256: 13, ECDSAP384SHA384: 14, ED25519: 15, ED448: 16, INDIRECT: 252, PRIVATEDNS: 253, PRIVATEOID: 254,
};

/** A DNSSEC algorithm field of a master file: its number, or its mnemonic (RFC 4034 2.2, 3.2, 5.3). */
export function parseAlgorithm(token: Token | undefined): number {
  const mnemonic = token && Object.hasOwn(DNSSEC_ALGORITHM_MNEMONICS, token.text.toUpperCase()) ? DNSSEC_ALGORITHM_MNEMONICS[token.text.toUpperCase()] : undefined;
  return mnemonic ?? parseUint(token, 255, 'the algorithm');
}
