import { describe, expect, it } from 'vitest';
import { encodeRdata } from '../../../src/dns/wire/writer.js';
import { zoneNameProblem } from '../../../src/model/names.js';
import { PTR } from '../../../src/model/records/ptr.js';
import { check, fieldsOf, fromWire, generic, parse, present, wireHex } from './support.js';

/** `host.example.com.` on the wire (ldns-read-zone -u PTR). */
const HOST_WIRE = '04686f7374076578616d706c6503636f6d00';

describe('PTR', () => {
  it('presents the host name absolute, with its dot, and parses it back', () => {
    expect(present('PTR', { ptrdname: 'host.example.com' })).toBe('host.example.com.');
    expect(parse('PTR', 'host.example.com.')).toEqual({ ptrdname: 'host.example.com' });
  });

  it('completes a relative host name with the origin', () => {
    expect(parse('PTR', 'host', '2.0.192.in-addr.arpa')).toEqual({ ptrdname: 'host.2.0.192.in-addr.arpa' });
    expect(parse('PTR', '@', 'example.com')).toEqual({ ptrdname: 'example.com' });
  });

  it('writes the name as RFC 1035 does and reads it back', () => {
    expect(wireHex('PTR', { ptrdname: 'host.example.com' })).toBe(HOST_WIRE);
    expect(fromWire('PTR', HOST_WIRE)).toEqual({ ptrdname: 'host.example.com' });
  });

  it('reads the generic form (RFC 3597) as the same data', () => {
    expect(parse('PTR', generic(HOST_WIRE))).toEqual(parse('PTR', 'host.example.com.'));
  });

  it('lets responses compress the name (an RFC 1035 type)', () => {
    expect(typeof encodeRdata(PTR, { ptrdname: 'host.example.com' })).toBe('object');
  });

  it('refuses rdata with more than the name', () => {
    expect(() => fromWire('PTR', `${HOST_WIRE}00`)).toThrow();
    expect(() => parse('PTR', 'host.example.com. other.example.com.')).toThrow(/host name/);
  });

  it('stores the host name without its dot', () => {
    const { rec, problems } = check('PTR', { ptrdname: 'Host.Example.com.' }, { name: '10', zone: '2.0.192.in-addr.arpa' });
    expect(problems).toEqual([]);
    expect(rec).toEqual({ type: 'PTR', name: '10', ttl: 0, data: { ptrdname: 'Host.Example.com' } });
  });

  it('keeps only its own field', () => {
    expect(check('PTR', { ptrdname: 'host.example.com', target: 'x' }).rec.data).toEqual({ ptrdname: 'host.example.com' });
  });

  it('refuses a missing, empty or malformed host name, naming ptrdname', () => {
    for (const ptrdname of [undefined, '', '.', 'bad..name', 42, '*.example.com']) {
      const { problems } = check('PTR', { ptrdname });
      expect(fieldsOf(problems), String(ptrdname)).toEqual(['ptrdname']);
    }
  });

  it('has reverse domains under in-addr.arpa and ip6.arpa, with PTR records at numeric and nibble names', () => {
    for (const [zone, name] of [
      ['2.0.192.in-addr.arpa', '10'],
      ['8.b.d.0.1.0.0.2.ip6.arpa', '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0'],
    ] as const) {
      expect(zoneNameProblem(zone)).toBeNull();
      expect(check('PTR', { ptrdname: 'host.example.com' }, { zone, name }).problems).toEqual([]);
      // An owner given in full, as in a zone file, is stored relative.
      expect(check('PTR', { ptrdname: 'host.example.com' }, { zone, name: `${name}.${zone}.` }).rec.name).toBe(name);
    }
  });
});
