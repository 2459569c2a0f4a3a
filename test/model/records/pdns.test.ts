/**
 * The registry's PowerDNS mapping (toPdns/fromPdns): every hosted type's content as PowerDNS presents it, read
 * back to the same data; a content not in that form refused as PowerDNS refuses it (names without their final
 * dot above all); the types whose PowerDNS form differs from the zone-file form.
 */
import { describe, expect, it } from 'vitest';
import { checkRecord, fromPdns, PresentationError, RECORD_TYPES, recordTypeOrThrow, toPdns } from '../../../src/model/records/index.js';

/** One content per hosted type, in PowerDNS's own form. */
const CONTENTS: Record<string, string> = {
  A: '192.0.2.1',
  AAAA: '2001:db8::1',
  CNAME: 'target.example.net.',
  MX: '10 mail.example.net.',
  NS: 'ns1.example.net.',
  TXT: '"v=spf1 -all"',
  SRV: '10 5 5060 sip.example.net.',
  CAA: '0 issue "letsencrypt.org"',
  TLSA: `3 1 1 ${'ab'.repeat(32)}`,
  SSHFP: `4 2 ${'cd'.repeat(32)}`,
  PTR: 'host.example.net.',
  NAPTR: '100 10 "U" "E2U+sip" "!^.*$!sip:info@example.com!" .',
  DS: `12345 13 2 ${'ef'.repeat(32)}`,
  SVCB: '1 . alpn="h2"',
  HTTPS: '1 . alpn="h2"',
  ALIAS: 'cdn.example.net.',
};

describe('PowerDNS contents', () => {
  it.each(RECORD_TYPES.map((t) => t.type))('reads a %s content in PowerDNS form and shows it the same', (type) => {
    const t = recordTypeOrThrow(type);
    const content = CONTENTS[type];
    expect(content, `a sample content for ${type}`).toBeDefined();
    const data = fromPdns(t, content as string);
    const name = type === 'TLSA' ? '_443._tcp.www' : type === 'SRV' ? '_sip._udp' : 'www';
    const rec = { type, name, ttl: 0, data };
    expect(checkRecord(rec, { zone: 'example.com' }).list).toEqual([]);
    expect(toPdns(t, rec.data)).toBe(content);
  });

  it('refuses a name without its final dot, saying what it was read as, as PowerDNS does', () => {
    expect(() => fromPdns(recordTypeOrThrow('MX'), '10 mail')).toThrow(new PresentationError("Not in expected format (parsed as '10 mail.')"));
    expect(() => fromPdns(recordTypeOrThrow('CNAME'), 'target.example.net')).toThrow(PresentationError);
    expect(() => fromPdns(recordTypeOrThrow('TXT'), 'unquoted')).toThrow(PresentationError);
  });

  it('compares without regard to case and runs of blanks; takes AAAA in any form', () => {
    expect(fromPdns(recordTypeOrThrow('MX'), '10  MAIL.example.NET.')).toEqual({ priority: 10, mail_server: 'MAIL.example.NET' });
    expect(fromPdns(recordTypeOrThrow('AAAA'), '2001:0db8:0000::0001')).toEqual({ address: '2001:db8::1' });
  });

  it('shows DS, TLSA and SSHFP hex in lower case, as PowerDNS, while the zone-file form keeps upper case', () => {
    const ds = recordTypeOrThrow('DS');
    const data = fromPdns(ds, `12345 13 2 ${'EF'.repeat(32)}`);
    expect(toPdns(ds, data)).toBe(`12345 13 2 ${'ef'.repeat(32)}`);
    expect(ds.present({ ...data, digest: 'EF'.repeat(32) })).toBe(`12345 13 2 ${'EF'.repeat(32)}`);
  });
});
