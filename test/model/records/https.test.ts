/**
 * HTTPS (RFC 9460 9) in memory: SVCB's fields and rules under type 65. SVCB's own tests cover the parameters
 * in depth; these check that HTTPS has them too, with the RFC's HTTPS vector and the type test's records.
 */
import { describe, expect, it } from 'vitest';
import { checkRecord, decodeRdata, parseRdata, rdataOf, recordTypeByCode, recordTypeOrThrow, type RecordFields } from '../../../src/model/records/index.js';

const HTTPS = recordTypeOrThrow('HTTPS');
const SVCB = recordTypeOrThrow('SVCB');
const ZONE = 'example.com';

const parse = (text: string): RecordFields => parseRdata(HTTPS, text, ZONE);
const wire = (data: RecordFields): string => rdataOf(HTTPS, data).toString('hex');
const decode = (hex: string): RecordFields => {
  const b = Buffer.from(hex, 'hex');
  return decodeRdata(HTTPS, b, 0, b.length);
};
function problems(data: RecordFields): Record<string, string> {
  const rec = { type: 'https', name: 'www', ttl: 0, data };
  return Object.fromEntries(checkRecord(rec, { zone: ZONE }).list.map((p) => [p.field, p.message]));
}

const SERVICE = '1 . alpn="h2,h3" port=8443 ipv4hint=192.0.2.1';
const SERVICE_DATA = { svc_priority: 1, target_name: '.', svc_params: { alpn: ['h2', 'h3'], port: 8443, ipv4hint: ['192.0.2.1'] } };

describe('HTTPS', () => {
  it('is type 65 with the fields of SVCB', () => {
    expect(recordTypeByCode(65)).toBe(HTTPS);
    expect(Object.keys(HTTPS.v1Fields)).toEqual(['name', 'svc_priority', 'target_name', 'svc_params', 'ttl']);
    expect(HTTPS.v1Fields).toEqual(SVCB.v1Fields);
  });

  it('RFC 9460 D.1 AliasMode: text, wire and \\# form agree', () => {
    const hex = '000003666f6f076578616d706c6503636f6d00';
    const data = { svc_priority: 0, target_name: 'foo.example.com', svc_params: {} };
    expect(parse('0 foo.example.com.')).toEqual(data);
    expect(wire(data)).toBe(hex);
    expect(decode(hex)).toEqual(data);
    expect(parse(`\\# 19 ${hex}`)).toEqual(data);
    expect(HTTPS.present(data)).toBe('0 foo.example.com.');
  });

  it('shows ServiceMode parameters as dig does and reads them back, keys in any order', () => {
    expect(parse(SERVICE)).toEqual(SERVICE_DATA);
    expect(HTTPS.present(SERVICE_DATA)).toBe(SERVICE);
    expect(parse('1 . ipv4hint=192.0.2.1 port=8443 alpn=h2,h3')).toEqual(SERVICE_DATA);
  });

  it('round-trips through the wire, and the \\# form gives the same data', () => {
    const hex = wire(SERVICE_DATA);
    expect(hex).toBe('000100' + '0001000602683202683300030002' + '20fb' + '00040004c0000201');
    expect(decode(hex)).toEqual(SERVICE_DATA);
    expect(parse(`\\# ${hex.length / 2} ${hex}`)).toEqual(SERVICE_DATA);
  });

  it('refuses what SVCB refuses, naming the field', () => {
    expect(problems({ ...SERVICE_DATA, svc_params: { port: 70000 } })).toEqual({ 'svc_params.port': expect.stringMatching(/0 and 65535/) });
    expect(problems({ svc_priority: 0, target_name: 'www.example.com', svc_params: { alpn: ['h2'] } })).toEqual({
      svc_params: expect.stringMatching(/^An HTTPS record in AliasMode/),
    });
    expect(() => parse('1 . no-default-alpn')).toThrow(/needs alpn/);
  });
});
