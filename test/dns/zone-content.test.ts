import { describe, expect, it } from 'vitest';
import type { StoredDomain } from '../../src/model/domain.js';
import type { StoredRecord } from '../../src/model/records/index.js';
import { packZone, parseZone, serialiseZone, unpackZone, zoneContent } from '../../src/model/zone.js';
import { zoneFile } from '../../src/model/zonefile.js';

const domain: StoredDomain = {
  id: 1, accountId: 1, domain: 'example.com', kind: 'master', soaEmail: 'first.last@example.com', description: '',
  refresh: 0, retry: 7200, expire: 0, ttl: 0, status: 1, masterIps: [], axfrIps: [], displayGroup: '', masterTsig: null, masterTls: false, masterTlsAuth: null, tags: [], primaryKind: 'native', serial: 2026112201,
};
const rec = (r: Partial<StoredRecord>): StoredRecord => ({ id: 1, domainId: 1, type: 'A', name: '', ttl: 0, data: {}, ...r });

describe('zoneContent', () => {
  const z = zoneContent(domain, [
    rec({ type: 'NS', data: { nameserver: 'NS1.example.net' } }),
    rec({ type: 'NS', data: { nameserver: 'ns9.example.net' }, ttl: 3600 }),
    rec({ type: 'TXT', name: 'Www', data: { text: 'x'.repeat(300) } }),
  ], ['ns1.example.net', 'ns2.example.net']);

  it('builds the SOA from the domain with defaults for 0', () => {
    expect(z.soa).toMatchObject({
      name: 'example.com', ttl: 86400,
      data: { mname: 'ns1.example.net', rname: 'first\\.last.example.com', serial: 2026112201, refresh: 14400, retry: 7200, expire: 1209600, minimum: 300 },
    });
  });

  it('merges configured and customer apex NS without duplicates and splits long TXT', () => {
    expect(z.answers.filter((a) => a.type === 'NS').map((a) => a.data.nameserver)).toEqual(['ns1.example.net', 'ns2.example.net', 'ns9.example.net']);
    const txt = z.answers.find((a) => a.type === 'TXT');
    expect(txt?.name).toBe('Www.example.com');
    expect(zoneFile(z)).toContain(`Www.example.com.\t86400\tIN\tTXT\t"${'x'.repeat(255)}" "${'x'.repeat(45)}"`);
  });

  it('the zone file gives every record of an RRset the lowest TTL among them, as queries get', () => {
    const ttls = zoneContent(domain, [
      rec({ type: 'A', name: 'Www', data: { address: '192.0.2.1' }, ttl: 3600 }),
      rec({ type: 'A', name: 'www', data: { address: '192.0.2.2' }, ttl: 300 }),
      rec({ type: 'AAAA', name: 'www', data: { address: '2001:db8::1' }, ttl: 3600 }),
      rec({ type: 'NS', data: { nameserver: 'ns9.example.net' }, ttl: 600 }),
    ], ['ns1.example.net']);
    const lines = zoneFile(ttls).split('\n').filter((l) => /^(www|example)/i.test(l)).map((l) => l.split('\t').slice(1, 4).join(' '));
    expect(lines).toEqual(['86400 IN SOA', '600 IN NS', '300 IN A', '300 IN A', '3600 IN AAAA', '600 IN NS']);
  });

  it('survives serialiseZone/parseZone unchanged', () => {
    const back = parseZone(serialiseZone(z));
    expect(back).toEqual(z);
    expect(() => parseZone('{"answers":[]}')).toThrow();
  });

  it('survives packZone/unpackZone unchanged, owners inside and outside the zone alike', () => {
    const odd = { soa: z.soa, answers: [...z.answers, ...['a\\..example.com', 'b.c.example.com', 'example.org', 'other.com', 'xexample.com'].map((name) => ({ type: 'A', name, ttl: 5, data: { address: '192.0.2.1' } }))] };
    expect(unpackZone(packZone(odd))).toEqual(odd);
  });
});
