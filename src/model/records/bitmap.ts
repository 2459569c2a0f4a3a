/**
 * Type mnemonics in record data (RRSIG's type covered, the type lists of NSEC and NSEC3) and the type bitmap
 * NSEC and NSEC3 carry them in (RFC 4034 4.1.2, RFC 5155 3.2.1). A type is stored by the mnemonic dig prints
 * for it, `TYPE<n>` (RFC 3597 5) for one without.
 */
import dnsTypes from 'dns-packet/types.js';
import type { Problems } from '../errors.js';
import { WireError } from '../labels.js';
import { PresentationError, type Token } from './presentation.js';
import type { RdataReader, RdataWriter, RecordFields } from './types.js';

/** The mnemonics BIND 9.18 prints that dns-packet's table lacks, so that a type list reads as dig's. */
const EXTRA: Readonly<Record<number, string>> = {
  3: 'MD', 4: 'MF', 7: 'MB', 8: 'MG', 9: 'MR', 11: 'WKS', 14: 'MINFO', 19: 'X25', 20: 'ISDN', 21: 'RT', 22: 'NSAP', 23: 'NSAP-PTR',
  26: 'PX', 27: 'GPOS', 30: 'NXT', 31: 'EID', 32: 'NIMLOC', 34: 'ATMA', 38: 'A6', 40: 'SINK', 53: 'SMIMEA', 56: 'NINFO', 57: 'RKEY',
  58: 'TALINK', 61: 'OPENPGPKEY', 62: 'CSYNC', 63: 'ZONEMD', 64: 'SVCB', 65: 'HTTPS', 66: 'DSYNC', 67: 'HHIT', 68: 'BRID', 100: 'UINFO',
  101: 'UID', 102: 'GID', 103: 'UNSPEC', 104: 'NID', 105: 'L32', 106: 'L64', 107: 'LP', 108: 'EUI48', 109: 'EUI64', 253: 'MAILB',
  254: 'MAILA', 256: 'URI', 258: 'AVC', 259: 'DOA', 260: 'AMTRELAY', 261: 'RESINFO', 262: 'WALLET',
};
const EXTRA_CODES = new Map(Object.entries(EXTRA).map(([code, name]) => [name, Number(code)]));

/** The mnemonic of a type number: dig's, or `TYPE<n>`. */
export function typeMnemonic(code: number): string {
  const extra = EXTRA[code];
  if (extra) return extra;
  const name = dnsTypes.toString(code);
  return name.startsWith('UNKNOWN_') ? `TYPE${code}` : name;
}

/** The number of a mnemonic in any letter case, `TYPE<n>` included; undefined for one we do not know. */
export function typeCode(mnemonic: string): number | undefined {
  const upper = mnemonic.toUpperCase();
  const generic = /^TYPE(\d{1,5})$/.exec(upper);
  if (generic) return Number(generic[1]) <= 65535 ? Number(generic[1]) : undefined;
  if (upper.startsWith('UNKNOWN_')) return undefined;
  const code = EXTRA_CODES.get(upper) ?? dnsTypes.toType(upper);
  return code === 0 ? undefined : code;
}

/** A type field (RRSIG's type covered): a mnemonic or `TYPE<n>`, stored as typeMnemonic writes it. */
export function validateTypeField(data: RecordFields, field: string, what: string, p: Problems): void {
  const v = data[field];
  const code = typeof v === 'string' ? typeCode(v) : undefined;
  if (code === undefined) p.add(field, `The ${what} must be a record type's mnemonic (such as A or MX) or TYPE followed by its number, not ${JSON.stringify(v)}.`);
  else data[field] = typeMnemonic(code);
}

/** One type token of a master file. */
export function parseType(token: Token | undefined, what: string): string {
  if (!token) throw new PresentationError(`${what} is missing`);
  const code = typeCode(token.text);
  if (code === undefined) throw new PresentationError(`${what} '${token.text}' is not a record type`);
  return typeMnemonic(code);
}

/** Type numbers of a stored list, which encode and validate take. Throws WireError on a mnemonic we do not know. */
function codesOf(types: unknown): number[] {
  if (!Array.isArray(types)) throw new WireError('the type list is not a list');
  const codes = types.map((t) => (typeof t === 'string' ? typeCode(t) : undefined) ?? (() => { throw new WireError(`${JSON.stringify(t)} is not a record type`); })());
  return [...new Set(codes)].sort((a, b) => a - b);
}

/**
 * A list of types (NSEC, NSEC3): mnemonics or `TYPE<n>`, stored as typeMnemonic writes them, each once, in
 * type-number order. `allowEmpty`: NSEC3 at an empty non-terminal lists none (RFC 5155 3.2.1).
 */
export function validateTypeList(data: RecordFields, field: string, p: Problems, allowEmpty: boolean): void {
  const v = data[field];
  if (!Array.isArray(v) || v.some((t) => typeof t !== 'string' || typeCode(t) === undefined)) {
    p.add(field, `The ${field} must be a list of record types' mnemonics (such as A or MX) or TYPE followed by their numbers.`);
    return;
  }
  const codes = codesOf(v);
  if (codes.length === 0 && !allowEmpty) p.add(field, `The ${field} must name at least one type.`);
  data[field] = codes.map(typeMnemonic);
}

/** The master-file tokens of a type list, in the form validateTypeList stores. */
export function parseTypeList(tokens: Token[], allowEmpty: boolean): string[] {
  const codes = [...new Set(tokens.map((t) => typeCode(parseType(t, 'the type')) as number))].sort((a, b) => a - b);
  if (codes.length === 0 && !allowEmpty) throw new PresentationError('the type list is empty');
  return codes.map(typeMnemonic);
}

/** The type bitmap of a type list: per window of 256 types, its number, its length and the bits up to the last type in it. */
export function encodeTypeBitmap(types: unknown, w: RdataWriter): void {
  const codes = codesOf(types);
  for (let i = 0; i < codes.length; ) {
    const window = (codes[i] as number) >> 8;
    const bits = Buffer.alloc(32);
    let length = 0;
    for (; i < codes.length && (codes[i] as number) >> 8 === window; i++) {
      const low = (codes[i] as number) & 0xff;
      bits[low >> 3] = (bits[low >> 3] as number) | (0x80 >> (low & 7));
      length = (low >> 3) + 1;
    }
    w.u8(window);
    w.u8(length);
    w.bytes(bits.subarray(0, length));
  }
}

/**
 * The rest of the rdata as a type bitmap -> the type list. Throws WireError on what RFC 4034 4.1.2 forbids:
 * windows out of order or repeated, a window of no octets or more than 32, or ending in a zero octet.
 */
export function decodeTypeBitmap(r: RdataReader, allowEmpty: boolean): string[] {
  const types: string[] = [];
  let last = -1;
  if (r.left === 0 && !allowEmpty) throw new WireError('the type bitmap is empty');
  while (r.left > 0) {
    const window = r.u8();
    const length = r.u8();
    if (window <= last) throw new WireError(`type bitmap window ${window} is out of order`);
    if (length < 1 || length > 32) throw new WireError(`type bitmap window ${window} is ${length} octets long`);
    const bits = r.bytes(length);
    if (bits[length - 1] === 0) throw new WireError(`type bitmap window ${window} ends in a zero octet`);
    for (let i = 0; i < length * 8; i++) if ((bits[i >> 3] as number) & (0x80 >> (i & 7))) types.push(typeMnemonic(window * 256 + i));
    last = window;
  }
  return types;
}
