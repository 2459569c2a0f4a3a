/** Authoritative answers as dig and kdig see them, for zones written through interface A (interface B for types A lacks). */
import * as dnsPacket from 'dns-packet';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDns } from '../../src/dns/server/server.js';
import { serialiseZone, type ZoneContent } from '../../src/model/zone.js';
import { startServer } from '../../src/server.js';
import { transfer } from '../support/knot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { client } from '../v1/support.js';
import { data } from '../v3/support.js';
import { createDomain, createRecord, dig, kdig, rrs, udpExchange } from './support.js';
import { peers } from '../support/peers.js';

const needsDig = peers('dig');
const needsDigKdig = peers('dig', 'kdig');
const needsKdig = peers('kdig');

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startTestServer();
  key = (await server.user('alice')).key;
});
afterAll(() => server.close());

let zoneCount = 0;
/** A fresh zone per test, with the given records (interface A fields). */
async function zone(records: Record<string, string | number>[] = [], extra: Record<string, string | number> = {}) {
  const name = `z${++zoneCount}.example.com`;
  const id = await createDomain(server.base, key, name, extra);
  for (const r of records) await createRecord(server.base, key, id, r);
  return { id, name };
}

const soaLine = (a: { authority: { type: string }[] }) => a.authority.filter((r) => r.type === 'SOA');

