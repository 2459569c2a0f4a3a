/**
 * SVCB (RFC 9460) in memory: master-file text both ways (as BIND 9.18's named-checkzone and dig print it),
 * the wire format against the RFC's Appendix D vectors, and the rules for customers and for masters.
 */
import { describe, expect, it } from 'vitest';
import { checkRecord, decodeRdata, parseRdata, rdataOf, recordTypeOrThrow, type RecordFields } from '../../../src/model/records/index.js';
import type { RdataWriter } from '../../../src/model/records/types.js';

const SVCB = recordTypeOrThrow('SVCB');
const ZONE = 'example.com';

const parse = (text: string, origin = ZONE): RecordFields => parseRdata(SVCB, text, origin);
const wire = (data: RecordFields): string => rdataOf(SVCB, data).toString('hex');
const decode = (hex: string): RecordFields => {
  const b = Buffer.from(hex.replace(/\s+/g, ''), 'hex');
  return decodeRdata(SVCB, b, 0, b.length);
};

/** What checkRecord makes of a record with this data: the data as stored, and the problems by field. */
function check(data: RecordFields, transferred = false): { data: RecordFields; problems: Record<string, string> } {
  const rec = { type: 'SVCB', name: '_dns', ttl: 0, data: structuredClone(data) };
  const problems = Object.fromEntries(checkRecord(rec, { zone: ZONE, transferred }).list.map((p) => [p.field, p.message]));
  return { data: rec.data, problems };
}
const problems = (data: RecordFields, transferred = false): Record<string, string> => check(data, transferred).problems;

/** A record with every named key, and the text named-checkzone -D prints for it. */
const FULL_DATA = {
  svc_priority: 2,
  target_name: 'doh.example.net',
  svc_params: { mandatory: ['alpn', 'port'], alpn: ['h3', 'h2'], 'no-default-alpn': true, port: 8853, ipv4hint: ['198.51.100.53'], ech: 'AEX+DQBBpQAgACB/', ipv6hint: ['2001:db8::35'] },
};
const FULL = '2 doh.example.net. mandatory=alpn,port alpn="h3,h2" no-default-alpn port=8853 ipv4hint=198.51.100.53 ech=AEX+DQBBpQAgACB/ ipv6hint=2001:db8::35';

/** RFC 9460 Appendix D: presentation forms and their wire forms. */
const VECTORS: { what: string; text: string; data: RecordFields; hex: string }[] = [
  {
    what: 'D.2 ServiceMode, the owner as target',
    text: '1 .',
    data: { svc_priority: 1, target_name: '.', svc_params: {} },
    hex: '0001 00',
  },
  {
    what: 'D.2 a port',
    text: '16 foo.example.com. port=53',
    data: { svc_priority: 16, target_name: 'foo.example.com', svc_params: { port: 53 } },
    hex: '0010 03666f6f076578616d706c6503636f6d00 0003 0002 0035',
  },
  {
    what: 'D.2 a key without a name, unquoted',
    text: '1 foo.example.com. key667=hello',
    data: { svc_priority: 1, target_name: 'foo.example.com', svc_params: { key667: 'hello' } },
    hex: '0001 03666f6f076578616d706c6503636f6d00 029b 0005 68656c6c6f',
  },
  {
    what: 'D.2 a key without a name, quoted, with a decimal escape',
    text: '1 foo.example.com. key667="hello\\210qoo"',
    data: { svc_priority: 1, target_name: 'foo.example.com', svc_params: { key667: 'hello\\210qoo' } },
    hex: '0001 03666f6f076578616d706c6503636f6d00 029b 0009 68656c6c6fd2716f6f',
  },
  {
    what: 'D.2 two IPv6 hints, quoted',
    text: '1 foo.example.com. ipv6hint="2001:db8::1,2001:db8::53:1"',
    data: { svc_priority: 1, target_name: 'foo.example.com', svc_params: { ipv6hint: ['2001:db8::1', '2001:db8::53:1'] } },
    hex: '0001 03666f6f076578616d706c6503636f6d00 0006 0020 20010db8000000000000000000000001 20010db8000000000000000000530001',
  },
  {
    what: 'D.2 an IPv6 hint with an embedded IPv4 address, stored canonical',
    text: '1 example.com. ipv6hint="2001:db8:122:344::192.0.2.33"',
    data: { svc_priority: 1, target_name: 'example.com', svc_params: { ipv6hint: ['2001:db8:122:344::c000:221'] } },
    hex: '0001 076578616d706c6503636f6d00 0006 0010 20010db801220344 00000000c0000221',
  },
  {
    what: 'D.2 keys and mandatory out of order in the text, in order on the wire',
    text: '16 foo.example.org. (alpn=h2,h3-19 mandatory=ipv4hint,alpn ipv4hint=192.0.2.1)',
    data: { svc_priority: 16, target_name: 'foo.example.org', svc_params: { mandatory: ['alpn', 'ipv4hint'], alpn: ['h2', 'h3-19'], ipv4hint: ['192.0.2.1'] } },
    hex: '0010 03666f6f076578616d706c65036f726700 0000 0004 0001 0004 0001 0009 02 6832 05 68332d3139 0004 0004 c0000201',
  },
  {
    what: 'D.2 an ALPN id holding a backslash and a comma, escaped twice',
    text: '16 foo.example.org. alpn="f\\\\\\\\oo\\\\,bar,h2"',
    data: { svc_priority: 16, target_name: 'foo.example.org', svc_params: { alpn: ['f\\oo,bar', 'h2'] } },
    hex: '0010 03666f6f076578616d706c65036f726700 0001 000c 08 665c6f6f2c626172 02 6832',
  },
];

