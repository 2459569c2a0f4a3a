/** NSEC (RFC 4034 4): master-file text as BIND 9.18's named-compilezone prints it, and RFC 4034 4.3's rdata. */
import { describe, expect, it } from 'vitest';
import { checkRecord, rdataOf, recordType, recordTypeByCode, recordTypeOrThrow, RECORD_TYPE_NAMES } from '../../../src/model/records/index.js';
import { fieldsOf, fromWire, generic, parse, present, validate, wireHex } from './support.js';

const DATA = { next_domain: 'host.example.com', types: ['A', 'MX', 'RRSIG', 'NSEC', 'TYPE1234'] };
/** RFC 4034 4.3: the rdata of `alfa.example.com. NSEC host.example.com. A MX RRSIG NSEC TYPE1234`. */
const WIRE = `04686f7374076578616d706c6503636f6d00` + '0006400100000003' + '041b' + '00'.repeat(26) + '20';

describe('NSEC', () => {
  it('writes RFC 4034 4.3\'s rdata and reads it back', () => {
    expect(wireHex('NSEC', DATA)).toBe(WIRE);
    expect(fromWire('NSEC', WIRE)).toEqual(DATA);
  });

  it('presents the types in type-number order, with the mnemonics BIND prints (named-compilezone)', () => {
    const data = parse('NSEC', 'host.example.com. ( A MX RRSIG NSEC TYPE1234 HTTPS SVCB )');
    expect(data).toEqual({ next_domain: 'host.example.com', types: ['A', 'MX', 'RRSIG', 'NSEC', 'SVCB', 'HTTPS', 'TYPE1234'] });
    expect(present('NSEC', data)).toBe('host.example.com. A MX RRSIG NSEC SVCB HTTPS TYPE1234');
    expect(parse('NSEC', 'Host a type1 rrsig nsec TYPE15 CAA TYPE65534', 'example.com')).toEqual({ next_domain: 'Host.example.com', types: ['A', 'MX', 'RRSIG', 'NSEC', 'CAA', 'TYPE65534'] });
  });

  it('reads the generic form (RFC 3597) as the same data', () => {
    expect(parse('NSEC', generic(WIRE))).toEqual(DATA);
  });

  it('refuses a malformed type bitmap (RFC 4034 4.1.2) and text without types', () => {
    const name = '04686f737400';
    expect(() => fromWire('NSEC', name)).toThrow(/empty/);
    expect(() => fromWire('NSEC', `${name}000140` + '000140')).toThrow(/out of order/);
    expect(() => fromWire('NSEC', `${name}00024000`)).toThrow(/zero octet/);
    expect(() => fromWire('NSEC', `${name}0000`)).toThrow(/0 octets/);
    expect(() => fromWire('NSEC', `${name}0021${'ff'.repeat(33)}`)).toThrow(/33 octets/);
    expect(() => fromWire('NSEC', `${name}0002ff`)).toThrow();
    expect(() => parse('NSEC', 'host.example.com.')).toThrow(/empty/);
    expect(() => parse('NSEC', 'host.example.com. A BOGUS')).toThrow(/BOGUS/);
  });

  it('writes the next name in full and keeps its case in canonical form (RFC 6840 5.1)', () => {
    const t = recordTypeOrThrow('NSEC');
    const mixed = { next_domain: 'Host.Example.com', types: ['A'] };
    expect(rdataOf(t, mixed, true)).toEqual(rdataOf(t, mixed));
    expect(rdataOf(t, mixed, true).toString('latin1')).toContain('Host');
  });

  it('keeps its own fields, stores the types as dig prints them, and refuses what DNS cannot carry', () => {
    expect(validate('NSEC', { next_domain: 'host.example.com.', types: ['nsec', 'type1', 'A', 'RRSIG'], extra: 1 })).toEqual({ data: { next_domain: 'host.example.com', types: ['A', 'RRSIG', 'NSEC'] }, fields: [], messages: [] });
    expect(validate('NSEC', { next_domain: '*.example.com', types: ['A'] }).fields).toEqual([]);
    expect(validate('NSEC', { next_domain: '', types: ['A'] }).fields).toEqual(['next_domain']);
    expect(validate('NSEC', { next_domain: 'a..b', types: ['A'] }).fields).toEqual(['next_domain']);
    expect(validate('NSEC', { next_domain: 'host.example.com', types: [] }).fields).toEqual(['types']);
    expect(validate('NSEC', { next_domain: 'host.example.com', types: ['A', 'BOGUS'] }).fields).toEqual(['types']);
    expect(validate('NSEC', { next_domain: 'host.example.com', types: 'A' }).fields).toEqual(['types']);
  });

  it('is known to the registry, yet not a type customers create', () => {
    expect(recordType('nsec')?.code).toBe(47);
    expect(recordTypeByCode(47)?.type).toBe('NSEC');
    expect(RECORD_TYPE_NAMES).not.toContain('NSEC');
    expect(fieldsOf(checkRecord({ type: 'NSEC', name: 'alfa', ttl: 0, data: DATA }, { zone: 'example.com' }).list)).toEqual(['type']);
  });
});
