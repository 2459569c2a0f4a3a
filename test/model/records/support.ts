/** Helpers for the registry's unit tests: a type's rdata as hex both ways, and the problems checkRecord finds. */
import { Problems, type FieldProblem } from '../../../src/model/errors.js';
import { checkRecord, decodeRdata, parseRdata, rdataOf, recordTypeOrThrow, type RecordData, type RecordFields } from '../../../src/model/records/index.js';

/** The rdata of `data` on the wire, as lower-case hex. */
export const wireHex = (type: string, data: RecordFields): string => rdataOf(recordTypeOrThrow(type), data).toString('hex');

/** The data of rdata given as hex. */
export function fromWire(type: string, hex: string): RecordFields {
  const rdata = Buffer.from(hex, 'hex');
  return decodeRdata(recordTypeOrThrow(type), rdata, 0, rdata.length);
}

/** Master-file text -> data (relative names completed with `origin`). */
export const parse = (type: string, text: string, origin = 'example.com'): RecordFields => parseRdata(recordTypeOrThrow(type), text, origin);

/** Data -> master-file text. */
export const present = (type: string, data: RecordFields): string => recordTypeOrThrow(type).present(data);

/** RFC 3597's generic form of rdata given as hex. */
export const generic = (hex: string): string => `\\# ${hex.length / 2} ${hex}`;

/**
 * Checks a record of `type` (owner `name` in `zone`) as checkRecord does; returns the record as normalised
 * and the problems found.
 */
export function check(type: string, data: RecordFields, opts: { name?: string; zone?: string; transferred?: boolean } = {}): { rec: RecordData; problems: FieldProblem[] } {
  const rec: RecordData = { type, name: opts.name ?? 'www', ttl: 0, data: { ...data } };
  const problems = checkRecord(rec, { zone: opts.zone ?? 'example.com', transferred: opts.transferred }).list;
  return { rec, problems };
}

/** The fields the problems of a check name. */
export const fieldsOf = (problems: FieldProblem[]): string[] => problems.map((p) => p.field);

/**
 * A type's own rules, run directly: what checkRecord would run for a type customers cannot create (DNSSEC's,
 * which the signer makes and mirrors carry). Returns the data as normalised and the fields with problems.
 */
export function validate(type: string, data: RecordFields, opts: { name?: string; transferred?: boolean } = {}): { data: RecordFields; fields: string[]; messages: string[] } {
  const rec: RecordData = { type, name: opts.name ?? '', ttl: 0, data: { ...data } };
  const p = new Problems();
  recordTypeOrThrow(type).validate(rec, { zone: 'example.com', transferred: opts.transferred ?? true }, p);
  return { data: rec.data, fields: p.list.map((x) => x.field), messages: p.list.map((x) => x.message) };
}
