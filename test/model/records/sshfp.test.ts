import { describe, expect, it } from 'vitest';
import { checkRecord, decodeRdata, parseRdata, PresentationError, rdataOf, recordTypeOrThrow, type RecordFields } from '../../../src/model/records/index.js';

const SSHFP = recordTypeOrThrow('SSHFP');
const SHA256 = '3E23E8160039594A33894F6564E1B1348BBD7A0088D42C4ACB73EEAED59C009D';
const SHA1 = '86F7E437FAA5A7FCE15D1DDCB9EAEAEA377667B8';
const data = (more: RecordFields = {}): RecordFields => ({ algorithm: 4, fingerprint_type: 2, fingerprint: SHA256, ...more });
const decode = (rdata: Buffer): RecordFields => decodeRdata(SSHFP, rdata, 0, rdata.length);

/** The problems checkRecord reports for SSHFP data (customers unless `transferred`), and the data as normalised. */
function check(d: RecordFields, transferred = false): { problems: { field: string; message: string }[]; fields: string[]; data: RecordFields } {
  const rec = { type: 'SSHFP', name: 'host', ttl: 0, data: d };
  const p = checkRecord(rec, { zone: 'example.com', transferred });
  return { problems: p.list, fields: p.list.map((x) => x.field), data: rec.data };
}

describe('SSHFP master-file text', () => {
  it('presents the fingerprint in one piece, as kdig prints it, and parses that back', () => {
    expect(SSHFP.present(data())).toBe(`4 2 ${SHA256}`);
    expect(SSHFP.present(data({ algorithm: 1, fingerprint_type: 1, fingerprint: SHA1 }))).toBe(`1 1 ${SHA1}`);
    expect(parseRdata(SSHFP, SSHFP.present(data()), 'example.com')).toEqual(data());
  });

  it('parses a fingerprint split by spaces and parentheses (as dig prints it), in lower case, to upper-case data', () => {
    const text = `4 2 ( ${SHA256.slice(0, 56).toLowerCase()}\n ${SHA256.slice(56)} ) ; host key`;
    expect(parseRdata(SSHFP, text, 'example.com')).toEqual(data());
  });

  it('parses the RFC 3597 generic form to the same data', () => {
    expect(parseRdata(SSHFP, `\\# 34 0402 ${SHA256}`, 'example.com')).toEqual(data());
  });

  it('names the field that is wrong', () => {
    expect(() => parseRdata(SSHFP, `256 2 ${SHA256}`, '')).toThrow(/algorithm/);
    expect(() => parseRdata(SSHFP, `4 sha256 ${SHA256}`, '')).toThrow(/fingerprint type/);
    expect(() => parseRdata(SSHFP, '4', '')).toThrow(/fingerprint type is missing/);
    expect(() => parseRdata(SSHFP, '4 2 zz', '')).toThrow(PresentationError);
    expect(() => parseRdata(SSHFP, '4 2 zz', '')).toThrow(/fingerprint must be hexadecimal/);
    expect(() => parseRdata(SSHFP, '4 2', '')).toThrow(/fingerprint/);
  });
});

describe('SSHFP wire format', () => {
  // RFC 4255 3.3's example; the bytes are named-rrchecker -u's.
  const rfc = { algorithm: 2, fingerprint_type: 1, fingerprint: '123456789ABCDEF67890123456789ABCDEF67890' };
  const wire = Buffer.from('0201123456789ABCDEF67890123456789ABCDEF67890', 'hex');

  it('encodes algorithm and fingerprint type as octets, then the fingerprint', () => {
    expect(rdataOf(SSHFP, rfc)).toEqual(wire);
  });

  it('decodes what it encodes', () => {
    expect(decode(wire)).toEqual(rfc);
    const odd = { algorithm: 255, fingerprint_type: 255, fingerprint: '00' };
    expect(decode(rdataOf(SSHFP, odd))).toEqual(odd);
  });

  it('refuses rdata without a fingerprint, which no master file could show', () => {
    expect(() => decode(Buffer.from('0402', 'hex'))).toThrow(/fingerprint is missing/);
    expect(() => parseRdata(SSHFP, '\\# 2 0402', '')).toThrow(PresentationError);
    expect(() => decode(Buffer.from('04', 'hex'))).toThrow();
  });
});

describe('SSHFP validation', () => {
  it('keeps only the fields of the type, the fingerprint in upper case', () => {
    expect(check({ ...data({ fingerprint: SHA256.toLowerCase() }), extra: 1 })).toMatchObject({ fields: [], data: data() });
  });

  it('takes the assigned algorithms (RSA, DSA, ECDSA, Ed25519, Ed448) from customers, and names others', () => {
    for (const algorithm of [1, 2, 3, 4, 6]) expect(check(data({ algorithm })).fields).toEqual([]);
    for (const algorithm of [0, 5, 7]) expect(check(data({ algorithm })).fields).toEqual(['algorithm']);
    expect(check(data({ algorithm: 5 })).problems[0]?.message).toBe('The algorithm must be 1 (RSA), 2 (DSA), 3 (ECDSA), 4 (Ed25519) or 6 (Ed448), not 5.');
  });

  it('takes fingerprint types 1 (SHA-1) and 2 (SHA-256) from customers, and names others', () => {
    expect(check(data({ fingerprint_type: 1, fingerprint: SHA1 })).fields).toEqual([]);
    expect(check(data({ fingerprint_type: 0 })).fields).toEqual(['fingerprint_type']);
    expect(check(data({ fingerprint_type: 3 })).fields).toEqual(['fingerprint_type']);
  });

  it("holds the fingerprint to its hash's length: 20 bytes for SHA-1, 32 for SHA-256", () => {
    expect(check(data({ fingerprint: SHA1 })).problems).toEqual([
      { field: 'fingerprint', message: 'The SHA-256 fingerprint (type 2) must be 32 bytes (64 hexadecimal digits) long, not 20.' },
    ]);
    expect(check(data({ fingerprint_type: 1 })).fields).toEqual(['fingerprint']);
    expect(check(data({ fingerprint: 'zz' })).fields).toEqual(['fingerprint']);
    expect(check(data({ fingerprint: '' })).fields).toEqual(['fingerprint']);
  });

  it('names every field of the wrong JS type, without throwing', () => {
    expect(check({ algorithm: '4', fingerprint_type: [2], fingerprint: 7 }).fields).toEqual(['algorithm', 'fingerprint_type', 'fingerprint']);
    expect(check({}).fields).toEqual(['algorithm', 'fingerprint_type', 'fingerprint']);
  });

  it('takes any algorithm and fingerprint type from a master, and any length for types it does not know', () => {
    const odd = { algorithm: 0, fingerprint_type: 9, fingerprint: 'ab' };
    expect(check(odd, true)).toMatchObject({ fields: [], data: { ...odd, fingerprint: 'AB' } });
    expect(check(data({ algorithm: 256 }), true).fields).toEqual(['algorithm']);
  });

  it('holds a master\'s SHA-1 and SHA-256 fingerprints to their length too, which BIND would not load otherwise', () => {
    expect(check(data({ algorithm: 99, fingerprint: SHA1 }), true).fields).toEqual(['fingerprint']);
  });
});