describe('SVCB master-file text', () => {
  it('shows every key as BIND does, in key order, and reads that text back', () => {
    expect(parse(FULL)).toEqual(FULL_DATA);
    expect(SVCB.present(FULL_DATA)).toBe(FULL);
    expect(parse('2 doh.example.net. ipv6hint=2001:db8::35 mandatory=port,alpn port=8853 alpn=h3,h2 no-default-alpn ipv4hint=198.51.100.53 ech=AEX+DQBBpQAgACB/')).toEqual(FULL_DATA);
  });

  it('reads keys in any order and values quoted or not, and shows them as named-checkzone does', () => {
    const shown: [string, string][] = [
      ['16 foo.example.org. (alpn=h2,h3-19 mandatory=ipv4hint,alpn ipv4hint=192.0.2.1)', '16 foo.example.org. mandatory=alpn,ipv4hint alpn="h2,h3-19" ipv4hint=192.0.2.1'],
      ['1 . port="53" ech="AEX+DQBBpQAgACB/" no-default-alpn alpn=h2', '1 . alpn="h2" no-default-alpn port=53 ech=AEX+DQBBpQAgACB/'],
      ['1 . alpn=h2 no-default-alpn=""', '1 . alpn="h2" no-default-alpn'],
      ['1 . port=0053', '1 . port=53'],
      // `\,` undone as a char-string escape is a comma between two ids (RFC 9460 A.1); `\\,` keeps it in one.
      ['1 . alpn=h2\\,h3', '1 . alpn="h2,h3"'],
      ['16 foo.example.org. alpn=f\\\\\\092oo\\092,bar,h2', '16 foo.example.org. alpn="f\\\\\\\\oo\\\\,bar,h2"'],
      // BIND writes a space in an ALPN id as \032, a quote escaped.
      ['1 . alpn="a b,c\\"d"', '1 . alpn="a\\032b,c\\"d"'],
      ['1 . ipv6hint=::192.0.2.1,::ffff:198.51.100.100,2001:DB8::0:1', '1 . ipv6hint=::192.0.2.1,::ffff:198.51.100.100,2001:db8::1'],
      // Keys without a name: values quoted, an empty one bare; a named key by number carries its wire form.
      ['1 . key667=hello key65000 key65001="" key7="a b,c\\\\d\\255e;f"', '1 . key7="a b,c\\\\d\\255e;f" key667="hello" key65000 key65001'],
      ['1 . key0=\\000\\003 key3=\\000\\005', '1 . mandatory=port port=5'],
      ['1 . mandatory=key1 alpn=h2', '1 . mandatory=alpn alpn="h2"'],
      // AliasMode parameters, which BIND loads (clients ignore them).
      ['0 foo alpn=h2', '0 foo.example.com. alpn="h2"'],
    ];
    for (const [text, dig] of shown) {
      expect(SVCB.present(parse(text)), text).toBe(dig);
      expect(parse(dig), dig).toEqual(parse(text));
    }
  });

  it('completes relative target names with the origin and keeps "." as the owner itself', () => {
    expect(parse('0 www').target_name).toBe('www.example.com');
    expect(parse('0 @').target_name).toBe('example.com');
    expect(parse('1 .')).toEqual({ svc_priority: 1, target_name: '.', svc_params: {} });
    expect(SVCB.present(parse('1 .'))).toBe('1 .');
  });

  it('refuses what BIND refuses, naming the key', () => {
    const refused: [string, RegExp][] = [
      ['1', /target name is missing/],
      ['65536 .', /svc_priority/],
      ['1 . port=1 port=2', /port is given twice/],
      ['1 . foo=1', /'foo=1' is not a SvcParam/],
      ['1 . ALPN=h2', /'ALPN=h2' is not a SvcParam/],
      ['1 . key01=a', /'key01=a' is not a SvcParam/],
      ['1 . key65536=a', /'key65536=a' is not a SvcParam/],
      ['1 . "alpn=h2"', /not a SvcParam/],
      ['1 . alpn=', /svc_params\.alpn must be a list/],
      ['1 . alpn=h2,,h3', /svc_params\.alpn must be a list/],
      ['1 . ipv4hint=192.0.2.1,', /svc_params\.ipv4hint/],
      ['1 . ipv4hint=192.0.2.256', /svc_params\.ipv4hint/],
      ['1 . ipv6hint=192.0.2.1', /svc_params\.ipv6hint/],
      ['1 . port=65536', /svc_params\.port/],
      ['1 . port=x', /svc_params\.port/],
      ['1 . ech=AEX+DQBBpQAgACB', /svc_params\.ech/],
      ['1 . ech=AB==', /svc_params\.ech/],
      ['1 . no-default-alpn=x alpn=h2', /svc_params\.no-default-alpn takes no value/],
      ['1 . no-default-alpn', /no-default-alpn needs alpn/],
      ['1 . mandatory=port', /mandatory lists port, which the record does not have/],
      ['1 . mandatory=mandatory', /must not list mandatory itself/],
      ['1 . mandatory=port,port port=1', /each key once/],
      ['1 . key3=\\000', /port must hold two octets/],
    ];
    for (const [text, message] of refused) expect(() => parse(text), text).toThrow(message);
  });
});