describe('answers', () => {
  needsDig.it('answers authoritatively with the SOA built from the domain and documented defaults for 0', async () => {
    const { name } = await zone([], { Refresh_sec: 7200, SOA_Email: 'dns.admin@example.net' });
    const a = await dig(server, name, 'SOA');
    expect(a.status).toBe('NOERROR');
    expect(a.flags).toContain('aa');
    expect(a.answer).toHaveLength(1);
    const [mname, rname, serial, refresh, retry, expire, minimum] = (a.answer[0]?.data ?? '').split(' ');
    expect([mname, rname, refresh, retry, expire, minimum]).toEqual(['ns1.zonehost.test.', 'dns\\.admin.example.net.', '7200', '14400', '1209600', '300']);
    expect(Number(serial)).toBeGreaterThan(0);
    expect(a.answer[0]?.ttl).toBe(86400);
  });

  needsDig.it('serves the configured name servers plus the customer apex NS records, without duplicates', async () => {
    const { name } = await zone([
      { Type: 'NS', Name: '', Target: 'ns1.zonehost.test' },
      { Type: 'NS', Name: '', Target: 'ns.other.example' },
    ]);
    const a = await dig(server, name, 'NS');
    expect(a.flags).toContain('aa');
    expect(a.answer.map((r) => r.data).sort()).toEqual(['ns.other.example.', 'ns1.zonehost.test.', 'ns2.zonehost.test.']);
  });

  needsDigKdig.it('uses the record TTL, the domain default for 0, and echoes the question case', async () => {
    const { name } = await zone([
      { Type: 'A', Name: 'www', Target: '192.0.2.1', TTL_sec: 300 },
      { Type: 'A', Name: 'www', Target: '192.0.2.2', TTL_sec: 300 },
      { Type: 'AAAA', Name: 'Host', Target: '2001:db8::1' },
    ], { TTL_sec: 3600 });
    const upper = `WwW.${name.toUpperCase()}`;
    const a = await dig(server, upper, 'A');
    expect(a.question).toBe(`${upper}. IN A`);
    expect(rrs(a.answer)).toEqual([`${upper}. 300 A 192.0.2.1`, `${upper}. 300 A 192.0.2.2`]);
    // Asked again in another case (answered from the response cache): that case is echoed.
    const lower = `www.${name}`;
    const again = await dig(server, lower, 'A');
    expect(again.question).toBe(`${lower}. IN A`);
    expect(rrs(again.answer)).toEqual([`${lower}. 300 A 192.0.2.1`, `${lower}. 300 A 192.0.2.2`]);
    expect(rrs((await dig(server, upper, 'A')).answer)).toEqual([`${upper}. 300 A 192.0.2.1`, `${upper}. 300 A 192.0.2.2`]);
    const b = await kdig(server, `host.${name}`, 'AAAA');
    // One set, one TTL (RFC 2181 5.2): records given different TTLs are served at the lowest.
    const { name: mixed } = await zone([
      { Type: 'A', Name: 'mix', Target: '192.0.2.1', TTL_sec: 3600 },
      { Type: 'A', Name: 'mix', Target: '192.0.2.2', TTL_sec: 300 },
    ]);
    expect((await dig(server, `mix.${mixed}`, 'A')).answer.map((r) => r.ttl)).toEqual([300, 300]);
    expect(rrs(b.answer)).toEqual([`host.${name}. 3600 AAAA 2001:db8::1`]);
  });

  needsDig.it('tells NODATA from NXDOMAIN, with the SOA in authority at the RFC 2308 TTL, also for empty non-terminals', async () => {
    const { name } = await zone([{ Type: 'A', Name: 'a.b', Target: '192.0.2.1' }]);
    const nodata = await dig(server, `a.b.${name}`, 'MX');
    expect(nodata.status).toBe('NOERROR');
    expect(nodata.answer).toEqual([]);
    expect(soaLine(nodata)).toHaveLength(1);
    expect(nodata.authority[0]?.ttl).toBe(300);
    const ent = await dig(server, `b.${name}`, 'A');
    expect([ent.status, ent.answer.length, soaLine(ent).length]).toEqual(['NOERROR', 0, 1]);
    const nx = await dig(server, `c.b.${name}`, 'A');
    expect(nx.status).toBe('NXDOMAIN');
    expect(nx.flags).toContain('aa');
    expect(soaLine(nx)).toHaveLength(1);
    expect(nx.authority[0]?.name).toBe(`${name}.`);
  });

  needsDig.it('follows CNAME chains inside the zone and stops at names outside it', async () => {
    const { name } = await zone([
      { Type: 'CNAME', Name: 'one', Target: `two.${name2(zoneCount + 1)}` },
      { Type: 'CNAME', Name: 'two', Target: `www.${name2(zoneCount + 1)}` },
      { Type: 'A', Name: 'www', Target: '192.0.2.7' },
      { Type: 'CNAME', Name: 'out', Target: 'www.example.org' },
      { Type: 'CNAME', Name: 'dangling', Target: `missing.${name2(zoneCount + 1)}` },
      { Type: 'CNAME', Name: 'loop1', Target: `loop2.${name2(zoneCount + 1)}` },
      { Type: 'CNAME', Name: 'loop2', Target: `loop1.${name2(zoneCount + 1)}` },
    ]);
    const a = await dig(server, `one.${name}`, 'A');
    expect(a.status).toBe('NOERROR');
    expect(rrs(a.answer)).toEqual([`one.${name}. 86400 CNAME two.${name}.`, `two.${name}. 86400 CNAME www.${name}.`, `www.${name}. 86400 A 192.0.2.7`]);
    const cname = await dig(server, `one.${name}`, 'CNAME');
    expect(rrs(cname.answer)).toEqual([`one.${name}. 86400 CNAME two.${name}.`]);
    const out = await dig(server, `out.${name}`, 'A');
    expect([out.status, rrs(out.answer)]).toEqual(['NOERROR', [`out.${name}. 86400 CNAME www.example.org.`]]);
    const dangling = await dig(server, `dangling.${name}`, 'A');
    expect(dangling.status).toBe('NXDOMAIN');
    expect(dangling.answer.map((r) => r.type)).toEqual(['CNAME']);
    const loop = await dig(server, `loop1.${name}`, 'A');
    expect(loop.status).toBe('NOERROR');
    expect(loop.answer.map((r) => r.type)).toEqual(['CNAME', 'CNAME']);
  });

  needsDig.it('synthesises answers from wildcards (RFC 4592) but not for names that exist', async () => {
    const { name } = await zone([
      { Type: 'A', Name: '*.wild', Target: '192.0.2.9' },
      { Type: 'TXT', Name: 'real.wild', Target: 'exists' },
      { Type: 'A', Name: 'x.deep.wild', Target: '192.0.2.10' },
    ]);
    const a = await dig(server, `Foo.wild.${name}`, 'A');
    expect(a.flags).toContain('aa');
    expect(rrs(a.answer)).toEqual([`Foo.wild.${name}. 86400 A 192.0.2.9`]);
    expect(rrs((await dig(server, `a.b.c.wild.${name}`, 'A')).answer)).toEqual([`a.b.c.wild.${name}. 86400 A 192.0.2.9`]);
    const wildNodata = await dig(server, `foo.wild.${name}`, 'MX');
    expect([wildNodata.status, wildNodata.answer.length, soaLine(wildNodata).length]).toEqual(['NOERROR', 0, 1]);
    const real = await dig(server, `real.wild.${name}`, 'A');
    expect([real.status, real.answer.length]).toEqual(['NOERROR', 0]);
    // "deep" exists as an empty non-terminal, so the wildcard one level up does not cover names below it.
    expect((await dig(server, `y.deep.wild.${name}`, 'A')).status).toBe('NXDOMAIN');
    expect((await dig(server, `other.${name}`, 'A')).status).toBe('NXDOMAIN');
  });

  needsDig.it('refers delegated names to their name servers with glue and without AA', async () => {
    const { name } = await zone([
      { Type: 'NS', Name: 'sub', Target: `ns1.sub.${name2(zoneCount + 1)}` },
      { Type: 'NS', Name: 'sub', Target: 'ns.elsewhere.example' },
      { Type: 'A', Name: 'ns1.sub', Target: '192.0.2.53' },
      { Type: 'AAAA', Name: 'ns1.sub', Target: '2001:db8::53' },
      { Type: 'CNAME', Name: 'tosub', Target: `host.sub.${name2(zoneCount + 1)}` },
    ]);
    // A CNAME into the delegation: the alias (authoritative), then the referral for its target, as knotd answers.
    const alias = await dig(server, `tosub.${name}`, 'A');
    expect([alias.status, alias.flags]).toEqual(['NOERROR', expect.arrayContaining(['aa'])]);
    expect(rrs(alias.answer)).toEqual([`tosub.${name}. 86400 CNAME host.sub.${name}.`]);
    expect(rrs(alias.authority)).toEqual([`sub.${name}. 86400 NS ns.elsewhere.example.`, `sub.${name}. 86400 NS ns1.sub.${name}.`]);
    expect(rrs(alias.additional)).toEqual([`ns1.sub.${name}. 86400 A 192.0.2.53`, `ns1.sub.${name}. 86400 AAAA 2001:db8::53`]);
    for (const q of [`www.sub.${name}`, `sub.${name}`]) {
      const a = await dig(server, q, 'A');
      expect(a.status).toBe('NOERROR');
      expect(a.flags).not.toContain('aa');
      expect(a.answer).toEqual([]);
      expect(rrs(a.authority)).toEqual([`sub.${name}. 86400 NS ns.elsewhere.example.`, `sub.${name}. 86400 NS ns1.sub.${name}.`]);
      expect(rrs(a.additional)).toEqual([`ns1.sub.${name}. 86400 A 192.0.2.53`, `ns1.sub.${name}. 86400 AAAA 2001:db8::53`]);
    }
    const ds = await dig(server, `sub.${name}`, 'DS');
    expect(ds.flags).toContain('aa');
    expect(soaLine(ds)).toHaveLength(1);
  });

  needsKdig.it('answers a DS query at a delegation itself (the parent side of the cut) with AA, and refers names below it', async () => {
    const { id, name } = await zone([{ Type: 'NS', Name: 'sub', Target: 'ns.elsewhere.example' }]);
    // Interface A has no DS.
    const digest = '2E7D2C03A9507AE265ECF5B5356885A53393A2029D241394997265A1A25AEFC6';
    const made = await client(server.base, key).post(`/v1/domains/${id}/DS`, { name: 'sub', key_tag: 12345, algorithm: 13, digest_type: 2, digest });
    expect(made.status, made.text).toBe(201);
    const ds = await kdig(server, `sub.${name}`, 'DS');
    expect([ds.status, ds.flags]).toEqual(['NOERROR', expect.arrayContaining(['aa'])]);
    expect(rrs(ds.answer)).toEqual([`sub.${name}. 86400 DS 12345 13 2 ${digest}`]);
    expect(ds.authority).toEqual([]);
    const below = await kdig(server, `www.sub.${name}`, 'DS');
    expect([below.status, below.flags, below.answer]).toEqual(['NOERROR', expect.not.arrayContaining(['aa']), []]);
    expect(rrs(below.authority)).toEqual([`sub.${name}. 86400 NS ns.elsewhere.example.`]);
  });

  needsDig.it('adds in-zone addresses of MX, SRV and NS targets to the additional section', async () => {
    const { name } = await zone([
      { Type: 'MX', Name: '', Target: `mail.${name2(zoneCount + 1)}`, Priority: 10 },
      { Type: 'MX', Name: '', Target: 'mx.example.org', Priority: 20 },
      { Type: 'A', Name: 'mail', Target: '192.0.2.25' },
      { Type: 'SRV', Name: '_sip._tcp', Target: `sip.${name2(zoneCount + 1)}`, Port: 5060, Priority: 1, Weight: 2 },
      { Type: 'AAAA', Name: 'sip', Target: '2001:db8::5060' },
    ]);
    const mx = await dig(server, name, 'MX');
    expect(rrs(mx.answer)).toEqual([`${name}. 86400 MX 10 mail.${name}.`, `${name}. 86400 MX 20 mx.example.org.`]);
    expect(rrs(mx.additional)).toEqual([`mail.${name}. 86400 A 192.0.2.25`]);
    const srv = await dig(server, `_sip._tcp.${name}`, 'SRV');
    expect(rrs(srv.answer)).toEqual([`_sip._tcp.${name}. 86400 SRV 1 2 5060 sip.${name}.`]);
    expect(rrs(srv.additional)).toEqual([`sip.${name}. 86400 AAAA 2001:db8::5060`]);
  });

  needsKdig.it('serves long TXT values as 255-byte strings that join back to the value', async () => {
    const value = 'v=' + 'x'.repeat(300) + 'é'.repeat(200);
    const { id, name } = await zone();
    await data(server.base, { api_action: 'domain.resource.create', api_key: key, DomainID: id, Type: 'TXT', Name: 'long', Target: value }, { transport: 'POST-form' });
    const a = await kdig(server, `long.${name}`, 'TXT', '+tcp');
    const strings = [...(a.answer[0]?.data ?? '').matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] ?? '');
    expect(strings.length).toBe(3);
    // kdig prints non-ASCII bytes as \DDD escapes.
    const bytes = Buffer.from(strings.join('').replace(/\\(\d{3})/g, (_m, d: string) => String.fromCharCode(Number(d))), 'latin1');
    expect(bytes.toString('utf8')).toBe(value);
  });

  needsDigKdig.it('serves CAA records (flags 0, the tag, the value) at the apex and below, as dig and kdig read them', async () => {
    const { name } = await zone([
      { Type: 'CAA', Name: '', Tag: 'issue', Target: 'letsencrypt.org' },
      { Type: 'CAA', Name: '', Tag: 'issue', Target: 'letsencrypt.org; validationmethods=dns-01' },
      { Type: 'CAA', Name: '', Tag: 'iodef', Target: 'mailto:security@example.com' },
      { Type: 'CAA', Name: 'shop', Tag: 'issuewild', Target: ';' },
    ]);
    const apex = await kdig(server, name, 'CAA');
    expect(apex.flags).toContain('aa');
    // kdig ends CAA data with a space.
    expect(apex.answer.map((r) => `${r.type} ${r.data.trim()}`).sort()).toEqual([
      'CAA 0 iodef "mailto:security@example.com"',
      'CAA 0 issue "letsencrypt.org"',
      'CAA 0 issue "letsencrypt.org; validationmethods=dns-01"',
    ]);
    const shop = await dig(server, `shop.${name}`, 'CAA');
    expect(shop.answer.map((r) => `${r.type} ${r.data}`)).toEqual(['CAA 0 issuewild ";"']);
    // Nothing is made up below: a CA climbs to the parent itself (RFC 8659 3).
    expect((await dig(server, `www.shop.${name}`, 'CAA')).status).toBe('NXDOMAIN');
  });

  needsDig.it('refuses names it does not host, clears RA, copies RD', async () => {
    await zone();
    const a = await dig(server, 'www.example.org', 'A', '+rec');
    expect(a.status).toBe('REFUSED');
    expect(a.flags).toContain('rd');
    expect(a.flags).not.toContain('ra');
    expect(a.flags).not.toContain('aa');
    const b = await dig(server, 'example.com', 'A', '+rec');
    expect(b.status).toBe('REFUSED');
    const c = await dig(server, `${name2(zoneCount)}`, 'SOA', '+rec');
    expect(c.flags).toEqual(expect.arrayContaining(['qr', 'aa', 'rd']));
    expect(c.flags).not.toContain('ra');
    expect((await dig(server, name2(zoneCount), 'SOA', '+norec')).flags).not.toContain('rd');
    expect((await dig(server, name2(zoneCount), 'SOA', '-c', 'CH')).status).toBe('REFUSED');
  });

  needsDig.it('answers NOTIMP for opcodes it does not implement', async () => {
    const { name } = await zone();
    const a = await dig(server, name, 'SOA', '+opcode=2');
    expect(a.status).toBe('NOTIMP');
    expect((await dig(server, name, 'SOA', '+opcode=3')).status).toBe('NOTIMP');
    // UPDATE is implemented: unsigned, it is refused (RFC 2136 3.3; test/dns/update.test.ts).
    expect((await dig(server, name, 'SOA', '+opcode=5')).status).toBe('REFUSED');
  });
});

