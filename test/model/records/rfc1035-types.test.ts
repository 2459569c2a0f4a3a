/** The registry's first types (A, AAAA, CNAME, MX, NS, TXT, SRV, CAA, SOA) in master-file text and on the wire, both ways. */
import { describe, expect, it } from 'vitest';
import { decodeRdata, parseRdata, rdataOf, recordTypeOrThrow, wireDataKey } from '../../../src/model/records/index.js';

/** [type, master-file text as written, data, rdata in hex]. */
const CASES: [string, string, Record<string, unknown>, string][] = [
  ['A', '192.0.2.1', { address: '192.0.2.1' }, 'c0000201'],
  ['AAAA', '2001:db8::1', { address: '2001:db8::1' }, '20010db8000000000000000000000001'],
  ['CNAME', 'www.example.net.', { target: 'www.example.net' }, '03777777076578616d706c65036e657400'],
  ['NS', 'ns1.example.net.', { nameserver: 'ns1.example.net' }, '036e7331076578616d706c65036e657400'],
  ['MX', '10 mx.example.net.', { priority: 10, mail_server: 'mx.example.net' }, '000a026d78076578616d706c65036e657400'],
  ['TXT', '"v=spf1 -all"', { text: 'v=spf1 -all' }, '0b763d73706631202d616c6c'],
  ['TXT', '"a\\"b" "c d"', { text: 'a"bc d', strings: ['a"b', 'c d'] }, '03612262036320 64'.replace(' ', '')],
  ['SRV', '0 5 5060 sip.example.net.', { priority: 0, weight: 5, port: 5060, target: 'sip.example.net' }, '0000000513c4037369700765786 16d706c65036e657400'.replace(' ', '')],
  ['CAA', '128 issue "ca.example.net; account=42"', { flags: 128, tag: 'issue', value: 'ca.example.net; account=42' }, '8005697373756563612e6578616d706c652e6e65743b206163636f756e743d3432'],
  [
    'SOA',
    'ns1.example.net. first\\.last.example.com. 2026112201 14400 7200 1209600 300',
    { mname: 'ns1.example.net', rname: 'first\\.last.example.com', serial: 2026112201, refresh: 14400, retry: 7200, expire: 1209600, minimum: 300 },
    '036e7331076578616d706c65036e6574000a66697273742e6c617374076578616d706c6503636f6d0078c404c90000384000001c20001275000000012c',
  ],
];

describe('the registry types of RFC 1035 and their first successors', () => {
  it.each(CASES)('%s %s: master-file text and wire data are read and written back unchanged', (type, text, data, hex) => {
    const t = recordTypeOrThrow(type);
    expect(parseRdata(t, text, 'example.com')).toEqual(data);
    expect(t.present(data)).toBe(text);
    const rdata = rdataOf(t, data);
    expect(rdata.toString('hex')).toBe(hex);
    expect(decodeRdata(t, rdata, 0, rdata.length)).toEqual(data);
    // RFC 3597's generic form reads to the same data.
    expect(parseRdata(t, `\\# ${rdata.length} ${hex}`, 'example.com')).toEqual(data);
  });

  it('completes relative names with the origin and takes @ for it', () => {
    expect(parseRdata(recordTypeOrThrow('MX'), '10 mail', 'example.com')).toEqual({ priority: 10, mail_server: 'mail.example.com' });
    expect(parseRdata(recordTypeOrThrow('CNAME'), '@', 'example.com')).toEqual({ target: 'example.com' });
    expect(parseRdata(recordTypeOrThrow('SRV'), '( 1 2 3\n  sip ) ; comment', 'example.com')).toEqual({ priority: 1, weight: 2, port: 3, target: 'sip.example.com' });
  });

  it('refuses text that is not the type\'s, saying what is wrong', () => {
    expect(() => parseRdata(recordTypeOrThrow('A'), '192.0.2.256', 'example.com')).toThrow(/IPv4 address/);
    expect(() => parseRdata(recordTypeOrThrow('MX'), '70000 mx.example.net.', 'example.com')).toThrow(/preference/);
    expect(() => parseRdata(recordTypeOrThrow('MX'), '10', 'example.com')).toThrow(/mail server host name is missing/);
    expect(() => parseRdata(recordTypeOrThrow('TXT'), '"open', 'example.com')).toThrow(/not closed/);
    expect(() => parseRdata(recordTypeOrThrow('A'), '\\# 3 c00002', 'example.com')).toThrow(/generic data/);
  });

  it('compares data as DNS does: host names without regard to case, text with it', () => {
    const cname = recordTypeOrThrow('CNAME');
    expect(wireDataKey(cname, { target: 'WWW.Example.NET' })).toBe(wireDataKey(cname, { target: 'www.example.net' }));
    const txt = recordTypeOrThrow('TXT');
    expect(wireDataKey(txt, { text: 'Token' })).not.toBe(wireDataKey(txt, { text: 'token' }));
  });

  it('keeps the string boundaries and octets of TXT data a master sent', () => {
    const t = recordTypeOrThrow('TXT');
    const rdata = Buffer.from('0161 0162 02ff00'.replace(/ /g, ''), 'hex');
    const data = decodeRdata(t, rdata, 0, rdata.length);
    expect(rdataOf(t, data).equals(rdata)).toBe(true);
    expect(t.present(data)).toBe('"a" "b" "\\255\\000"');
  });
});