describe('SVCB wire format', () => {
  for (const v of VECTORS) {
    it(`RFC 9460 ${v.what}: text, wire and \\# form agree`, () => {
      const hex = v.hex.replace(/\s+/g, '');
      expect(parse(v.text)).toEqual(v.data);
      expect(wire(v.data)).toBe(hex);
      expect(decode(hex)).toEqual(v.data);
      expect(parse(`\\# ${hex.length / 2} ${v.hex}`)).toEqual(v.data);
    });
  }

  it('round-trips every key, keys without a name included', () => {
    const data = parse(`${FULL} key667="hello\\210qoo" key65000`);
    expect(decode(wire(data))).toEqual(data);
    expect(parse(`\\# ${wire(data).length / 2} ${wire(data)}`)).toEqual(data);
  });

  it('writes the target name uncompressed (RFC 9460 2.2)', () => {
    const names: [string, boolean | undefined][] = [];
    const w: RdataWriter = { u8() {}, u16() {}, u32() {}, bytes() {}, name: (n, compress) => void names.push([n, compress]) };
    SVCB.encode(FULL_DATA, w);
    expect(names).toEqual([['doh.example.net', undefined]]);
  });

  it('refuses malformed rdata', () => {
    const target = '0001 00';
    const malformed: [string, string, RegExp][] = [
      ['keys out of order', `${target} 0003 0002 0035 0001 0003 026832`, /out of order/],
      ['a key twice', `${target} 0003 0002 0035 0003 0002 0035`, /out of order/],
      ['a port of three octets', `${target} 0003 0003 000035`, /port must hold two octets/],
      ['an empty ALPN id', `${target} 0001 0003 00 6832`, /empty/],
      ['an ALPN id running past its value', `${target} 0001 0002 05 68`, /runs past/],
      ['an empty alpn', `${target} 0001 0000`, /at least one/],
      ['a value running past the rdata', `${target} 0003 0004 0035`, /too short/],
      ['no-default-alpn with a value', `${target} 0002 0001 00`, /must be empty/],
      ['mandatory unsorted', `${target} 0000 0004 0003 0001`, /increasing order/],
      ['an ipv4hint of five octets', `${target} 0004 0005 c000020101`, /multiple of 4/],
      ['an ipv6hint of eight octets', `${target} 0006 0008 20010db800000000`, /multiple of 16/],
      ['an empty ech', `${target} 0005 0000`, /ech must not be empty/],
    ];
    for (const [what, hex, message] of malformed) expect(() => decode(hex), what).toThrow(message);
  });
});