describe('changes', () => {
  needsDig.it('shows every API change on the very next query', async () => {
    const { id, name } = await zone();
    const rid = await createRecord(server.base, key, id, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
    expect(rrs((await dig(server, `www.${name}`, 'A')).answer)).toEqual([`www.${name}. 86400 A 192.0.2.1`]);
    await data(server.base, { api_action: 'domain.resource.update', api_key: key, DomainID: id, ResourceID: rid, Target: '192.0.2.2' });
    expect(rrs((await dig(server, `www.${name}`, 'A')).answer)).toEqual([`www.${name}. 86400 A 192.0.2.2`]);
    const before = Number((await dig(server, name, 'SOA')).answer[0]?.data.split(' ')[2]);
    await data(server.base, { api_action: 'domain.resource.delete', api_key: key, DomainID: id, ResourceID: rid });
    expect((await dig(server, `www.${name}`, 'A')).status).toBe('NXDOMAIN');
    expect(Number((await dig(server, name, 'SOA')).answer[0]?.data.split(' ')[2])).toBeGreaterThan(before);
    await data(server.base, { api_action: 'domain.update', api_key: key, DomainID: id, TTL_sec: 300 });
    expect((await dig(server, name, 'SOA')).answer[0]?.ttl).toBe(300);
    await data(server.base, { api_action: 'domain.update', api_key: key, DomainID: id, Domain: `renamed-${name}` });
    expect((await dig(server, name, 'SOA')).status).toBe('REFUSED');
    expect((await dig(server, `renamed-${name}`, 'SOA')).status).toBe('NOERROR');
    await data(server.base, { api_action: 'domain.delete', api_key: key, DomainID: id });
    expect((await dig(server, `renamed-${name}`, 'SOA')).status).toBe('REFUSED');
  });

  it('shows each write on the next query while other writes to the zone go on', async () => {
    const { id, name } = await zone();
    const other = await zone([{ Type: 'A', Name: 'www', Target: '192.0.2.1' }]);
    await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        for (let j = 0; j < 3; j++) {
          const host = `w${i}-${j}`;
          await createRecord(server.base, key, id, { Type: 'A', Name: host, Target: `192.0.2.${i * 3 + j + 1}` });
          // Asked from this process the moment the API has answered (dig would start too late to catch a race).
          expect(await udpQuery(`${host}.${name}`)).toEqual([`192.0.2.${i * 3 + j + 1}`]);
          expect(await udpQuery(`www.${other.name}`)).toEqual(['192.0.2.1']);
        }
      }),
    );
  });

  needsDig.it('does not serve inactive domains; edit mode is served like active', async () => {
    const { id, name } = await zone([{ Type: 'A', Name: 'www', Target: '192.0.2.1' }]);
    await data(server.base, { api_action: 'domain.update', api_key: key, DomainID: id, status: 0 });
    expect((await dig(server, `www.${name}`, 'A')).status).toBe('REFUSED');
    await data(server.base, { api_action: 'domain.update', api_key: key, DomainID: id, status: 2 });
    expect(rrs((await dig(server, `www.${name}`, 'A')).answer)).toEqual([`www.${name}. 86400 A 192.0.2.1`]);
    const inactive = await zone([], { status: 0 });
    expect((await dig(server, inactive.name, 'SOA')).status).toBe('REFUSED');
  });

  needsDig.it('serves a zone mirror from its last good copy until the copy expires', async () => {
    const name = `mirror${++zoneCount}.example.com`;
    const id = (await data(server.base, { api_action: 'domain.create', api_key: key, Domain: name, Type: 'slave', master_ips: '127.0.0.9' })).DomainID;
    expect((await dig(server, name, 'SOA')).status).toBe('REFUSED');
    const copy = (expire: number, serial: number): ZoneContent => ({
      soa: { type: 'SOA', name, ttl: 3600, data: { mname: 'ns.primary.example', rname: 'hostmaster.primary.example', serial, refresh: 3600, retry: 600, expire, minimum: 60 } },
      answers: [
        { type: 'NS', name, ttl: 3600, data: { nameserver: 'ns.primary.example' } },
        { type: 'A', name: `www.${name}`, ttl: 120, data: { address: '198.51.100.7' } },
      ],
    });
    await server.services.mirrors.transferred(id, name, 7, serialiseZone(copy(86400, 7)));
    const a = await dig(server, `www.${name}`, 'A');
    expect(a.flags).toContain('aa');
    expect(rrs(a.answer)).toEqual([`www.${name}. 120 A 198.51.100.7`]);
    expect((await dig(server, `nx.${name}`, 'A')).authority[0]?.ttl).toBe(60);
    // A copy whose SOA expire time has already passed since the transfer is no longer served.
    await server.services.mirrors.transferred(id, name, 8, serialiseZone(copy(0, 8)));
    expect((await dig(server, `www.${name}`, 'A')).status).toBe('REFUSED');
  });

  needsDig.it('serves zones loaded from the store at start', async () => {
    const { name } = await zone([{ Type: 'A', Name: 'www', Target: '192.0.2.1' }]);
    // A second node over the same database (startServer, so closing it leaves the database alone).
    const second = await startServer({ http: null, dns: { host: '127.0.0.1', port: 0 }, db: server.db, nameservers: ['ns1.zonehost.test', 'ns2.zonehost.test'], logLevel: 'silent' });
    try {
      expect(rrs((await dig({ ...server, dnsAddress: second.dnsAddress }, `www.${name}`, 'A')).answer)).toEqual([`www.${name}. 86400 A 192.0.2.1`]);
    } finally {
      await second.close();
    }
  });
});

