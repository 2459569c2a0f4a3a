/** RRSIG (RFC 4034 3): RFC 4034 3.3's example, times both ways (as named-compilezone prints them), canonical form. */
import { describe, expect, it } from 'vitest';
import { rdataOf, recordTypeByCode, recordTypeOrThrow, RECORD_TYPE_NAMES } from '../../../src/model/records/index.js';
import { fromWire, generic, parse, present, validate, wireHex } from './support.js';

const SIG = 'oJB1W6WNGv+ldvQ3WDG0MQkg5IEhjRip8WTrPYGv07h108dUKGMeDPKijVCHX3DDKdfb+v6oB9wfuh3DTJXUAfI/M0zmO/zz8bW0Rznl8O3tGNazPwQKkRN20XPXV6nwwfoXmJQbsLNrLfkGJ5D6fwFm8nN+6pBzeDQfsS3Ap3o=';
/** RFC 4034 3.3: `host.example.com. 86400 IN RRSIG A 5 3 86400 20030322173103 ( 20030220173103 2642 example.com. <SIG> )`. */
const RFC_TEXT = `A 5 3 86400 20030322173103 ( 20030220173103 2642 example.com.\n ${SIG.slice(0, 60)}\n ${SIG.slice(60)} )`;
/** The times as seconds: named-compilezone prints 1048354263 as 20030322173103 and 1045762263 as 20030220173103. */
const DATA = { type_covered: 'A', algorithm: 5, labels: 3, original_ttl: 86400, expiration: 1048354263, inception: 1045762263, key_tag: 2642, signer_name: 'example.com', signature: SIG };
const WIRE = `0001050300015180${(1048354263).toString(16)}${(1045762263).toString(16)}0a52076578616d706c6503636f6d00${Buffer.from(SIG, 'base64').toString('hex')}`;

describe('RRSIG', () => {
  it("parses RFC 4034 3.3's example and presents it as named-compilezone does (the signature whole, as kdig)", () => {
    expect(parse('RRSIG', RFC_TEXT)).toEqual(DATA);
    expect(present('RRSIG', DATA)).toBe(`A 5 3 86400 20030322173103 20030220173103 2642 example.com. ${SIG}`);
  });

  it('takes times as seconds too, and any type by TYPE<n> (RFC 4034 3.2, RFC 3597 5)', () => {
    expect(parse('RRSIG', `A 5 3 86400 1048354263 1045762263 2642 example.com. ${SIG}`)).toEqual(DATA);
    const other = parse('RRSIG', 'TYPE65534 RSASHA1 3 86400 20030322173103 20030220173103 2642 Example.COM. oJB1W6WN');
    expect(other).toEqual({ ...DATA, type_covered: 'TYPE65534', signer_name: 'Example.COM', signature: 'oJB1W6WN' });
    expect(present('RRSIG', other)).toBe('TYPE65534 5 3 86400 20030322173103 20030220173103 2642 Example.COM. oJB1W6WN');
    expect(parse('RRSIG', 'type1 5 2 300 21060207062815 19700101000000 1 @ AA==', 'example.com')).toMatchObject({ type_covered: 'A', expiration: 0xffffffff, inception: 0, signer_name: 'example.com' });
    expect(present('RRSIG', { ...DATA, expiration: 0xffffffff, inception: 0 })).toContain(' 21060207062815 19700101000000 ');
  });

  it('writes the rdata RFC 4034 3.1 lays out, the signer name in full, and reads it back', () => {
    expect(wireHex('RRSIG', DATA)).toBe(WIRE);
    expect(fromWire('RRSIG', WIRE)).toEqual(DATA);
    expect(parse('RRSIG', generic(WIRE))).toEqual(DATA);
  });

  it('lower-cases the signer name in canonical form (RFC 4034 3.1.7, 6.2)', () => {
    const t = recordTypeOrThrow('RRSIG');
    expect(rdataOf(t, { ...DATA, signer_name: 'Example.COM' }, true)).toEqual(rdataOf(t, DATA));
    expect(rdataOf(t, { ...DATA, signer_name: 'Example.COM' })).not.toEqual(rdataOf(t, DATA));
  });

  it('refuses malformed rdata and text', () => {
    expect(() => fromWire('RRSIG', WIRE.slice(0, 62))).toThrow(/signature/);
    expect(() => fromWire('RRSIG', WIRE.slice(0, 30))).toThrow();
    expect(() => parse('RRSIG', `BOGUS 5 3 86400 1 1 2642 example.com. ${SIG}`)).toThrow(/type covered/);
    expect(() => parse('RRSIG', `A 5 3 86400 20031322173103 1 2642 example.com. ${SIG}`)).toThrow(/expiration/);
    expect(() => parse('RRSIG', `A 5 3 86400 21070101000000 1 2642 example.com. ${SIG}`)).toThrow(/expiration/);
    expect(() => parse('RRSIG', `A 5 3 86400 1 4294967296 2642 example.com. ${SIG}`)).toThrow(/inception/);
    expect(() => parse('RRSIG', `A 5 3 86400 1 1 65536 example.com. ${SIG}`)).toThrow(/key tag/);
    expect(() => parse('RRSIG', 'A 5 3 86400 1 1 2642 example.com.')).toThrow(/signature/);
  });

  it('keeps its own fields, normalised, and refuses what DNS cannot carry', () => {
    expect(validate('RRSIG', { ...DATA, type_covered: 'a', signer_name: 'example.com.', extra: 1 })).toEqual({ data: DATA, fields: [], messages: [] });
    const cases: [Record<string, unknown>, string][] = [
      [{ type_covered: 'BOGUS' }, 'type_covered'],
      [{ algorithm: 256 }, 'algorithm'],
      [{ labels: -1 }, 'labels'],
      [{ original_ttl: 2 ** 32 }, 'original_ttl'],
      [{ expiration: 1.5 }, 'expiration'],
      [{ inception: '1' }, 'inception'],
      [{ key_tag: 65536 }, 'key_tag'],
      [{ signer_name: '' }, 'signer_name'],
      [{ signer_name: 'a..b' }, 'signer_name'],
      [{ signature: '' }, 'signature'],
    ];
    for (const [set, field] of cases) expect(validate('RRSIG', { ...DATA, ...set }).fields, JSON.stringify(set)).toEqual([field]);
  });

  it('is known to the registry, yet not a type customers create', () => {
    expect(recordTypeByCode(46)?.type).toBe('RRSIG');
    expect(RECORD_TYPE_NAMES).not.toContain('RRSIG');
  });
});
