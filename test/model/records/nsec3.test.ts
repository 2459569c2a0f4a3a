/**
 * NSEC3 and NSEC3PARAM (RFC 5155): master-file text as BIND 9.18's named-compilezone prints it, RFC 5155
 * appendix A's records, and the hash names they carry.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalName } from '../../../src/model/dnssec.js';
import { base32hex, base32hexOctets } from '../../../src/model/records/common.js';
import { recordTypeByCode, RECORD_TYPE_NAMES } from '../../../src/model/records/index.js';
import { fromWire, generic, parse, present, validate, wireHex } from './support.js';

/** RFC 5155 5: the hashed owner name of `name`, base32hex. */
function nsec3Hash(name: string, saltHex: string, iterations: number): string {
  const salt = Buffer.from(saltHex, 'hex');
  let digest = createHash('sha1').update(canonicalName(name)).update(salt).digest();
  for (let i = 0; i < iterations; i++) digest = createHash('sha1').update(digest).update(salt).digest();
  return base32hex(digest);
}

/** RFC 5155 appendix A: `0p9mhaveqvm6t7vbl5lop2u3t2rp3tom.example. NSEC3 1 1 12 aabbccdd ( 2t7b4g4vsa5smi47k61mv5bv1a22bojr MX DNSKEY NS SOA NSEC3PARAM RRSIG )`. */
const APEX_TEXT = '1 1 12 aabbccdd ( 2t7b4g4vsa5smi47k61mv5bv1a22bojr MX DNSKEY NS SOA NSEC3PARAM RRSIG )';
const APEX = { hash_algorithm: 1, flags: 1, iterations: 12, salt: 'AABBCCDD', next_hashed_owner: '2T7B4G4VSA5SMI47K61MV5BV1A22BOJR', types: ['NS', 'SOA', 'MX', 'RRSIG', 'DNSKEY', 'NSEC3PARAM'] };
/** APEX's rdata, its bitmap: window 0, 7 octets: NS SOA (0x22), MX (0x01), RRSIG (0x02), DNSKEY (0x80), NSEC3PARAM (0x10). */
const APEX_WIRE = `0101000c04aabbccdd14${base32hexOctets(APEX.next_hashed_owner)?.toString('hex')}` + '0007' + '22010000000290';

describe('NSEC3', () => {
  it("names RFC 5155 appendix A's hashes (base32hex of the iterated SHA-1)", () => {
    expect(nsec3Hash('example', 'AABBCCDD', 12)).toBe('0P9MHAVEQVM6T7VBL5LOP2U3T2RP3TOM');
    expect(nsec3Hash('ns1.example', 'AABBCCDD', 12)).toBe(APEX.next_hashed_owner);
    expect(nsec3Hash('x.w.example', 'AABBCCDD', 12)).toBe('B4UM86EGHHDS6NEA196SMVMLO4ORS995');
  });

  it('parses the RFC 5155 text and presents it as named-compilezone does: upper case, types in number order', () => {
    expect(parse('NSEC3', APEX_TEXT)).toEqual(APEX);
    expect(present('NSEC3', APEX)).toBe('1 1 12 AABBCCDD 2T7B4G4VSA5SMI47K61MV5BV1A22BOJR NS SOA MX RRSIG DNSKEY NSEC3PARAM');
    // No salt: "-". No types: an empty non-terminal (RFC 5155 3.2.1).
    const bare = parse('NSEC3', '1 0 0 - gjeqe526plbf1g8mklp59enfd789njgi');
    expect(bare).toEqual({ hash_algorithm: 1, flags: 0, iterations: 0, salt: '', next_hashed_owner: 'GJEQE526PLBF1G8MKLP59ENFD789NJGI', types: [] });
    expect(present('NSEC3', bare)).toBe('1 0 0 - GJEQE526PLBF1G8MKLP59ENFD789NJGI');
  });

  it('writes the rdata RFC 5155 3.2 lays out, and reads it back', () => {
    expect(wireHex('NSEC3', APEX)).toBe(APEX_WIRE);
    expect(fromWire('NSEC3', APEX_WIRE)).toEqual(APEX);
    const bare = { hash_algorithm: 1, flags: 0, iterations: 0, salt: '', next_hashed_owner: 'GJEQE526PLBF1G8MKLP59ENFD789NJGI', types: [] };
    expect(fromWire('NSEC3', wireHex('NSEC3', bare))).toEqual(bare);
    expect(wireHex('NSEC3', bare).slice(0, 12)).toBe('010000000014');
  });

  it('reads the generic form (RFC 3597) as the same data', () => {
    expect(parse('NSEC3', generic(APEX_WIRE))).toEqual(APEX);
  });

  it('refuses malformed rdata and text', () => {
    expect(() => fromWire('NSEC3', '0101000c04aabbccdd00')).toThrow(/empty/);
    expect(() => fromWire('NSEC3', '0101000c04aabbccdd14aa')).toThrow();
    expect(() => fromWire('NSEC3', `${APEX_WIRE.slice(0, -2)}00`)).toThrow(/zero octet/);
    expect(() => parse('NSEC3', '1 1 12 aabbccdd')).toThrow(/next hashed owner/);
    expect(() => parse('NSEC3', '1 1 12 aabbccdd 2t7b4g4vsa5smi47k61mv5bv1a22bojw')).toThrow(/base32hex/);
    expect(() => parse('NSEC3', '1 1 12 aabbccd 2t7b4g4vsa5smi47k61mv5bv1a22bojr')).toThrow(/salt/);
    expect(() => parse('NSEC3', '1 1 65536 - 2t7b4g4vsa5smi47k61mv5bv1a22bojr')).toThrow(/iterations/);
    expect(() => parse('NSEC3', '1 1 12 - 2t7b4g4vsa5smi47k61mv5bv1a22bojr A BOGUS')).toThrow(/BOGUS/);
  });

  it('normalises its fields and refuses what DNS cannot carry', () => {
    const lower = { ...APEX, salt: 'aabbccdd', next_hashed_owner: APEX.next_hashed_owner.toLowerCase(), types: ['RRSIG', 'ns', 'SOA', 'MX', 'DNSKEY', 'NSEC3PARAM'], extra: 1 };
    expect(validate('NSEC3', lower, { name: '0p9mhaveqvm6t7vbl5lop2u3t2rp3tom' })).toEqual({ data: APEX, fields: [], messages: [] });
    expect(validate('NSEC3', { ...APEX, types: [] }).fields).toEqual([]);
    const cases: [Record<string, unknown>, string][] = [
      [{ hash_algorithm: 256 }, 'hash_algorithm'],
      [{ flags: -1 }, 'flags'],
      [{ iterations: 65536 }, 'iterations'],
      [{ salt: 'ABC' }, 'salt'],
      [{ salt: 'AB'.repeat(256) }, 'salt'],
      [{ next_hashed_owner: '' }, 'next_hashed_owner'],
      [{ next_hashed_owner: 'W' }, 'next_hashed_owner'],
      [{ next_hashed_owner: '2T7B4G4VSA5SMI47K61MV5BV1A22BOJ' }, 'next_hashed_owner'],
      [{ types: ['A', 'NOPE'] }, 'types'],
    ];
    for (const [set, field] of cases) expect(validate('NSEC3', { ...APEX, ...set }).fields, JSON.stringify(set)).toEqual([field]);
  });
});

