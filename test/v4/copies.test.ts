/**
 * New domains from existing zones through the v4 door: POST /v4/domains/{id}/clone (the settings and records
 * of one of the account's domains, the records in one write: one serial, one journal entry) and POST
 * /v4/domains/import (a zone pulled by AXFR from a real knotd primary, imported as a zone file is). A clone or
 * import that fails leaves no domain behind. The primary listens on 127.0.47.2 (a spare loopback address),
 * which this server's --import-allow lets through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kdigAt, startPrimary, type Knot } from '../support/knot.js';
import { peers } from '../support/peers.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { client, createDomain, createRecord, errorFields, expectErrors, type Client } from './support.js';

const needsKnot = peers('knotd', 'knotc', 'kdig');
const PRIMARY = '127.0.47.2';
const ZONE = 'imported.test';
const ZONE_FILE = `$ORIGIN ${ZONE}.
$TTL 3600
@ 7200 IN SOA ns1.oldprovider.test. admin.${ZONE}. 2024070101 7200 1800 1209600 300
@ IN NS ns1.oldprovider.test.
@ IN A 192.0.2.10
www 600 IN A 192.0.2.11
@ IN MX 10 mail.${ZONE}.
mail IN A 192.0.2.25
_sip._tcp IN SRV 5 7 5060 sip.${ZONE}.
`;

let server: TestServer;
let api: Client;
let primary: Knot | undefined;
beforeAll(async () => {
  server = await startTestServer({ importAllow: ['127.0.47.0/24'] });
  api = client(server.base, (await server.user('copier')).key);
  if (needsKnot.reason === null) primary = await startPrimary(PRIMARY, ZONE, ZONE_FILE, 9);
}, 60_000);
afterAll(async () => {
  await primary?.stop();
  await server?.close();
});

const shape = (records: any[]) => records.map((r) => [r.type, r.name, r.target, r.priority, r.ttl_sec]).sort();
const listed = async (id: number) => (await api.get(`/v4/domains/${id}/records`)).body.data;
const events = async (id: number) => (await api.get(`/v1/events?domain=${id}`)).body;

describe('a clone', () => {
  it('is a new domain with the settings and records of the source, its records added in one write', async () => {
    const source = await createDomain(api, 'source.example', { description: 'the original', ttl_sec: 3600, group: 'g' });
    await createRecord(api, source.id, { type: 'A', name: 'www', target: '192.0.2.1' });
    await createRecord(api, source.id, { type: 'MX', name: '', target: 'mail.source.example', priority: 5 });
    await createRecord(api, source.id, { type: 'TXT', name: '', target: 'v=spf1 -all', ttl_sec: 300 });
    const r = await api.post(`/v4/domains/${source.id}/clone`, { domain: 'copy.example' });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ domain: 'copy.example', type: 'master', description: 'the original', ttl_sec: 3600, group: 'g', soa_email: 'hostmaster@source.example' });
    expect(r.body.id).not.toBe(source.id);
    expect(shape(await listed(r.body.id))).toEqual(shape(await listed(source.id)));
    const journal = await events(r.body.id);
    expect(journal.map((e: any) => [e.action, e.interface])).toEqual([
      ['domain.create', 'v4'],
      ['record.batch', 'v4'],
    ]);
    // The source is as it was.
    expect(await listed(source.id)).toHaveLength(3);
  });

  it('is refused for a name taken or bad, and then no domain is made', async () => {
    const source = await createDomain(api, 'refused-source.example');
    const before = (await api.get('/v4/domains')).body.results;
    expect(errorFields(await api.post(`/v4/domains/${source.id}/clone`, { domain: 'source.example' }), 400)).toEqual(['domain']);
    expect(errorFields(await api.post(`/v4/domains/${source.id}/clone`, { domain: 'bad..example' }), 400)).toEqual(['domain']);
    expectErrors(await api.post('/v4/domains/999999/clone', { domain: 'ghost.example' }), 404);
    expect((await api.get('/v4/domains')).body.results).toBe(before);
  });

  it('whose records the account may not hold is undone: no domain is left', async () => {
    const name = 'limited-cloner';
    const owner = client(server.base, (await server.user(name)).key);
    const source = await createDomain(owner, 'limited-source.example');
    for (const i of [1, 2, 3]) await createRecord(owner, source.id, { type: 'A', name: `h${i}`, target: `192.0.2.${i}` });
    await server.services.operator.set(name, { maxRecords: 2 });
    expectErrors(await owner.post(`/v4/domains/${source.id}/clone`, { domain: 'limited-copy.example' }), 400);
    expect((await owner.get('/v4/domains')).body.data.map((d: any) => d.domain)).toEqual(['limited-source.example']);
  });
});

describe('an import', () => {
  needsKnot.it('pulls the zone by AXFR from remote_nameserver into a new domain, its SOA e-mail and records', async () => {
    const r = await api.post('/v4/domains/import', { domain: ZONE, remote_nameserver: PRIMARY });
    expect(r.status, r.text).toBe(200);
    // The SOA's e-mail and TTL become the domain's; records keep their own TTLs (600 rounded up to 3600), as a zone file import keeps them.
    expect(r.body).toMatchObject({ domain: ZONE, type: 'master', status: 'active', soa_email: `admin@${ZONE}`, ttl_sec: 7200 });
    expect(shape(await listed(r.body.id))).toEqual(
      shape([
        { type: 'A', name: '', target: '192.0.2.10', priority: 10, ttl_sec: 3600 },
        { type: 'A', name: 'www', target: '192.0.2.11', priority: 10, ttl_sec: 3600 },
        { type: 'A', name: 'mail', target: '192.0.2.25', priority: 10, ttl_sec: 3600 },
        { type: 'MX', name: '', target: `mail.${ZONE}`, priority: 10, ttl_sec: 3600 },
        { type: 'NS', name: '', target: 'ns1.oldprovider.test', priority: 10, ttl_sec: 3600 },
        { type: 'SRV', name: '_sip._tcp', target: `sip.${ZONE}`, priority: 5, ttl_sec: 3600 },
      ]),
    );
    // Our DNS answers for it at once.
    const dns = server.dnsAddress as { port: number };
    const answer = await kdigAt({ address: '127.0.0.1', port: dns.port }, `www.${ZONE}`, 'A');
    expect(answer.answer.map((a) => a.data)).toEqual(['192.0.2.11']);
  });

  needsKnot.it('that fails (no such zone there, a refused address) leaves no domain and names remote_nameserver', async () => {
    const before = (await api.get('/v4/domains')).body.results;
    expect(errorFields(await api.post('/v4/domains/import', { domain: 'absent.test', remote_nameserver: PRIMARY }), 400)).toEqual(['remote_nameserver']);
    expect(errorFields(await api.post('/v4/domains/import', { domain: 'absent.test', remote_nameserver: '10.0.0.1' }), 400)).toEqual(['remote_nameserver']);
    expect(errorFields(await api.post('/v4/domains/import', { domain: 'absent.test', remote_nameserver: 'ns1.example.com' }), 400)).toEqual(['remote_nameserver']);
    expect((await api.get('/v4/domains')).body.results).toBe(before);
  });
});
