import { describe, expect, it } from 'vitest';
import { checkRecord, decodeRdata, parseRdata, PresentationError, rdataOf, recordTypeOrThrow, type RecordFields } from '../../../src/model/records/index.js';

const TLSA = recordTypeOrThrow('TLSA');
const SHA256 = 'CA978112CA1BBDCAFAC231B39A23DC4DA786EFF8147C4E72B9807785AFEE48BB';
const SHA512 = `${SHA256}${SHA256}`;
const data = (more: RecordFields = {}): RecordFields => ({ certificate_usage: 3, selector: 1, matching_type: 1, certificate_association_data: SHA256, ...more });
const decode = (rdata: Buffer): RecordFields => decodeRdata(TLSA, rdata, 0, rdata.length);

/** The fields checkRecord names for TLSA data (customers unless `transferred`), and the data as normalised. */
function check(d: RecordFields, transferred = false): { fields: string[]; data: RecordFields } {
  const rec = { type: 'TLSA', name: '_443._tcp.www', ttl: 0, data: d };
  const p = checkRecord(rec, { zone: 'example.com', transferred });
  return { fields: p.list.map((x) => x.field), data: rec.data };
}

describe('TLSA master-file text', () => {
  it('presents the data in one piece, as kdig prints it, and parses that back', () => {
    expect(TLSA.present(data())).toBe(`3 1 1 ${SHA256}`);
    expect(parseRdata(TLSA, TLSA.present(data()), 'example.com')).toEqual(data());
  });

  it('parses hex split by spaces and parentheses (as dig prints it), in lower case, to upper-case data', () => {
    const text = `3 1 1 ( ${SHA256.slice(0, 56).toLowerCase()}\n ${SHA256.slice(56)} )`;
    expect(parseRdata(TLSA, text, 'example.com')).toEqual(data());
  });

  it('parses the RFC 3597 generic form to the same data', () => {
    expect(parseRdata(TLSA, `\\# 35 030101 ${SHA256}`, 'example.com')).toEqual(data());
  });

  it('names the field that is wrong', () => {
    expect(() => parseRdata(TLSA, `256 1 1 ${SHA256}`, '')).toThrow(/certificate usage/);
    expect(() => parseRdata(TLSA, `3 x 1 ${SHA256}`, '')).toThrow(/selector/);
    expect(() => parseRdata(TLSA, '3 1', '')).toThrow(/matching type is missing/);
    expect(() => parseRdata(TLSA, '3 1 1 XYZ', '')).toThrow(PresentationError);
    expect(() => parseRdata(TLSA, '3 1 1 ABC', '')).toThrow(/certificate association data must be hexadecimal/);
    expect(() => parseRdata(TLSA, '3 1 1', '')).toThrow(/certificate association data/);
  });
});

describe('TLSA wire format', () => {
  // RFC 6698 2.3's example; the bytes are named-rrchecker -u's.
  const rfc = { certificate_usage: 0, selector: 0, matching_type: 1, certificate_association_data: 'D2ABDE240D7CD3EE6B4B28C54DF034B97983A1D16E8A410E4561CB106618E971' };
  const wire = Buffer.from('000001D2ABDE240D7CD3EE6B4B28C54DF034B97983A1D16E8A410E4561CB106618E971', 'hex');

  it('encodes usage, selector and matching type as octets, then the data', () => {
    expect(rdataOf(TLSA, rfc)).toEqual(wire);
  });

  it('decodes what it encodes', () => {
    expect(decode(wire)).toEqual(rfc);
    expect(decode(rdataOf(TLSA, data({ certificate_usage: 255, selector: 255, matching_type: 255, certificate_association_data: '00' })))).toEqual(
      data({ certificate_usage: 255, selector: 255, matching_type: 255, certificate_association_data: '00' }),
    );
  });

  it('refuses rdata without certificate association data, which no master file could show', () => {
    expect(() => decode(Buffer.from('030101', 'hex'))).toThrow(/certificate association data is missing/);
    expect(() => parseRdata(TLSA, '\\# 3 030101', '')).toThrow(PresentationError);
    expect(() => decode(Buffer.from('0301', 'hex'))).toThrow();
  });
});

describe('TLSA validation', () => {
  it('keeps only the fields of the type, the hex in upper case', () => {
    expect(check({ ...data({ certificate_association_data: SHA256.toLowerCase() }), extra: 1 })).toEqual({ fields: [], data: data() });
  });

  it('takes the values of RFC 6698 registries from customers and names each field beyond them', () => {
    expect(check(data({ certificate_usage: 0, selector: 0, matching_type: 2, certificate_association_data: SHA512 })).fields).toEqual([]);
    expect(check(data({ certificate_usage: 4 })).fields).toEqual(['certificate_usage']);
    expect(check(data({ selector: 2 })).fields).toEqual(['selector']);
    expect(check(data({ matching_type: 3 })).fields).toEqual(['matching_type']);
  });

  it('says which values are allowed', () => {
    const rec = { type: 'TLSA', name: '_443._tcp.www', ttl: 0, data: data({ certificate_usage: 4 }) };
    expect(checkRecord(rec, { zone: 'example.com' }).list[0]?.message).toBe('The certificate usage must be 0 (PKIX-TA), 1 (PKIX-EE), 2 (DANE-TA) or 3 (DANE-EE), not 4.');
  });

  it("holds a digest to its hash's length: 32 bytes for SHA-256, 64 for SHA-512", () => {
    expect(check(data({ certificate_association_data: 'ABCDEF' })).fields).toEqual(['certificate_association_data']);
    const rec = { type: 'TLSA', name: '_443._tcp.www', ttl: 0, data: data({ matching_type: 2 }) };
    expect(checkRecord(rec, { zone: 'example.com' }).list).toEqual([
      { field: 'certificate_association_data', message: 'The SHA2-512 digest (matching type 2) must be 64 bytes (128 hexadecimal digits) long, not 32.' },
    ]);
  });

  it('takes full data (matching type 0) of any length, but not none', () => {
    expect(check(data({ matching_type: 0, certificate_association_data: 'AB' })).fields).toEqual([]);
    expect(check(data({ matching_type: 0, certificate_association_data: '' })).fields).toEqual(['certificate_association_data']);
  });

  it('names every field of the wrong JS type, without throwing', () => {
    const d = { certificate_usage: '3', selector: null, matching_type: 1.5, certificate_association_data: 42 };
    expect(check(d).fields).toEqual(['certificate_usage', 'selector', 'matching_type', 'certificate_association_data']);
    expect(check({}).fields).toEqual(['certificate_usage', 'selector', 'matching_type', 'certificate_association_data']);
  });

  it("takes any octet and any length from a master, as DNS does", () => {
    const odd = data({ certificate_usage: 255, selector: 7, matching_type: 1, certificate_association_data: 'ab' });
    expect(check(odd, true)).toEqual({ fields: [], data: { ...odd, certificate_association_data: 'AB' } });
    expect(check(data({ certificate_usage: 256 }), true).fields).toEqual(['certificate_usage']);
    expect(check(data({ certificate_association_data: 'XYZ' }), true).fields).toEqual(['certificate_association_data']);
  });
});