describe('SVCB records customers create', () => {
  it('are stored normalised: target without its dot, parameters in key order, mandatory sorted, IPv6 canonical', () => {
    const { data, problems } = check({
      svc_params: { ipv6hint: ['2001:DB8:0::1'], port: 853, alpn: ['h2'], mandatory: ['port', 'alpn'] },
      target_name: 'svc.example.net.',
      svc_priority: 1,
    });
    expect(problems).toEqual({});
    expect(data).toEqual({ svc_priority: 1, target_name: 'svc.example.net', svc_params: { mandatory: ['alpn', 'port'], alpn: ['h2'], port: 853, ipv6hint: ['2001:db8::1'] } });
    expect(Object.keys(data.svc_params as object)).toEqual(['mandatory', 'alpn', 'port', 'ipv6hint']);
  });

  it('take "." as the target and no parameters ({} when left out)', () => {
    expect(check({ svc_priority: 0, target_name: '.' })).toEqual({ problems: {}, data: { svc_priority: 0, target_name: '.', svc_params: {} } });
  });

  it('may carry keys without a name (dohpath as key7), their values stored as master-file text', () => {
    const { data, problems } = check({ svc_priority: 1, target_name: '.', svc_params: { alpn: ['h2'], key7: '/dns-query{?dns}', key667: 'hé "x"' } });
    expect(problems).toEqual({});
    expect(data.svc_params).toEqual({ alpn: ['h2'], key7: '/dns-query{?dns}', key667: 'h\\195\\169 \\"x\\"' });
    expect(SVCB.present(data)).toBe('1 . alpn="h2" key7="/dns-query{?dns}" key667="h\\195\\169 \\"x\\""');
  });

  it('name the field of every problem', () => {
    const cases: [RecordFields, string, RegExp][] = [
      [{ svc_priority: 70000, target_name: '.' }, 'svc_priority', /whole number between 0 and 65535/],
      [{ svc_priority: '1', target_name: '.' }, 'svc_priority', /whole number/],
      [{ svc_priority: 1, target_name: 'bad..name' }, 'target_name', /empty labels/],
      [{ svc_priority: 1 }, 'target_name', /needs target name/],
      [{ svc_priority: 1, target_name: '.', svc_params: ['alpn'] }, 'svc_params', /must be an object/],
      [{ svc_priority: 1, target_name: '.', svc_params: { port: 'x' } }, 'svc_params.port', /whole number/],
      [{ svc_priority: 1, target_name: '.', svc_params: { alpn: [] } }, 'svc_params.alpn', /one or more/],
      [{ svc_priority: 1, target_name: '.', svc_params: { alpn: ['h 2'] } }, 'svc_params.alpn', /printable ASCII/],
      [{ svc_priority: 1, target_name: '.', svc_params: { alpn: ['x'.repeat(256)] } }, 'svc_params.alpn', /1 to 255/],
      [{ svc_priority: 1, target_name: '.', svc_params: { ipv4hint: ['192.0.2.256'] } }, 'svc_params.ipv4hint', /IPv4 addresses/],
      [{ svc_priority: 1, target_name: '.', svc_params: { ipv6hint: ['192.0.2.1'] } }, 'svc_params.ipv6hint', /IPv6 addresses/],
      [{ svc_priority: 1, target_name: '.', svc_params: { ech: 'not base64!' } }, 'svc_params.ech', /base64/],
      [{ svc_priority: 1, target_name: '.', svc_params: { 'no-default-alpn': false, alpn: ['h2'] } }, 'svc_params.no-default-alpn', /true/],
      [{ svc_priority: 1, target_name: '.', svc_params: { 'no-default-alpn': true } }, 'svc_params.no-default-alpn', /needs alpn/],
      [{ svc_priority: 1, target_name: '.', svc_params: { mandatory: ['port'], alpn: ['h2'] } }, 'svc_params.mandatory', /lists port, which the record does not have/],
      [{ svc_priority: 1, target_name: '.', svc_params: { mandatory: ['mandatory', 'alpn'], alpn: ['h2'] } }, 'svc_params.mandatory', /itself/],
      [{ svc_priority: 1, target_name: '.', svc_params: { mandatory: ['http'] } }, 'svc_params.mandatory', /SvcParamKey names/],
      [{ svc_priority: 1, target_name: '.', svc_params: { foo: 1 } }, 'svc_params.foo', /not a SvcParamKey/],
      [{ svc_priority: 1, target_name: '.', svc_params: { key1: 'h2' } }, 'svc_params.key1', /by its name, alpn/],
      [{ svc_priority: 1, target_name: '.', svc_params: { key65535: '' } }, 'svc_params.key65535', /reserved/],
      [{ svc_priority: 1, target_name: '.', svc_params: { key667: 1 } }, 'svc_params.key667', /must be a string/],
      [{ svc_priority: 1, target_name: '.', svc_params: { key667: 'a\\' } }, 'svc_params.key667', /master-file text/],
      [{ svc_priority: 0, target_name: 'www.example.com', svc_params: { alpn: ['h2'] } }, 'svc_params', /AliasMode \(svc_priority 0\) takes no parameters/],
    ];
    for (const [data, field, message] of cases) expect(problems(data), JSON.stringify(data)).toEqual(expect.objectContaining({ [field]: expect.stringMatching(message) }));
  });

  it('that do not fit the wire are refused naming svc_params', () => {
    const many = Array.from({ length: 4200 }, (_, i) => `2001:db8::${i.toString(16)}`);
    expect(problems({ svc_priority: 1, target_name: '.', svc_params: { ipv6hint: many } })).toEqual({ svc_params: expect.stringMatching(/cannot be written in DNS/) });
  });
});

