/** DNSKEY (RFC 4034 2) and CDNSKEY (RFC 7344, RFC 8078): text, wire, the key tag of RFC 4034's example key. */
import { describe, expect, it } from 'vitest';
import { keyTag } from '../../../src/model/dnssec.js';
import { rdataOf, recordTypeByCode, recordTypeOrThrow, RECORD_TYPE_NAMES } from '../../../src/model/records/index.js';
import { fromWire, generic, parse, present, validate, wireHex } from './support.js';

/** RFC 4034 2.3's example key (RSA/SHA-1), as the RFC writes it: split over lines. */
const RFC_TEXT = `256 3 5 ( AQPSKmynfzW4kyBv015MUG2DeIQ3
                          Cbl+BBZH4b/0PY1kxkmvHjcZc8no
                          kfzj31GajIQKY+5CptLr3buXA10h
                          WqTkF7H6RfoRqXQeogmMHfpftf6z
                          Mv1LyBUgia7za6ZEzOJBOztyvhjL
                          742iU/TpPSEDhm2SNKLijfUppn1U
                          aNvv4w==  )`;
const KEY = 'AQPSKmynfzW4kyBv015MUG2DeIQ3Cbl+BBZH4b/0PY1kxkmvHjcZc8nokfzj31GajIQKY+5CptLr3buXA10hWqTkF7H6RfoRqXQeogmMHfpftf6zMv1LyBUgia7za6ZEzOJBOztyvhjL742iU/TpPSEDhm2SNKLijfUppn1UaNvv4w==';
const DATA = { flags: 256, protocol: 3, algorithm: 5, public_key: KEY };

describe('DNSKEY', () => {
  it("parses RFC 4034 2.3's example and presents the key whole (as kdig does)", () => {
    expect(parse('DNSKEY', RFC_TEXT)).toEqual(DATA);
    expect(present('DNSKEY', DATA)).toBe(`256 3 5 ${KEY}`);
    // named-compilezone's form: groups of 56 characters; an algorithm mnemonic (RFC 4034 2.2).
    expect(parse('DNSKEY', `256 3 RSASHA1 ${KEY.slice(0, 56)} ${KEY.slice(56, 112)} ${KEY.slice(112)}`)).toEqual(DATA);
  });

  it('writes flags, protocol, algorithm and key (RFC 4034 2.1), whose key tag is the one RFC 4034 3.3 signs with: 2642', () => {
    const hex = wireHex('DNSKEY', DATA);
    expect(hex).toBe(`01000305${Buffer.from(KEY, 'base64').toString('hex')}`);
    expect(fromWire('DNSKEY', hex)).toEqual(DATA);
    expect(keyTag(rdataOf(recordTypeOrThrow('DNSKEY'), DATA))).toBe(2642);
    expect(parse('DNSKEY', generic(hex))).toEqual(DATA);
  });

  it('refuses malformed rdata and text', () => {
    expect(() => fromWire('DNSKEY', '01000305')).toThrow(/public key/);
    expect(() => fromWire('DNSKEY', '010003')).toThrow();
    expect(() => parse('DNSKEY', '256 3 13')).toThrow(/public key/);
    expect(() => parse('DNSKEY', '256 3 13 AQ=')).toThrow(/base64/);
    expect(() => parse('DNSKEY', '256 3 13 A*Q=')).toThrow(/base64/);
    expect(() => parse('DNSKEY', '65536 3 13 AQ==')).toThrow(/flags/);
    expect(() => parse('DNSKEY', '256 3 NOPE AQ==')).toThrow(/algorithm/);
  });

  it('keeps its own fields, and refuses what DNS does not allow', () => {
    expect(validate('DNSKEY', { ...DATA, extra: 1 })).toEqual({ data: DATA, fields: [], messages: [] });
    const cases: [Record<string, unknown>, string][] = [
      [{ flags: 65536 }, 'flags'],
      [{ protocol: 2 }, 'protocol'],
      [{ algorithm: 256 }, 'algorithm'],
      [{ algorithm: 0 }, 'algorithm'],
      [{ public_key: '' }, 'public_key'],
      [{ public_key: 'AQ=' }, 'public_key'],
      [{ public_key: 'not base64!' }, 'public_key'],
    ];
    for (const [set, field] of cases) expect(validate('DNSKEY', { ...DATA, ...set }).fields, JSON.stringify(set)).toEqual([field]);
    // The delete form is CDNSKEY's only.
    expect(validate('DNSKEY', { flags: 0, protocol: 3, algorithm: 0, public_key: 'AA==' }).fields).toEqual(['algorithm']);
  });
});

describe('CDNSKEY', () => {
  const DELETE = { flags: 0, protocol: 3, algorithm: 0, public_key: 'AA==' };

  it("has DNSKEY's format under its own number", () => {
    expect(parse('CDNSKEY', RFC_TEXT)).toEqual(DATA);
    expect(wireHex('CDNSKEY', DATA)).toBe(wireHex('DNSKEY', DATA));
    expect(recordTypeByCode(60)?.type).toBe('CDNSKEY');
  });

  it('takes the delete form 0 3 0 AA== (RFC 8078 4) and no other key of algorithm 0', () => {
    expect(parse('CDNSKEY', '0 3 0 AA==')).toEqual(DELETE);
    expect(present('CDNSKEY', DELETE)).toBe('0 3 0 AA==');
    expect(wireHex('CDNSKEY', DELETE)).toBe('0000030000');
    expect(validate('CDNSKEY', DELETE).fields).toEqual([]);
    expect(validate('CDNSKEY', { ...DELETE, public_key: 'AQ==' }).fields).toEqual(['algorithm']);
    expect(validate('CDNSKEY', { ...DELETE, flags: 257 }).fields).toEqual(['algorithm']);
  });

  it('belongs at the apex (RFC 7344 4)', () => {
    expect(validate('CDNSKEY', DATA).fields).toEqual([]);
    expect(validate('CDNSKEY', DATA, { name: 'www' }).fields).toEqual(['name']);
  });

  it('is, like DNSKEY, known to the registry yet not a type customers create', () => {
    expect(recordTypeByCode(48)?.type).toBe('DNSKEY');
    expect(RECORD_TYPE_NAMES).not.toContain('DNSKEY');
    expect(RECORD_TYPE_NAMES).not.toContain('CDNSKEY');
  });
});
