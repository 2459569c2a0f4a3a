import { describe, expect, it } from 'vitest';
import { encodeRdata } from '../../../src/dns/wire/writer.js';
import { ConflictError } from '../../../src/model/errors.js';
import { ALIAS } from '../../../src/model/records/alias.js';
import { V3_TYPES, type RecordData } from '../../../src/model/records/index.js';
import { checkAtName, checkZone, conflictAtName } from '../../../src/model/zone-rules.js';
import { check, fieldsOf, fromWire, generic, parse, present, wireHex } from './support.js';

/** `host.example.com.` on the wire. */
const HOST_WIRE = '04686f7374076578616d706c6503636f6d00';
const ZONE = 'example.com';
const rec = (type: string, name: string, data: Record<string, unknown>): RecordData => ({ type, name, ttl: 0, data });
const alias = (name = '', target = 'cdn.example.net') => rec('ALIAS', name, { target });

describe('ALIAS', () => {
  it("is PowerDNS's type 65401, presents its target absolute and parses it back", () => {
    expect(ALIAS.code).toBe(65401);
    expect(present('ALIAS', { target: 'host.example.com' })).toBe('host.example.com.');
    expect(parse('ALIAS', 'host')).toEqual({ target: 'host.example.com' });
  });

  it('writes its name in full (not an RFC 1035 type: never compressed), and reads it back and from the generic form', () => {
    expect(wireHex('ALIAS', { target: 'host.example.com' })).toBe(HOST_WIRE);
    expect(fromWire('ALIAS', HOST_WIRE)).toEqual({ target: 'host.example.com' });
    expect(parse('ALIAS', generic(HOST_WIRE))).toEqual({ target: 'host.example.com' });
    expect(typeof encodeRdata(ALIAS, { target: 'host.example.com' })).toBe('string');
  });

  it('may stand at the apex; refuses its own name and a malformed target, naming target', () => {
    expect(check('ALIAS', { target: 'cdn.example.net.' }, { name: '' }).problems).toEqual([]);
    expect(fieldsOf(check('ALIAS', { target: 'example.com' }, { name: '', zone: ZONE }).problems)).toEqual(['target']);
    for (const target of [undefined, '', 'bad..name', '*.example.net']) expect(fieldsOf(check('ALIAS', { target }).problems), String(target)).toEqual(['target']);
  });

  it('is not one of interface A\'s types', () => {
    expect(V3_TYPES.map((t) => t.type)).not.toContain('ALIAS');
  });
});

describe('zone rules of ALIAS', () => {
  it('allows it beside any type but A, AAAA and CNAME', () => {
    const others = [rec('MX', '', { priority: 10, mail_server: 'mail.example.com' }), rec('TXT', '', { text: 'x' }), rec('NS', '', { nameserver: 'ns.example.net' })];
    expect(conflictAtName(alias(), others, ZONE)).toBeNull();
    expect(checkAtName([alias(), ...others], ZONE)).toBeNull();
  });

  it('refuses it beside an address, an address beside it, a CNAME either way, and a second one', () => {
    const cases: [RecordData, RecordData[]][] = [
      [alias(), [rec('A', '', { address: '192.0.2.1' })]],
      [rec('AAAA', 'www', { address: '2001:db8::1' }), [alias('www')]],
      [alias('www'), [rec('CNAME', 'www', { target: 'x.example.net' })]],
      [rec('CNAME', 'www', { target: 'x.example.net' }), [alias('www')]],
      [alias('', 'other.example.net'), [alias()]],
    ];
    for (const [added, there] of cases) {
      expect(conflictAtName(added, there, ZONE), `${added.type} beside ${there[0]?.type}`).toBeInstanceOf(ConflictError);
      expect(checkAtName([...there, added], ZONE), `${added.type} beside ${there[0]?.type} (batch)`).toBeInstanceOf(ConflictError);
    }
    expect(checkZone([alias(), rec('A', '', { address: '192.0.2.1' })], ZONE).error).toMatch(/ALIAS/);
  });

  it('allows several at one name when each has steering (an answer holds one of them), not otherwise', () => {
    const steered = (target: string, weight: number): RecordData => ({ ...alias('', target), steering: { weight } });
    expect(conflictAtName(steered('a.example.net', 3), [steered('b.example.net', 1)], ZONE)).toBeNull();
    expect(checkAtName([steered('a.example.net', 3), steered('b.example.net', 1)], ZONE)).toBeNull();
    expect(conflictAtName(steered('a.example.net', 3), [alias('', 'b.example.net')], ZONE)).toBeInstanceOf(ConflictError);
    expect(conflictAtName(alias('', 'a.example.net'), [alias('', 'b.example.net')], ZONE)).toBeInstanceOf(ConflictError);
  });
});