describe('EDNS and truncation', () => {
  needsDig.it('echoes OPT with our UDP size, copies DO, and answers BADVERS for unknown versions', async () => {
    const { name } = await zone();
    const a = await dig(server, name, 'SOA', '+bufsize=4096');
    expect(a.edns).toMatch(/version: 0, flags:; udp: 1232/);
    expect((await dig(server, name, 'SOA', '+dnssec')).edns).toMatch(/flags: do;/);
    expect((await dig(server, name, 'SOA', '+noedns')).edns).toBeNull();
    const bad = await dig(server, name, 'SOA', '+edns=1', '+noednsnegotiation');
    expect(bad.status).toBe('BADVERS');
    expect(bad.answer).toEqual([]);
    expect(bad.edns).toMatch(/version: 0/);
  });

  needsDig.it('sets TC when a UDP answer does not fit and answers in full over TCP', async () => {
    const { name } = await zone(Array.from({ length: 8 }, (_, i) => ({ Type: 'TXT', Name: 'big', Target: `${i}${'t'.repeat(200)}` })));
    const truncated = await dig(server, `big.${name}`, 'TXT', '+ignore', '+noedns');
    expect(truncated.flags).toContain('tc');
    expect(truncated.answer).toEqual([]);
    // 8 x ~215 bytes does not fit 1232 either.
    expect((await dig(server, `big.${name}`, 'TXT', '+ignore')).flags).toContain('tc');
    const retried = await dig(server, `big.${name}`, 'TXT');
    expect(retried.flags).not.toContain('tc');
    expect(retried.answer).toHaveLength(8);
    expect(retried.raw).toMatch(/\(TCP\)/);
    const small = await dig(server, name, 'SOA', '+ignore', '+noedns');
    expect(small.flags).not.toContain('tc');
  });

  needsKdig.it('sets TC when the glue of in-domain name servers in a referral does not fit (RFC 9471 3.1), not for sibling glue', async () => {
    const next = name2(zoneCount + 1);
    const servers = (cut: string, host: (i: number) => string) =>
      Array.from({ length: 8 }, (_, i) => [
        { Type: 'NS', Name: cut, Target: `${host(i)}.${next}` },
        { Type: 'A', Name: host(i), Target: `192.0.2.${100 + i}` },
        { Type: 'AAAA', Name: host(i), Target: `2001:db8::${100 + i}` },
      ]).flat();
    // deleg's name servers are inside deleg (their glue is needed); side's are elsewhere in the zone (siblings).
    const { name } = await zone([...servers('deleg', (i) => `nameserver-number-0${i}.deleg`), ...servers('side', (i) => `nameserver-number-0${i}.hosts`)]);
    const cut = await kdig(server, `www.deleg.${name}`, 'A', '+noedns', '+ignore');
    expect(cut.flags).toContain('tc');
    expect(cut.authority).toHaveLength(8);
    expect(cut.additional.length).toBeLessThan(16);
    const full = await kdig(server, `www.deleg.${name}`, 'A', '+noedns');
    expect([full.flags, full.additional.length, full.raw]).toEqual([expect.not.arrayContaining(['tc']), 16, expect.stringMatching(/\(TCP\)/)]);
    const sibling = await kdig(server, `www.side.${name}`, 'A', '+noedns', '+ignore');
    expect(sibling.flags).not.toContain('tc');
    expect(sibling.authority).toHaveLength(8);
    expect(sibling.additional.length).toBeLessThan(16);
  });

  needsKdig.it('answers an RRset too large for one DNS message with TC over UDP and SERVFAIL over TCP, logged; AXFR sends it', async () => {
    const { id, name } = await zone([], { axfr_ips: '127.0.0.1' });
    // 5 x 64,000 bytes (more than twice the largest message) and 2 x 40,000 bytes (more than one). The APIs
    // refuse such sets, but a mirror's master may send one and older data may hold one: written to the store.
    const txt = async (host: string, count: number, size: number) => {
      for (let i = 0; i < count; i++) {
        const rec = { type: 'TXT', name: host, ttl: 0, data: { text: `${i}${'x'.repeat(size - 1)}` } };
        await server.services.store.transaction((tx) => tx.insertRecord(id, rec, Date.now()));
      }
    };
    await txt('huge', 5, 64_000);
    await txt('big', 2, 40_000);
    // A DNS listener of its own over the same services, to read what it logs.
    const logged: { level: number; msg: string; zone?: string; name?: string }[] = [];
    const dns = await startDns(server.services, { host: '127.0.0.1', port: 0, nameservers: [...server.nameservers], log: pino({ level: 'warn' }, { write: (line: string) => logged.push(JSON.parse(line)) }) });
    try {
      const at = { ...server, dnsAddress: dns.address };
      for (const host of ['huge', 'big']) {
        const udp = await kdig(at, `${host}.${name}`, 'TXT', '+ignore');
        expect([udp.status, udp.flags, udp.answer]).toEqual(['NOERROR', ['qr', 'aa', 'tc'], []]);
        // Over TCP there is no larger message for TC to send the client to.
        const tcp = await kdig(at, `${host}.${name}`, 'TXT', '+tcp');
        expect([tcp.status, tcp.flags, tcp.answer]).toEqual(['SERVFAIL', ['qr'], []]);
      }
      expect(logged.filter((l) => l.level === 40).map((l) => [l.msg, l.zone, l.name])).toEqual(
        ['huge', 'big'].map((host) => ['answer too large for one DNS message; SERVFAIL', name, `${host}.${name}`]),
      );
    } finally {
      await dns.close();
    }
    // A zone transfer spreads the set over several messages, a record or more in each.
    const axfr = await transfer(server, '127.0.0.1', name, 'AXFR');
    expect(axfr.status).toBe('NOERROR');
    expect(axfr.records.filter((r) => r.includes(' TXT ')).map((r) => r.split(' ')[0])).toEqual([...Array(5).fill(`huge.${name}.`), ...Array(2).fill(`big.${name}.`)]);
  });

  needsDig.it("negotiates the UDP size: the client's when smaller than 1232, at least 512", async () => {
    // About 900 bytes of TXT: fits 1232 and 1000, not 600 (nor 512 without EDNS).
    const { name } = await zone(Array.from({ length: 4 }, (_, i) => ({ Type: 'TXT', Name: 'mid', Target: `${i}${'m'.repeat(200)}` })));
    const sizes = async (...args: string[]) => (await dig(server, `mid.${name}`, 'TXT', '+ignore', ...args)).flags.includes('tc');
    expect(await sizes('+bufsize=4096')).toBe(false);
    expect(await sizes('+bufsize=1000')).toBe(false);
    expect(await sizes('+bufsize=600')).toBe(true);
    expect(await sizes('+bufsize=100')).toBe(true);
    expect(await sizes('+noedns')).toBe(true);
  });

  needsDig.it('answers several queries on one TCP connection', async () => {
    const { name } = await zone([{ Type: 'A', Name: 'www', Target: '192.0.2.1' }]);
    const out = await dig(server, '+tcp', '+keepopen', `www.${name}`, 'A', name, 'SOA', `nx.${name}`, 'A');
    expect(out.raw.match(/status: NOERROR/g)).toHaveLength(2);
    expect(out.raw.match(/status: NXDOMAIN/g)).toHaveLength(1);
  });
});

/** A's of a name, asked over UDP from this process; NXDOMAIN and NODATA give []. */
async function udpQuery(name: string): Promise<string[]> {
  const reply = await udpExchange(server.dnsAddress?.port, dnsPacket.encode({ type: 'query', id: 1, questions: [{ type: 'A', name, class: 'IN' }] }));
  return (dnsPacket.decode(reply).answers ?? []).map((a) => String((a as { data: unknown }).data));
}

/** The name the next zone() call will create (for records that point into their own zone). */
function name2(n: number): string {
  return `z${n}.example.com`;
}