describe('NSEC3PARAM', () => {
  const DATA = { hash_algorithm: 1, flags: 0, iterations: 12, salt: 'AABBCCDD' };

  it('parses RFC 5155 appendix A\'s record and presents it as named-compilezone does', () => {
    expect(parse('NSEC3PARAM', '1 0 12 aabbccdd')).toEqual(DATA);
    expect(present('NSEC3PARAM', DATA)).toBe('1 0 12 AABBCCDD');
    expect(parse('NSEC3PARAM', '1 0 0 -')).toEqual({ ...DATA, iterations: 0, salt: '' });
    expect(present('NSEC3PARAM', { ...DATA, iterations: 0, salt: '' })).toBe('1 0 0 -');
    expect(() => parse('NSEC3PARAM', '1 0 0')).toThrow(/salt/);
    expect(() => parse('NSEC3PARAM', '1 0 0 - extra')).toThrow(/more fields/);
  });

  it('writes its rdata (NSEC3\'s first fields) and reads it back, also from the generic form', () => {
    expect(wireHex('NSEC3PARAM', DATA)).toBe('0100000c04aabbccdd');
    expect(fromWire('NSEC3PARAM', '0100000c04aabbccdd')).toEqual(DATA);
    expect(fromWire('NSEC3PARAM', '0100000000')).toEqual({ ...DATA, iterations: 0, salt: '' });
    expect(parse('NSEC3PARAM', generic('0100000c04aabbccdd'))).toEqual(DATA);
    expect(() => fromWire('NSEC3PARAM', '0100000c05aabbccdd')).toThrow();
    expect(() => fromWire('NSEC3PARAM', '0100000c04aabbccddee')).toThrow();
  });

  it('normalises its fields and refuses numbers out of range', () => {
    expect(validate('NSEC3PARAM', { ...DATA, salt: 'aabbccdd', x: 1 })).toEqual({ data: DATA, fields: [], messages: [] });
    expect(validate('NSEC3PARAM', { ...DATA, iterations: 70000, salt: 'x' }).fields).toEqual(['iterations', 'salt']);
  });

  it('are known to the registry, yet not types customers create', () => {
    expect(recordTypeByCode(50)?.type).toBe('NSEC3');
    expect(recordTypeByCode(51)?.type).toBe('NSEC3PARAM');
    expect(RECORD_TYPE_NAMES).not.toContain('NSEC3');
    expect(RECORD_TYPE_NAMES).not.toContain('NSEC3PARAM');
  });
});
