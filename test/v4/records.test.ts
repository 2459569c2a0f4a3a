/**
 * /v4/domains/{id}/records over HTTP: every type Linode v4 has, mapped through the registry both ways,
 * with interface A's defaults and TTL rounding and the same ids as interface A; SRV by service and protocol;
 * updates that change only what they give (null: not given, as lexicon sends it); records of types v4 does
 * not have stay out of sight; lists page and filter as domains do; DNS answers what the door wrote.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { records as v3Records } from '../v3/support.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { client, createDomain, createRecord, errorFields, expectErrors, TIME, type Client } from './support.js';

let server: TestServer;
let api: Client;
let key: string;
let domainId: number;
beforeAll(async () => {
  server = await startTestServer();
  key = (await server.user('alice')).key;
  api = client(server.base, key);
  domainId = (await createDomain(api, 'records.example')).id;
});
afterAll(() => server.close());

const path = (id = domainId) => `/v4/domains/${id}/records`;

describe('records of each type', () => {
  it('are created and shown with every v4 field, under the ids interface A shows', async () => {
    const a = await createRecord(api, domainId, { type: 'A', name: 'www', target: '192.0.2.10', ttl_sec: 3000 });
    expect(a).toEqual({
      id: expect.any(Number),
      type: 'A',
      name: 'www',
      target: '192.0.2.10',
      // Interface A's defaults for fields the type does not use.
      priority: 10,
      weight: 5,
      port: 80,
      service: null,
      protocol: null,
      tag: null,
      ttl_sec: 3600,
      created: expect.stringMatching(TIME),
      updated: expect.stringMatching(TIME),
    });
    const made = [
      a,
      await createRecord(api, domainId, { type: 'AAAA', name: 'www', target: '2001:DB8::10' }),
      await createRecord(api, domainId, { type: 'MX', name: '', target: 'mail.records.example', priority: 20 }),
      await createRecord(api, domainId, { type: 'CNAME', name: 'alias', target: 'www.records.example' }),
      await createRecord(api, domainId, { type: 'TXT', name: '_acme-challenge', target: 'token-123' }),
      await createRecord(api, domainId, { type: 'SRV', service: 'sip', protocol: 'udp', priority: 5, weight: 7, port: 5060, target: 'sip.records.example' }),
      await createRecord(api, domainId, { type: 'CAA', name: '', tag: 'issue', target: 'letsencrypt.org' }),
      await createRecord(api, domainId, { type: 'NS', name: 'sub', target: 'ns1.elsewhere.example' }),
      await createRecord(api, domainId, { type: 'PTR', name: '10', target: 'host.records.example' }),
    ];
    expect(made.map((r) => [r.type, r.name, r.target, r.priority, r.weight, r.port, r.service, r.protocol, r.tag])).toEqual([
      ['A', 'www', '192.0.2.10', 10, 5, 80, null, null, null],
      ['AAAA', 'www', '2001:db8::10', 10, 5, 80, null, null, null],
      ['MX', '', 'mail.records.example', 20, 5, 80, null, null, null],
      ['CNAME', 'alias', 'www.records.example', 10, 5, 80, null, null, null],
      ['TXT', '_acme-challenge', 'token-123', 10, 5, 80, null, null, null],
      ['SRV', '_sip._udp', 'sip.records.example', 5, 7, 5060, 'sip', 'udp', null],
      ['CAA', '', 'letsencrypt.org', 0, 5, 80, null, null, 'issue'],
      ['NS', 'sub', 'ns1.elsewhere.example', 10, 5, 80, null, null, null],
      ['PTR', '10', 'host.records.example', 10, 5, 80, null, null, null],
    ]);
    // Interface A sees the same records under the same ids (PTR is not one of its types).
    const v3 = await v3Records(server.base, key, domainId);
    expect(made.filter((r) => r.type !== 'PTR').map((r) => r.id).sort()).toEqual(v3.map((r) => r.RESOURCEID).sort());
    for (const r of made) expect((await api.get(`${path()}/${r.id}`)).body).toEqual(r);
    const listed = await api.get(path());
    expect(listed.body).toMatchObject({ page: 1, pages: 1, results: made.length });
    expect(listed.body.data).toEqual(made);
  });

  it('are refused with the field at fault, and nothing is written', async () => {
    const before = (await api.get(path())).body.results;
    expect(errorFields(await api.post(path(), { type: 'A', name: 'bad', target: '300.1.1.1' }), 400)).toEqual(['target']);
    expect(errorFields(await api.post(path(), { type: 'TLSA', name: 'x', target: 'y' }), 400)).toEqual(['type']);
    expect(errorFields(await api.post(path(), { name: 'x', target: '192.0.2.1' }), 400)).toEqual(['type']);
    expect(errorFields(await api.post(path(), { type: 'A', name: 'bad name!', target: '192.0.2.1' }), 400)).toEqual(['name']);
    expect(errorFields(await api.post(path(), { type: 'MX', target: 'mail.records.example', priority: 70000 }), 400)).toEqual(['priority']);
    expect(errorFields(await api.post(path(), { type: 'A', name: 'x', target: '192.0.2.1', ttl_sec: -5 }), 400)).toEqual(['ttl_sec']);
    expect(errorFields(await api.post(path(), { type: 'CNAME', name: 'www', target: 'other.example' }), 400)).toEqual(['name']);
    expect((await api.get(path())).body.results).toBe(before);
  });
});

describe('a record update', () => {
  it('changes only the fields given; null is not given; the type stays', async () => {
    const r = await createRecord(api, domainId, { type: 'TXT', name: 'upd', target: 'one', ttl_sec: 300 });
    // lexicon's linode4 update: name and target, the type null.
    const put = await api.put(`${path()}/${r.id}`, { name: 'upd', type: null, target: 'two' });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ id: r.id, type: 'TXT', name: 'upd', target: 'two', ttl_sec: 300, created: r.created });
    expect((await api.put(`${path()}/${r.id}`, { ttl_sec: 86000 })).body).toMatchObject({ target: 'two', ttl_sec: 86400 });
    expect(errorFields(await api.put(`${path()}/${r.id}`, { type: 'A' }), 400)).toEqual(['type']);
    expect((await api.get(`${path()}/${r.id}`)).body).toMatchObject({ type: 'TXT', target: 'two', ttl_sec: 86400 });
  });

  it('moves an SRV record to another service or protocol', async () => {
    const r = await createRecord(api, domainId, { type: 'SRV', service: '_xmpp', protocol: 'tcp', port: 5222, target: 'xmpp.records.example' });
    expect(r).toMatchObject({ name: '_xmpp._tcp', service: 'xmpp', protocol: 'tcp', priority: 10, weight: 5 });
    expect((await api.put(`${path()}/${r.id}`, { protocol: 'udp' })).body).toMatchObject({ name: '_xmpp._udp', service: 'xmpp', protocol: 'udp', port: 5222 });
    expect((await api.put(`${path()}/${r.id}`, { service: 'xmpp-server', priority: 1 })).body).toMatchObject({ name: '_xmpp-server._udp', priority: 1 });
  });

  it('and a deletion answer {}; the record is gone on every interface', async () => {
    const r = await createRecord(api, domainId, { type: 'A', name: 'gone', target: '192.0.2.99' });
    const del = await api.del(`${path()}/${r.id}`, { headers: { 'content-type': 'application/json' } });
    expect(del.status, del.text).toBe(200);
    expect(del.body).toEqual({});
    expectErrors(await api.get(`${path()}/${r.id}`), 404);
    expect((await v3Records(server.base, key, domainId)).some((x) => x.RESOURCEID === r.id)).toBe(false);
  });
});

describe('records of types v4 does not have', () => {
  it('are not shown, read, changed or deleted through the door', async () => {
    const d = await createDomain(api, 'hidden.example');
    const tlsa = await api.post(`/v1/domains/${d.id}/TLSA`, {
      name: '_443._tcp',
      certificate_usage: 3,
      selector: 1,
      matching_type: 1,
      certificate_association_data: 'AB'.repeat(32),
    });
    expect(tlsa.status, tlsa.text).toBe(201);
    const a = await createRecord(api, d.id, { type: 'A', name: 'www', target: '192.0.2.1' });
    expect((await api.get(path(d.id))).body).toMatchObject({ results: 1, data: [a] });
    expectErrors(await api.get(`${path(d.id)}/${tlsa.body.id}`), 404);
    expectErrors(await api.put(`${path(d.id)}/${tlsa.body.id}`, { target: 'x' }), 404);
    expectErrors(await api.del(`${path(d.id)}/${tlsa.body.id}`), 404);
    expect((await api.get(`/v1/domains/${d.id}/TLSA/${tlsa.body.id}`)).status).toBe(200);
  });
});

describe('the record list', () => {
  it('pages and filters by name, type and target', async () => {
    const d = await createDomain(api, 'many.example');
    for (let i = 0; i < 30; i++) await createRecord(api, d.id, { type: i % 3 === 0 ? 'TXT' : 'A', name: `h${i}`, target: i % 3 === 0 ? `t${i}` : `192.0.2.${i}` });
    const page2 = await api.get(`${path(d.id)}?page=2&page_size=25`);
    expect(page2.body).toMatchObject({ page: 2, pages: 2, results: 30 });
    expect(page2.body.data.map((r: any) => r.name)).toEqual(['h25', 'h26', 'h27', 'h28', 'h29']);
    const txt = await api.get(path(d.id), { headers: { 'x-filter': JSON.stringify({ type: 'TXT', '+order_by': 'name', '+order': 'desc' }) } });
    expect(txt.body.results).toBe(10);
    expect(txt.body.data[0].name).toBe('h9');
    const one = await api.get(path(d.id), { headers: { 'x-filter': JSON.stringify({ '+and': [{ name: 'h4' }, { target: '192.0.2.4' }] }) } });
    expect(one.body.data.map((r: any) => r.name)).toEqual(['h4']);
    expect(errorFields(await api.get(path(d.id), { headers: { 'x-filter': '{"ttl_sec": 0}' } }), 400)).toEqual(['X-Filter']);
  });
});
