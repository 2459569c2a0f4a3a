import { describe, expect, it } from 'vitest';
import type { RecordData } from '../../../src/model/records/index.js';
import { missingAtName } from '../../../src/model/zone-rules.js';
import { check, fieldsOf, fromWire, generic, parse, present, wireHex } from './support.js';

const SHA256 = '2E7D2C03A9507AE265ECF5B5356885A53393A2029D241394997265A1A25AEFC6';
const DATA = { key_tag: 12345, algorithm: 13, digest_type: 2, digest: SHA256 };
/** DATA's rdata (ldns-read-zone -u DS). */
const WIRE = `30390d02${SHA256.toLowerCase()}`;

describe('DS', () => {
  it('presents the record with the digest whole (as kdig does), and parses it back', () => {
    expect(present('DS', DATA)).toBe(`12345 13 2 ${SHA256}`);
    expect(parse('DS', `12345 13 2 ${SHA256}`)).toEqual(DATA);
  });

  it('parses a digest split over lines and in lower case (RFC 4034 5.4)', () => {
    expect(parse('DS', '60485 5 1 ( 2BB183AF5F22588179A53B0A\n 98631fad1a292118 )')).toEqual({ key_tag: 60485, algorithm: 5, digest_type: 1, digest: '2BB183AF5F22588179A53B0A98631FAD1A292118' });
    // dig's form: groups of 56 digits.
    expect(parse('DS', `12345 13 2 ${SHA256.slice(0, 56)} ${SHA256.slice(56)}`)).toEqual(DATA);
  });

  it('refuses master-file text with a field wrong or missing, naming it', () => {
    expect(() => parse('DS', `70000 13 2 ${SHA256}`)).toThrow(/key tag/);
    expect(() => parse('DS', `12345 256 2 ${SHA256}`)).toThrow(/algorithm/);
    expect(() => parse('DS', '12345 13 2')).toThrow(/digest/);
    expect(() => parse('DS', '12345 13 2 ABC')).toThrow(/digest/);
  });

  it('writes RFC 4034 rdata and reads it back', () => {
    expect(wireHex('DS', DATA)).toBe(WIRE);
    expect(fromWire('DS', WIRE)).toEqual(DATA);
    expect(() => fromWire('DS', '3039')).toThrow();
  });

  it('reads the generic form (RFC 3597) as the same data', () => {
    expect(parse('DS', generic(WIRE))).toEqual(DATA);
  });

  it('stores the digest upper-case and keeps only its own fields', () => {
    const { rec, problems } = check('DS', { ...DATA, digest: SHA256.toLowerCase(), extra: 1 }, { name: 'child' });
    expect(problems).toEqual([]);
    expect(rec.data).toEqual(DATA);
  });

  it('refuses numbers out of range and a digest that is not hexadecimal, naming the field', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ key_tag: 70000 }, 'key_tag'],
      [{ key_tag: '1' }, 'key_tag'],
      [{ algorithm: 256 }, 'algorithm'],
      [{ digest_type: -1 }, 'digest_type'],
      [{ digest: 'xyz' }, 'digest'],
      [{ digest: 'ABC' }, 'digest'],
      [{ digest: '' }, 'digest'],
      [{ digest: undefined }, 'digest'],
    ];
    for (const [set, field] of cases) expect(fieldsOf(check('DS', { ...DATA, ...set }, { name: 'child' }).problems), JSON.stringify(set)).toEqual([field]);
  });

  it('needs the digest length of a known digest type: 20 bytes for SHA-1, 32 for SHA-256, 48 for SHA-384', () => {
    for (const [type, bytes] of [[1, 20], [2, 32], [4, 48]] as const) {
      expect(check('DS', { ...DATA, digest_type: type, digest: 'AB'.repeat(bytes) }, { name: 'child' }).problems, `type ${type}`).toEqual([]);
      const { problems } = check('DS', { ...DATA, digest_type: type, digest: 'AB'.repeat(bytes + 1) }, { name: 'child' });
      expect(fieldsOf(problems)).toEqual(['digest']);
      expect(problems[0]?.message).toMatch(new RegExp(`digest type ${type}\\b.* ${bytes} bytes`));
    }
    // Other digest types: any length.
    expect(check('DS', { ...DATA, digest_type: 3, digest: 'ABCDEF' }, { name: 'child' }).problems).toEqual([]);
  });

  it("takes a master's digest of any length", () => {
    expect(check('DS', { ...DATA, digest: 'ABCDEF' }, { name: 'child', transferred: true }).problems).toEqual([]);
  });

  it('is refused at the apex, whose DS records belong in the parent zone', () => {
    expect(fieldsOf(check('DS', DATA, { name: '' }).problems)).toEqual(['name']);
  });

  it('belongs only where the name has NS records: a delegation', () => {
    const ds: RecordData = { type: 'DS', name: 'child', ttl: 0, data: DATA };
    const ns: RecordData = { type: 'NS', name: 'child', ttl: 0, data: { nameserver: 'ns1.child.example.net' } };
    expect(missingAtName([ds], 'example.com')?.message).toMatch(/only allowed where the name has NS records/);
    expect(missingAtName([ds, ns], 'example.com')).toBeNull();
  });
});
