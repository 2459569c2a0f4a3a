/** CDS (RFC 7344 3.1, RFC 8078 4): DS's format under its own number, at the apex, with the delete form. */
import { describe, expect, it } from 'vitest';
import { recordType, recordTypeByCode, RECORD_TYPE_NAMES } from '../../../src/model/records/index.js';
import { check, fieldsOf, fromWire, generic, parse, present, validate, wireHex } from './support.js';

const SHA256 = '2E7D2C03A9507AE265ECF5B5356885A53393A2029D241394997265A1A25AEFC6';
const DATA = { key_tag: 12345, algorithm: 13, digest_type: 2, digest: SHA256 };
const DELETE = { key_tag: 0, algorithm: 0, digest_type: 0, digest: '00' };

describe('CDS', () => {
  it("has DS's text and rdata under its own number", () => {
    expect(parse('CDS', `12345 ECDSAP256SHA256 2 ${SHA256.slice(0, 56)} ${SHA256.slice(56)}`)).toEqual(DATA);
    expect(present('CDS', DATA)).toBe(`12345 13 2 ${SHA256}`);
    expect(wireHex('CDS', DATA)).toBe(wireHex('DS', DATA));
    expect(fromWire('CDS', wireHex('DS', DATA))).toEqual(DATA);
    expect(parse('CDS', generic(wireHex('DS', DATA)))).toEqual(DATA);
  });

  it('takes the delete form 0 0 0 00 (RFC 8078 4) and no other record of algorithm or digest type 0', () => {
    expect(parse('CDS', '0 0 0 00')).toEqual(DELETE);
    expect(present('CDS', DELETE)).toBe('0 0 0 00');
    expect(wireHex('CDS', DELETE)).toBe('0000000000');
    expect(fromWire('CDS', '0000000000')).toEqual(DELETE);
    expect(validate('CDS', DELETE)).toEqual({ data: DELETE, fields: [], messages: [] });
    expect(validate('CDS', { ...DELETE, digest: '0000' }).fields).toEqual(['algorithm']);
    expect(validate('CDS', { ...DATA, digest_type: 0, digest: '00' }).fields).toEqual(['digest_type']);
    expect(validate('CDS', { ...DATA, algorithm: 0 }).fields).toEqual(['algorithm']);
  });

  it('checks the digest length of a known digest type, and belongs at the apex (RFC 7344 4)', () => {
    expect(validate('CDS', DATA, { transferred: false }).fields).toEqual([]);
    expect(validate('CDS', { ...DATA, digest: 'ABCD' }, { transferred: false }).fields).toEqual(['digest']);
    expect(validate('CDS', DATA, { name: 'www' }).fields).toEqual(['name']);
  });

  it('is known to the registry yet not a type customers create, while DS stays one (at a delegation)', () => {
    expect(recordTypeByCode(59)?.type).toBe('CDS');
    expect(recordType('CDS')?.hosted).toBe(false);
    expect(RECORD_TYPE_NAMES).not.toContain('CDS');
    expect(fieldsOf(check('CDS', DATA, { name: '' }).problems)).toEqual(['type']);
    expect(RECORD_TYPE_NAMES).toContain('DS');
    expect(recordType('DS')).toMatchObject({ requires: 'NS', apexAllowed: false });
    expect(recordType('DS')?.hosted).toBeUndefined();
  });
});