describe('SVCB records from a master', () => {
  it('keep what DNS allows and customers may not create: AliasMode parameters, any octets in ALPN ids, unlisted mandatory keys', () => {
    const sent = { svc_priority: 0, target_name: 'www.example.com', svc_params: { mandatory: ['port'], alpn: ['h\xff '], 'no-default-alpn': true, key65535: '' } };
    const data = decode(wire(sent));
    expect(data).toEqual(sent);
    expect(check(data, true)).toEqual({ problems: {}, data: sent });
    expect(SVCB.present(data)).toBe('0 www.example.com. mandatory=port alpn="h\\255\\032" no-default-alpn key65535');
    expect(Object.keys(problems(sent))).toEqual(['svc_params.alpn', 'svc_params.key65535', 'svc_params']);
  });
});

describe('SVCB in canonical form', () => {
  it('keeps the target name\'s case: RFC 4034 6.2 does not list SVCB or HTTPS, while MX is lower-cased', () => {
    const data = { svc_priority: 1, target_name: 'Doh.Example.NET', svc_params: {} };
    expect(rdataOf(SVCB, data, true)).toEqual(rdataOf(SVCB, data));
    expect(rdataOf(recordTypeOrThrow('HTTPS'), data, true)).toEqual(rdataOf(SVCB, data));
    const mx = recordTypeOrThrow('MX');
    expect(rdataOf(mx, { priority: 10, mail_server: 'Mail.Example.NET' }, true)).toEqual(rdataOf(mx, { priority: 10, mail_server: 'mail.example.net' }));
  });
});

describe('SVCB in answers', () => {
  it('names its target for the additional section, and nothing for "." (the owner, asked for already)', () => {
    expect(SVCB.additionalTarget?.(FULL_DATA)).toBe('doh.example.net');
    expect(SVCB.additionalTarget?.(parse('1 .'))).toBeNull();
  });
});
