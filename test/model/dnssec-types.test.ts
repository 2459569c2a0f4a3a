/**
 * DNSSEC's record types (`dnssec: true`): never a customer's, taken only from a master by a zone mirror
 * (checkRecord with `transferred`), and allowed beside a CNAME in a mirrored zone (RFC 4035 2.5).
 */
import { describe, expect, it } from 'vitest';
import { checkRecord, recordType, RECORD_TYPE_NAMES, type RecordData } from '../../src/model/records/index.js';
import { checkZone } from '../../src/model/zone-rules.js';

const RRSIG = { type_covered: 'CNAME', algorithm: 13, labels: 3, original_ttl: 300, expiration: 1900000000, inception: 1700000000, key_tag: 4711, signer_name: 'example.com', signature: 'AAAA' };
const NSEC = { next_domain: 'www.example.com', types: ['CNAME', 'RRSIG', 'NSEC'] };
const DNSSEC_TYPES = ['DNSKEY', 'CDNSKEY', 'CDS', 'RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM'];

const rec = (type: string, name: string, data: Record<string, unknown>): RecordData => ({ type, name, ttl: 0, data: { ...data } });

describe('DNSSEC types', () => {
  it('are the seven the signer makes; none is hosted, SOA and DS are not among them', () => {
    for (const t of DNSSEC_TYPES) expect(recordType(t)).toMatchObject({ dnssec: true, hosted: false });
    expect(recordType('SOA')?.dnssec).toBeUndefined();
    expect(recordType('DS')?.dnssec).toBeUndefined();
    for (const t of DNSSEC_TYPES) expect(RECORD_TYPE_NAMES).not.toContain(t);
  });

  it('pass checkRecord only as transferred from a master; SOA never', () => {
    expect(checkRecord(rec('RRSIG', 'alias', RRSIG), { zone: 'example.com' }).list.map((p) => p.field)).toEqual(['type']);
    expect(checkRecord(rec('RRSIG', 'alias', RRSIG), { zone: 'example.com', transferred: true }).empty).toBe(true);
    expect(checkRecord(rec('NSEC', 'alias', NSEC), { zone: 'example.com', transferred: true }).empty).toBe(true);
    const soa = { mname: 'ns.example.com', rname: 'admin.example.com', serial: 1, refresh: 3600, retry: 600, expire: 86400, minimum: 300 };
    expect(checkRecord(rec('SOA', '', soa), { zone: 'example.com', transferred: true }).list.map((p) => p.field)).toEqual(['type']);
  });

  it('may sit beside a CNAME in a zone a master sent; other data still may not', () => {
    const cname = rec('CNAME', 'alias', { target: 'www.example.com' });
    expect(checkZone([cname, rec('RRSIG', 'alias', RRSIG), rec('NSEC', 'alias', NSEC)], 'example.com').error).toBeNull();
    expect(checkZone([cname, rec('RRSIG', 'alias', RRSIG), rec('A', 'alias', { address: '192.0.2.1' })], 'example.com').error).toMatch(/CNAME cannot share its name with other records \(CNAME, A\)/);
  });
});
