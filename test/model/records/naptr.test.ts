import { describe, expect, it } from 'vitest';
import { encodeRdata } from '../../../src/dns/wire/writer.js';
import { NAPTR } from '../../../src/model/records/naptr.js';
import { check, fieldsOf, fromWire, generic, parse, present, wireHex } from './support.js';

/** A terminal rule (regexp, no replacement) and a non-terminal one (replacement, no regexp), with their rdata from ldns-read-zone -u NAPTR. */
const URI = {
  data: { order: 100, preference: 10, flags: 'U', services: 'E2U+sip', regexp: '!^.*$!sip:info@example.com!', replacement: '.' },
  text: '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .',
  wire: '0064000a0155074532552b7369701b215e2e2a24217369703a696e666f406578616d706c652e636f6d2100',
};
const SRV = {
  data: { order: 100, preference: 20, flags: 'S', services: 'SIP+D2U', regexp: '', replacement: '_sip._udp.example.com' },
  text: '100 20 "S" "SIP+D2U" "" _sip._udp.example.com.',
  wire: '006400140153075349502b44325500045f736970045f756470076578616d706c6503636f6d00',
};

describe('NAPTR', () => {
  it('presents the record as dig does, and parses it back', () => {
    for (const { data, text } of [URI, SRV]) {
      expect(present('NAPTR', data)).toBe(text);
      expect(parse('NAPTR', text)).toEqual(data);
    }
  });

  it('parses unquoted strings and completes a relative replacement with the origin', () => {
    expect(parse('NAPTR', '100 10 U E2U+sip !^.*$!sip:info@example.com! .')).toEqual(URI.data);
    expect(parse('NAPTR', '100 20 S SIP+D2U "" _sip._udp', 'example.com')).toEqual(SRV.data);
  });

  it('escapes quotes and backslashes in the strings, and reads them back', () => {
    const data = { ...URI.data, regexp: '!^\\+1(.*)$!sip:\\1@"x".example.com!' };
    const text = present('NAPTR', data);
    expect(text).toBe('100 10 "U" "E2U+sip" "!^\\\\+1(.*)$!sip:\\\\1@\\"x\\".example.com!" .');
    expect(parse('NAPTR', text)).toEqual(data);
  });

  it('writes RFC 3403 rdata and reads it back', () => {
    for (const { data, wire } of [URI, SRV]) {
      expect(wireHex('NAPTR', data)).toBe(wire);
      expect(fromWire('NAPTR', wire)).toEqual(data);
    }
  });

  it('reads the generic form (RFC 3597) as the same data', () => {
    for (const { text, wire } of [URI, SRV]) expect(parse('NAPTR', generic(wire))).toEqual(parse('NAPTR', text));
  });

  it('never lets responses compress the replacement (a type newer than RFC 1035)', () => {
    expect(typeof encodeRdata(NAPTR, SRV.data)).toBe('string');
  });

  it('refuses malformed rdata and master-file text, naming the field', () => {
    expect(() => fromWire('NAPTR', SRV.wire.slice(0, 20))).toThrow();
    expect(() => parse('NAPTR', '100 10 "U" "E2U+sip" "!^.*$!x!"')).toThrow(/replacement/);
    expect(() => parse('NAPTR', '100 70000 "U" "" "" .')).toThrow(/preference/);
    expect(() => parse('NAPTR', `1 1 "${'x'.repeat(256)}" "" "" .`)).toThrow(/flags/);
    expect(() => parse('NAPTR', '1 1 "" "" "" . extra')).toThrow(/more fields/);
  });

  it('accepts both rules as they are, and fills in empty strings and "." for what is left out', () => {
    for (const { data } of [URI, SRV]) expect(check('NAPTR', data)).toEqual({ rec: expect.objectContaining({ data }), problems: [] });
    const { rec, problems } = check('NAPTR', { order: 1, preference: 2, flags: 'u', regexp: '!^.*$!sip:a@example.com!i', other: 1 });
    expect(problems).toEqual([]);
    expect(rec.data).toEqual({ order: 1, preference: 2, flags: 'U', services: '', regexp: '!^.*$!sip:a@example.com!i', replacement: '.' });
  });

  it('stores the replacement without its dot', () => {
    expect(check('NAPTR', { ...SRV.data, replacement: '_sip._udp.example.com.' }).rec.data.replacement).toBe('_sip._udp.example.com');
  });

  it('refuses bad values, naming the field', () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ order: 70000 }, 'order'],
      [{ order: '1' }, 'order'],
      [{ preference: -1 }, 'preference'],
      [{ flags: 'U!' }, 'flags'],
      [{ flags: 7 }, 'flags'],
      [{ services: 'E2U\u0007' }, 'services'],
      [{ services: 'x'.repeat(256) }, 'services'],
      [{ regexp: 'é' }, 'regexp'],
      [{ regexp: '!^.*$!sip:a@example.com' }, 'regexp'],
      [{ regexp: '!^.*$!sip:a@example.com!x' }, 'regexp'],
      [{ regexp: '1^.*1sip:a@example.com1' }, 'regexp'],
      [{ replacement: 'bad..name', regexp: '' }, 'replacement'],
      [{ replacement: '', regexp: '' }, 'replacement'],
    ];
    for (const [set, field] of cases) expect(fieldsOf(check('NAPTR', { ...URI.data, ...set }).problems), JSON.stringify(set)).toEqual([field]);
  });

  it('refuses a regexp and a replacement together (RFC 3403 4.1)', () => {
    const { problems } = check('NAPTR', { ...URI.data, replacement: '_sip._udp.example.com' });
    expect(fieldsOf(problems)).toEqual(['regexp']);
    expect(problems[0]?.message).toMatch(/either a regexp or a replacement/);
  });

  it("keeps a master's data as sent: any flags, both a regexp and a replacement", () => {
    const data = { order: 1, preference: 1, flags: 'u!', services: 'x\u0001', regexp: '!a!b!', replacement: 'next.example.com' };
    const { rec, problems } = check('NAPTR', data, { transferred: true });
    expect(problems).toEqual([]);
    expect(rec.data).toEqual(data);
    expect(fieldsOf(check('NAPTR', { ...data, flags: 'x'.repeat(256) }, { transferred: true }).problems)).toEqual(['flags']);
  });
});
