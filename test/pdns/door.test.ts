/**
 * The PowerDNS door as its clients see it: requests against a running node, checked through the door itself,
 * interface B (ids, the journal) and DNS (dig), and hostile requests: wrong types, huge bodies, bad names,
 * unknown and other accounts' zones — always PowerDNS's `{"error"}` with a 4xx, never a 5xx, nothing half-written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dig, rrs } from '../dns/support.js';
import { peers } from '../support/peers.js';
import { prng } from '../support/random.js';
import { rawRequest } from '../support/raw-http.js';
import { startTestServer, v3, type TestServer } from '../support/server.js';
import { call } from '../v1/support.js';
import { pdns, pdnsZone, rrset, rrsetLines } from './support.js';

const needsDig = peers('dig');

let server: TestServer;
let key: string;
let otherKey: string;
beforeAll(async () => {
  server = await startTestServer();
  key = (await server.user('alice')).key;
  otherKey = (await server.user('bob')).key;
});
afterAll(() => server.close());

const events = async (domainId: number) => (await call(server.base, 'GET', `/v1/events?domain=${domainId}&limit=500`, { key })).body as { action: string }[];
const domainId = async (zone: string) => ((await call(server.base, 'GET', '/v1/domains?limit=500', { key })).body as { id: number; domain: string }[]).find((d) => d.domain === zone)?.id as number;

describe('GET /api', () => {
  it("answers PowerDNS's version list to a PowerDNS client, and interface A's calls as before", async () => {
    const discovery = await pdns(server.base, key, 'GET', '/api');
    expect(discovery.status).toBe(200);
    expect(discovery.body).toEqual([{ url: '/api/v1', version: 1 }]);
    expect((await pdns(server.base, null, 'GET', '/api')).body).toEqual([{ url: '/api/v1', version: 1 }]);
    // Interface A: an action, or no action at all (its code 2), at /api/ and /api.
    expect((await v3(server.base, { api_action: 'test.echo', api_key: key, foo: 'bar' })).DATA).toEqual({ FOO: 'bar' });
    expect((await v3(server.base, {})).ERRORARRAY[0].ERRORCODE).toBe(2);
    const bare = await fetch(`${server.base}/api?api_action=test.echo&api_key=${key}&foo=1`, { headers: { 'x-api-key': key } });
    expect(await bare.json()).toMatchObject({ ACTION: 'test.echo', DATA: { FOO: '1' } });
  });

  it('answers the server objects', async () => {
    const servers = await pdns(server.base, key, 'GET', '/api/v1/servers');
    expect(servers.body).toEqual([expect.objectContaining({ id: 'localhost', type: 'Server', daemon_type: 'authoritative', url: '/api/v1/servers/localhost', zones_url: '/api/v1/servers/localhost/zones{/zone}' })]);
    expect((await pdns(server.base, key, 'GET', '~')).body).toEqual(servers.body[0]);
    expect((await pdns(server.base, key, 'GET', '/api/v1/servers/elsewhere')).status).toBe(404);
  });
});

describe('zones', () => {
  it('makes a Native zone with its name servers and RRsets, and shows it as PowerDNS does', async () => {
    const made = await pdnsZone(server.base, key, 'made.example', {
      nameservers: ['ns1.example.net.'],
      rrsets: [rrset('www.made.example.', 'A', ['192.0.2.1'], 300)],
    });
    expect(made).toMatchObject({ id: 'made.example.', name: 'made.example.', kind: 'Native', url: '/api/v1/servers/localhost/zones/made.example.', dnssec: false, masters: [], account: '' });
    expect(made.serial).toBeGreaterThan(0);
    expect(made.notified_serial).toBe(made.serial);
    const byType = Object.fromEntries(made.rrsets.map((s: any) => [`${s.name} ${s.type}`, s]));
    expect(byType['made.example. SOA'].records[0].content).toMatch(/^ns1\.zonehost\.test\. hostmaster\.made\.example\. \d+ /);
    expect(byType['made.example. NS'].records.map((r: any) => r.content).sort()).toEqual(['ns1.example.net.', 'ns1.zonehost.test.', 'ns2.zonehost.test.']);
    expect(byType['www.made.example. A']).toEqual({ name: 'www.made.example.', type: 'A', ttl: 300, records: [{ content: '192.0.2.1', disabled: false }], comments: [] });

    const list = await pdns(server.base, key, 'GET', '~/zones');
    expect(list.body.map((z: any) => z.id)).toContain('made.example.');
    expect(list.body[0].rrsets).toBeUndefined();
    expect((await pdns(server.base, key, 'GET', '~/zones?zone=made.example.')).body.map((z: any) => z.name)).toEqual(['made.example.']);
    expect((await pdns(server.base, key, 'GET', '~/zones?zone=none.example.')).body).toEqual([]);
    // The name without the dot finds it too, as PowerDNS reads zone ids; and the URL the zone names works.
    expect((await pdns(server.base, key, 'GET', '~/zones/made.example')).status).toBe(200);
    expect((await pdns(server.base, key, 'GET', made.url)).body.id).toBe('made.example.');
  });

  it('refuses a zone that exists (409, in any account) and a zone whose records break a rule (422, nothing made)', async () => {
    await pdnsZone(server.base, key, 'taken.example');
    expect((await pdns(server.base, key, 'POST', '~/zones', { name: 'taken.example.', kind: 'Native', nameservers: [] })).status).toBe(409);
    expect((await pdns(server.base, otherKey, 'POST', '~/zones', { name: 'taken.example.', kind: 'Native', nameservers: [] })).status).toBe(409);
    const bad = await pdns(server.base, key, 'POST', '~/zones', {
      name: 'rules.example.',
      kind: 'Native',
      nameservers: [],
      rrsets: [rrset('www.rules.example.', 'A', ['192.0.2.1']), rrset('www.rules.example.', 'CNAME', ['x.example.net.'])],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatch(/CNAME/);
    expect((await pdns(server.base, key, 'GET', '~/zones/rules.example.')).status).toBe(404);
    expect((await pdns(server.base, key, 'POST', '~/zones', { name: 'rules.example', kind: 'Native', nameservers: [] })).body).toEqual({ error: "DNS Name 'rules.example' is not canonical" });
    expect((await pdns(server.base, key, 'POST', '~/zones', { name: 'rules.example.', kind: 'Producer', nameservers: [] })).status).toBe(422);
  });

  it('takes the SOA of a new zone as its settings, and refuses changes to the SOA later', async () => {
    const z = await pdnsZone(server.base, key, 'soa.example', {
      rrsets: [{ name: 'soa.example.', type: 'SOA', ttl: 3600, records: [{ content: 'ns.soa.example. admin.soa.example. 1 7200 3600 1209600 300', disabled: false }] }],
    });
    const soa = z.rrsets.find((s: any) => s.type === 'SOA');
    expect(soa.records[0].content).toMatch(/ admin\.soa\.example\. \d+ 7200 3600 1209600 300$/);
    const changed = await pdns(server.base, key, 'PATCH', '~/zones/soa.example.', { rrsets: [rrset('soa.example.', 'SOA', ['ns.soa.example. other.soa.example. 1 7200 3600 1209600 300'])] });
    expect(changed.status).toBe(422);
    // The SOA as served (any serial) is no change at all.
    const same = await pdns(server.base, key, 'PATCH', '~/zones/soa.example.', { rrsets: [rrset('soa.example.', 'SOA', [soa.records[0].content.replace(/ \d+ 7200 /, ' 5 7200 ')])] });
    expect(same.status, same.text).toBe(204);
  });

  it('makes a Slave zone of its masters, and refuses to edit its records', async () => {
    const z = await pdns(server.base, key, 'POST', '~/zones', { name: 'mirror.example.', kind: 'Slave', masters: ['192.0.2.53'] });
    expect(z.status, z.text).toBe(201);
    expect(z.body).toMatchObject({ kind: 'Slave', masters: ['192.0.2.53'], last_check: 0, rrsets: [] });
    expect((await pdns(server.base, key, 'PATCH', '~/zones/mirror.example.', { rrsets: [rrset('a.mirror.example.', 'A', ['192.0.2.1'])] })).status).toBe(422);
    expect((await pdns(server.base, key, 'PUT', '~/zones/mirror.example.', { masters: ['192.0.2.54'] })).status).toBe(204);
    expect((await pdns(server.base, key, 'GET', '~/zones/mirror.example.')).body.masters).toEqual(['192.0.2.54']);
  });

  it("keeps a zone's kind (Native or Master) and its account, our display group (Linode's group), set by POST and PUT", async () => {
    expect((await pdnsZone(server.base, key, 'account.example', { account: 'team-a', kind: 'Master' })).account).toBe('team-a');
    expect((await pdns(server.base, key, 'GET', '~/zones/account.example.')).body.kind).toBe('Master');
    expect((await pdns(server.base, key, 'PUT', '~/zones/account.example.', { account: 'team-b', kind: 'Native' })).status).toBe(204);
    expect((await pdns(server.base, key, 'GET', '~/zones?zone=account.example.')).body[0]).toMatchObject({ account: 'team-b', kind: 'Native' });
    expect((await v3(server.base, { api_action: 'domain.list', api_key: key, DomainID: await domainId('account.example') })).DATA[0].LPM_DISPLAYGROUP).toBe('team-b');
    expect((await pdns(server.base, key, 'PUT', '~/zones/account.example.', { account: 'x'.repeat(51) })).status).toBe(422);
  });

  it('deletes a zone', async () => {
    await pdnsZone(server.base, key, 'gone.example');
    expect((await pdns(server.base, key, 'DELETE', '~/zones/gone.example.')).status).toBe(204);
    expect((await pdns(server.base, key, 'GET', '~/zones/gone.example.')).status).toBe(404);
    expect((await pdns(server.base, key, 'DELETE', '~/zones/gone.example.')).status).toBe(404);
  });

  it('exports the zone file, and acknowledges notify and rectify', async () => {
    await pdnsZone(server.base, key, 'export.example', { rrsets: [rrset('www.export.example.', 'A', ['192.0.2.7'])] });
    const file = await fetch(`${server.base}/api/v1/servers/localhost/zones/export.example./export`, { headers: { 'x-api-key': key } });
    expect(file.status).toBe(200);
    expect(await file.text()).toMatch(/^www\.export\.example\.\s+3600\s+IN\s+A\s+192\.0\.2\.7$/m);
    expect((await pdns(server.base, key, 'PUT', '~/zones/export.example./notify')).body).toEqual({ result: 'Notification queued' });
    expect((await pdns(server.base, key, 'PUT', '~/zones/export.example./rectify')).body).toEqual({ result: 'Rectified' });
  });
});

describe('PATCH', () => {
  it('replaces and deletes RRsets in one write: one serial, one journal entry, served by DNS at once', async () => {
    await pdnsZone(server.base, key, 'patch.example');
    const id = await domainId('patch.example');
    const before = (await pdns(server.base, key, 'GET', '~/zones/patch.example.')).body.serial;
    const r = await pdns(server.base, key, 'PATCH', '~/zones/patch.example.', {
      rrsets: [rrset('www.patch.example.', 'A', ['192.0.2.1', '192.0.2.2']), rrset('txt.patch.example.', 'TXT', ['"v=spf1 -all"']), rrset('patch.example.', 'MX', ['10 mail.example.net.'])],
    });
    expect(r.status, r.text).toBe(204);
    expect(r.text).toBe('');
    expect(await rrsetLines(server.base, key, 'patch.example')).toEqual([
      'patch.example. MX 3600 10 mail.example.net.',
      'txt.patch.example. TXT 3600 "v=spf1 -all"',
      'www.patch.example. A 3600 192.0.2.1',
      'www.patch.example. A 3600 192.0.2.2',
    ]);
    const after = (await pdns(server.base, key, 'GET', '~/zones/patch.example.')).body.serial;
    expect(after).toBeGreaterThan(before);
    expect((await events(id)).filter((e) => e.action === 'record.batch')).toHaveLength(1);

    // A REPLACE keeps the records it names again (same ids), changes a TTL, and a DELETE removes the RRset.
    const ids = async () => ((await call(server.base, 'GET', `/v1/domains/${id}/records?limit=500`, { key })).body as { id: number; name: string; type: string }[]).filter((x) => x.name === 'www').map((x) => x.id);
    const wwwIds = await ids();
    await pdns(server.base, key, 'PATCH', '~/zones/patch.example.', { rrsets: [rrset('www.patch.example.', 'A', ['192.0.2.2', '192.0.2.3'], 300), { name: 'txt.patch.example.', type: 'TXT', changetype: 'DELETE' }] });
    expect(await rrsetLines(server.base, key, 'patch.example')).toEqual(['patch.example. MX 3600 10 mail.example.net.', 'www.patch.example. A 300 192.0.2.2', 'www.patch.example. A 300 192.0.2.3']);
    expect((await ids()).filter((x) => wwwIds.includes(x))).toHaveLength(1);
    expect((await events(id)).filter((e) => e.action === 'record.batch')).toHaveLength(2);
  });

  needsDig.it('is what DNS serves right after', async () => {
    await pdnsZone(server.base, key, 'dns.example');
    await pdns(server.base, key, 'PATCH', '~/zones/dns.example.', { rrsets: [rrset('_acme-challenge.dns.example.', 'TXT', ['"token-1"'], 300)] });
    expect(rrs((await dig(server, '_acme-challenge.dns.example', 'TXT')).answer)).toEqual(['_acme-challenge.dns.example. 300 TXT "token-1"']);
  });

  it("deletes one record as lexicon does: a REPLACE with the others; an empty REPLACE deletes the RRset", async () => {
    await pdnsZone(server.base, key, 'lex.example');
    await pdns(server.base, key, 'PATCH', '~/zones/lex.example.', { rrsets: [rrset('t.lex.example.', 'TXT', ['"a"', '"b"'])] });
    const zone = (await pdns(server.base, key, 'GET', '~/zones/lex.example.')).body;
    const set = zone.rrsets.find((s: any) => s.type === 'TXT');
    const r = await pdns(server.base, key, 'PATCH', '~/zones/lex.example.', { rrsets: [{ ...set, changetype: 'REPLACE', records: set.records.filter((x: any) => x.content !== '"a"') }] });
    expect(r.status, r.text).toBe(204);
    expect(await rrsetLines(server.base, key, 'lex.example')).toEqual(['t.lex.example. TXT 3600 "b"']);
    await pdns(server.base, key, 'PATCH', '~/zones/lex.example.', { rrsets: [{ ...set, changetype: 'REPLACE', records: [] }] });
    expect(await rrsetLines(server.base, key, 'lex.example')).toEqual([]);
  });

  it('changes nothing when one RRset of many is refused', async () => {
    await pdnsZone(server.base, key, 'atomic.example', { rrsets: [rrset('keep.atomic.example.', 'A', ['192.0.2.1'])] });
    const before = await pdns(server.base, key, 'GET', '~/zones/atomic.example.');
    for (const bad of [
      rrset('www.atomic.example.', 'MX', ['10 relative']),
      rrset('keep.atomic.example.', 'CNAME', ['x.example.net.']),
      rrset('www.atomic.example.', 'A', ['192.0.2.300']),
      rrset('www.atomic.example.', 'A', ['192.0.2.1', '192.0.2.1']),
      rrset('www.atomic.example.', 'RRSIG', ['A 13 3 300 20300101000000 20200101000000 1 atomic.example. AAAA']),
      rrset('www.atomic.example.', 'TYPE65534', ['\\# 0']),
    ]) {
      const r = await pdns(server.base, key, 'PATCH', '~/zones/atomic.example.', { rrsets: [rrset('new.atomic.example.', 'A', ['192.0.2.9']), bad] });
      expect(r.status, `${JSON.stringify(bad)}: ${r.text}`).toBe(422);
      expect(Object.keys(r.body)).toEqual(['error']);
    }
    expect((await pdns(server.base, key, 'GET', '~/zones/atomic.example.')).body).toEqual(before.body);
  });
});

describe('hostile requests', () => {
  it('answers wrong types, unknown fields of the wrong kind, bad JSON and bad names with a 4xx {"error"}, never a 5xx', async () => {
    await pdnsZone(server.base, key, 'hostile.example');
    const Z = '~/zones/hostile.example.';
    const cases: [string, string, unknown, number][] = [
      ['PATCH', Z, { rrsets: [{ ...rrset('a.hostile.example.', 'A', ['192.0.2.1']), ttl: 'abc' }] }, 422],
      ['PATCH', Z, { rrsets: [{ ...rrset('a.hostile.example.', 'A', ['192.0.2.1']), ttl: 1.5 }] }, 422],
      ['PATCH', Z, { rrsets: [{ ...rrset('a.hostile.example.', 'A', ['192.0.2.1']), ttl: -1 }] }, 422],
      ['PATCH', Z, { rrsets: [{ ...rrset('a.hostile.example.', 'A', []), records: [{ content: 5 }] }] }, 422],
      ['PATCH', Z, { rrsets: [{ name: 'a.hostile.example.', type: 'A', changetype: 'REPLACE', records: [{ content: '192.0.2.1' }] }] }, 422],
      ['PATCH', Z, { rrsets: 'all' }, 422],
      ['PATCH', Z, { rrsets: [null] }, 422],
      ['PATCH', Z, [], 422],
      ['PATCH', Z, '{"rrsets": [', 400],
      ['PATCH', Z, { rrsets: [rrset('a.hostile.example', 'A', ['192.0.2.1'])] }, 422],
      ['PATCH', Z, { rrsets: [rrset('a..hostile.example.', 'A', ['192.0.2.1'])] }, 422],
      ['PATCH', Z, { rrsets: [rrset(`${'x'.repeat(64)}.hostile.example.`, 'A', ['192.0.2.1'])] }, 422],
      ['PATCH', Z, { rrsets: [rrset('a.hostile.example.', 'A', ['192.0.2.1'], 3600, 'delete-all')] }, 422],
      ['PATCH', Z, { rrsets: [rrset('a.hostile.example.', '', ['192.0.2.1'])] }, 422],
      ['PATCH', Z, { rrsets: [rrset('a.hostile.example.', 'TXT', ['"' + 'x'.repeat(70000) + '"'])] }, 422],
      ['POST', '~/zones', { name: 5, kind: 'Native' }, 422],
      ['POST', '~/zones', { name: '.', kind: 'Native', nameservers: [] }, 422],
      ['POST', '~/zones', { name: 'x.example.', kind: 'Native', nameservers: ['relative'] }, 422],
      ['POST', '~/zones', { name: `${'a'.repeat(70)}.example.`, kind: 'Native', nameservers: [] }, 422],
      ['POST', '~/zones', { name: 'slave.example.', kind: 'Slave', masters: ['not-an-address'] }, 422],
      ['PUT', Z, { kind: 7 }, 422],
      ['GET', '~/zones/a..b.', undefined, 404],
      ['GET', '~/zones/=ZZ', undefined, 404],
      ['GET', '~/zones/%00.', undefined, 404],
      ['GET', '~/search-data?q=*&max=-1', undefined, 422],
      ['GET', '~/tsigkeys/nope.', undefined, 404],
      ['POST', '~/tsigkeys', { name: 'k.example', algorithm: 'hmac-md5' }, 422],
      ['GET', `${Z}/cryptokeys/999999`, undefined, 404],
      ['POST', `${Z}/cryptokeys`, { keytype: 'csk', active: true, algorithm: 'rsasha1' }, 422],
      ['DELETE', '~/zones/unknown.example.', undefined, 404],
    ];
    for (const [method, path, body, status] of cases) {
      const r = await pdns(server.base, key, method, path, body);
      expect(r.status, `${method} ${path} ${JSON.stringify(body)?.slice(0, 200)}: ${r.text}`).toBe(status);
      expect(Object.keys(r.body ?? {}), r.text).toEqual(['error']);
    }
    expect(await rrsetLines(server.base, key, 'hostile.example')).toEqual([]);
  });

  it('refuses a body over the limit (413) and reads no body of a GET (lexicon sends one)', async () => {
    await pdnsZone(server.base, key, 'big.example');
    const huge = JSON.stringify({ rrsets: [rrset('a.big.example.', 'TXT', ['"' + 'x'.repeat(11 * 1024 * 1024) + '"'])] });
    const r = await pdns(server.base, key, 'PATCH', '~/zones/big.example.', huge);
    expect(r.status).toBe(413);
    expect(Object.keys(r.body)).toEqual(['error']);
    const port = new URL(server.base).port;
    const get = await rawRequest(Number(port), `GET /api/v1/servers/localhost/zones/big.example. HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    expect(get).toMatch(/^HTTP\/1\.1 200 /);
    expect(get).toContain('"name":"big.example."');
    // libcloud sends its JSON without a Content-Type.
    const patch = JSON.stringify({ rrsets: [rrset('b.big.example.', 'A', ['192.0.2.1'])] });
    const bare = await rawRequest(Number(port), `PATCH /api/v1/servers/localhost/zones/big.example. HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\nContent-Length: ${patch.length}\r\nConnection: close\r\n\r\n${patch}`);
    expect(bare).toMatch(/^HTTP\/1\.1 204 /);
    expect(await rrsetLines(server.base, key, 'big.example')).toEqual(['b.big.example. A 3600 192.0.2.1']);
  });

  it("answers another account's zone exactly as a zone that does not exist, and changes nothing in it", async () => {
    await pdnsZone(server.base, key, 'mine.example', { rrsets: [rrset('www.mine.example.', 'A', ['192.0.2.1'])] });
    const unknown = await pdns(server.base, otherKey, 'GET', '~/zones/nothing-here.example.');
    for (const [method, path, body] of [
      ['GET', '~/zones/mine.example.', undefined],
      ['PATCH', '~/zones/mine.example.', { rrsets: [rrset('www.mine.example.', 'A', ['192.0.2.66'])] }],
      ['PUT', '~/zones/mine.example.', { kind: 'Native' }],
      ['DELETE', '~/zones/mine.example.', undefined],
      ['GET', '~/zones/mine.example./export', undefined],
      ['GET', '~/zones/mine.example./cryptokeys', undefined],
      ['PUT', '~/zones/mine.example./notify', undefined],
    ] as const) {
      const r = await pdns(server.base, otherKey, method, path, body);
      expect({ status: r.status, body: r.body }, `${method} ${path}`).toEqual({ status: unknown.status, body: unknown.body });
    }
    expect((await pdns(server.base, otherKey, 'GET', '~/zones')).body.map((z: any) => z.name)).not.toContain('mine.example.');
    expect((await pdns(server.base, otherKey, 'GET', '~/search-data?q=*mine*')).body).toEqual([]);
    expect(await rrsetLines(server.base, key, 'mine.example')).toEqual(['www.mine.example. A 3600 192.0.2.1']);
  });

  it('answers seeded random mutations of real requests with a 2xx or 4xx {"error"}, never a 5xx', async () => {
    await pdnsZone(server.base, key, 'fuzz.example', { rrsets: [rrset('www.fuzz.example.', 'A', ['192.0.2.1'])] });
    const seed = 31;
    const random = prng(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    const odd = [null, true, 0, -1, 1e300, '', 'x'.repeat(300), '.', '..', '\u0000', '*', [], {}, [null], { a: 1 }, '192.0.2.1', '"q"', 'fuzz.example.', '\\# 4 c0000201'];
    const mutate = (v: unknown): unknown => {
      if (random() < 0.15) return pick(odd);
      if (Array.isArray(v)) return v.map(mutate);
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(() => random() > 0.1).map(([k, x]) => [k, mutate(x)]));
      return v;
    };
    const patch = { rrsets: [rrset('a.fuzz.example.', 'TXT', ['"t"']), { name: 'www.fuzz.example.', type: 'A', changetype: 'DELETE' }, rrset('fuzz.example.', 'MX', ['10 mx.example.net.'])] };
    const zone = { name: 'new-fuzz.example.', kind: 'Native', nameservers: ['ns.example.net.'], masters: [], account: '', rrsets: [rrset('x.new-fuzz.example.', 'A', ['192.0.2.2'])] };
    for (let i = 0; i < 150; i++) {
      const [method, path, body] = pick([
        ['PATCH', '~/zones/fuzz.example.', patch],
        ['POST', '~/zones', zone],
        ['PUT', '~/zones/fuzz.example.', { kind: 'Native', masters: [], account: 'a', dnssec: false }],
        ['POST', '~/tsigkeys', { name: 'fuzz.key', algorithm: 'hmac-sha256', key: Buffer.alloc(32, 1).toString('base64') }],
        ['POST', '~/zones/fuzz.example./cryptokeys', { keytype: 'csk', active: false, algorithm: 'ED25519' }],
      ] as const);
      const r = await pdns(server.base, key, method, path, mutate(body));
      expect(r.status, `seed ${seed}, request ${i}: ${method} ${path}: ${r.text}`).toBeLessThan(500);
      if (r.status >= 400) expect(Object.keys(r.body ?? {}), r.text).toEqual(['error']);
      // Whatever was made is removed, so the next request meets the same state.
      if (r.status === 201 && path === '~/zones') await pdns(server.base, key, 'DELETE', `~/zones/${r.body.id}`);
      if (r.status === 201 && path === '~/tsigkeys') await pdns(server.base, key, 'DELETE', `~/tsigkeys/${r.body.id}`);
    }
  });

  it('answers 401 {"error"} without a key or with a wrong one', async () => {
    for (const k of [null, '', 'x'.repeat(40), 'x'.repeat(300)]) {
      const r = await pdns(server.base, k, 'GET', '~/zones');
      expect(r.status).toBe(401);
      expect(Object.keys(r.body)).toEqual(['error']);
    }
  });
});

describe('cryptokeys and tsigkeys', () => {
  it('turns DNSSEC on by making a key, lists it with its DNSKEY and DS, and off by deleting it', async () => {
    await pdnsZone(server.base, key, 'signed.example');
    expect((await pdns(server.base, key, 'GET', '~/zones/signed.example./cryptokeys')).body).toEqual([]);
    const made = await pdns(server.base, key, 'POST', '~/zones/signed.example./cryptokeys', { keytype: 'csk', active: true, algorithm: 'ECDSAP256SHA256' });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ type: 'Cryptokey', keytype: 'csk', active: true, published: true, algorithm: 'ECDSAP256SHA256', flags: 257 });
    expect(made.body.dnskey).toMatch(/^257 3 13 \S+$/);
    expect(made.body.ds[0]).toMatch(/^\d+ 13 2 [0-9a-f]{64}$/);
    expect(made.body.privatekey).toBeUndefined();
    const zone = (await pdns(server.base, key, 'GET', '~/zones/signed.example.')).body;
    expect(zone).toMatchObject({ dnssec: true, nsec3param: '1 0 0 -' });
    expect((await pdns(server.base, key, 'GET', '~/zones?zone=signed.example.')).body[0].dnssec).toBe(true);
    expect((await pdns(server.base, key, 'GET', `~/zones/signed.example./cryptokeys/${made.body.id}`)).body).toEqual(made.body);
    expect((await pdns(server.base, key, 'POST', '~/zones/signed.example./cryptokeys', { keytype: 'csk', active: true })).status).toBe(422);
    expect((await pdns(server.base, key, 'DELETE', `~/zones/signed.example./cryptokeys/${made.body.id}`)).status).toBe(204);
    // Off through RFC 8078's delete CDS: unsigning until the parent's DS has expired, no longer "signed".
    const dnssec = (await call(server.base, 'GET', `/v1/domains/${await domainId('signed.example')}/dnssec`, { key })).body;
    expect(dnssec.status).toBe('unsigning');
  });

  it('makes, lists, reads and deletes TSIG keys, the secret shown once', async () => {
    const made = await pdns(server.base, key, 'POST', '~/tsigkeys', { name: 'pdns-door.key', algorithm: 'hmac-sha512' });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ type: 'TSIGKey', id: 'pdns-door.key.', name: 'pdns-door.key', algorithm: 'hmac-sha512' });
    expect(Buffer.from(made.body.key, 'base64')).toHaveLength(32);
    expect((await pdns(server.base, key, 'GET', '~/tsigkeys')).body).toContainEqual({ ...made.body, key: '' });
    expect((await pdns(server.base, key, 'GET', '~/tsigkeys/pdns-door.key.')).body).toEqual({ ...made.body, key: '' });
    expect((await pdns(server.base, otherKey, 'GET', '~/tsigkeys/pdns-door.key.')).status).toBe(404);
    expect((await pdns(server.base, key, 'POST', '~/tsigkeys', { name: 'pdns-door.key' })).status).toBe(409);
    expect((await pdns(server.base, key, 'DELETE', '~/tsigkeys/pdns-door.key.')).status).toBe(204);
    expect((await pdns(server.base, key, 'GET', '~/tsigkeys/pdns-door.key.')).status).toBe(404);
  });
});

describe('search-data', () => {
  it("finds the caller's zones and records by name or content, wildcards allowed", async () => {
    await pdnsZone(server.base, key, 'search.example', { rrsets: [rrset('host.search.example.', 'A', ['192.0.2.44'])] });
    const found = await pdns(server.base, key, 'GET', '~/search-data?q=192.0.2.44');
    expect(found.body).toEqual([{ content: '192.0.2.44', disabled: false, name: 'host.search.example.', object_type: 'record', ttl: 3600, type: 'A', zone: 'search.example.', zone_id: 'search.example.' }]);
    const zones = await pdns(server.base, key, 'GET', '~/search-data?q=search.*&object_type=zone');
    expect(zones.body).toEqual([{ name: 'search.example.', object_type: 'zone', zone_id: 'search.example.' }]);
    expect((await pdns(server.base, key, 'GET', '~/search-data?q=*&max=2')).body).toHaveLength(2);
  });
});
