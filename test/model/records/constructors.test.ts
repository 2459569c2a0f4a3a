/**
 * The typed constructors the type modules give the signer and the zone builder (SOA, DNSKEY, DS, NSEC3PARAM,
 * NSEC3): the data they make is the module's own form, which its checks take and its wire form round-trips.
 */
import { describe, expect, it } from 'vitest';
import {
  CDNSKEY_DELETE,
  CDS_DELETE,
  dnskeyData,
  dsData,
  emailOfRname,
  negativeTtl,
  nsec3Data,
  nsec3Params,
  rnameOf,
  soaData,
} from '../../../src/model/records/index.js';
import { check, fromWire, parse, wireHex } from './support.js';

const KEY = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');

describe('typed constructors', () => {
  it('DNSKEY: flags, algorithm and key, protocol 3, the key in base64', () => {
    const data = dnskeyData(257, 13, KEY);
    expect(data).toEqual({ flags: 257, protocol: 3, algorithm: 13, public_key: KEY.toString('base64') });
    expect(fromWire('DNSKEY', wireHex('DNSKEY', data))).toEqual(data);
    expect(check('DNSKEY', data, { name: '', transferred: true }).problems).toEqual([]);
    expect(check('CDNSKEY', { ...CDNSKEY_DELETE }, { name: '', transferred: true }).problems).toEqual([]);
  });

  it('DS: the digest in upper-case hex; the CDS delete form passes', () => {
    const digest = Buffer.alloc(32, 0xab);
    const data = dsData(4711, 13, 2, digest);
    expect(data).toEqual({ key_tag: 4711, algorithm: 13, digest_type: 2, digest: 'AB'.repeat(32) });
    expect(fromWire('DS', wireHex('DS', data))).toEqual(data);
    expect(check('CDS', { ...CDS_DELETE }, { name: '', transferred: true }).problems).toEqual([]);
  });

  it('NSEC3PARAM and NSEC3: the salt in hex ("" for none), the next hash in base32hex', () => {
    const params = nsec3Params(1, 0, 0, Buffer.alloc(0));
    expect(params).toEqual({ hash_algorithm: 1, flags: 0, iterations: 0, salt: '' });
    expect(fromWire('NSEC3PARAM', wireHex('NSEC3PARAM', params))).toEqual(params);
    expect(nsec3Params(1, 0, 5, Buffer.from([0xaa, 0xbb])).salt).toBe('AABB');
    const data = nsec3Data(params, Buffer.alloc(20), ['A', 'RRSIG']);
    expect(data).toEqual({ ...params, next_hashed_owner: '0'.repeat(32), types: ['A', 'RRSIG'] });
    expect(fromWire('NSEC3', wireHex('NSEC3', data))).toEqual(data);
  });

  it('SOA: its fields read through soaData, the contact both ways, the negative TTL', () => {
    const soa = soaData({ data: parse('SOA', 'ns1.example.com. host\\.master.example.com. 7 3600 600 86400 300') });
    expect(soa).toEqual({ mname: 'ns1.example.com', rname: 'host\\.master.example.com', serial: 7, refresh: 3600, retry: 600, expire: 86400, minimum: 300 });
    expect(emailOfRname(soa.rname)).toBe('host.master@example.com');
    expect(rnameOf('host.master@example.com')).toBe(soa.rname);
    expect(negativeTtl(3600, soa)).toBe(300);
    expect(negativeTtl(60, soa)).toBe(60);
  });
});
