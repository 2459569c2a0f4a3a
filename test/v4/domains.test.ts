/**
 * /v4/domains over HTTP: Linode v4's domain object (every field, `created`/`updated` as YYYY-MM-DDTHH:MM:SS),
 * the same ids as interfaces A and B, updates that change only what they give, TTL rounding as interface A,
 * lists (pages, page_size bounds, X-Filter equality, +and/+or, +order_by/+order), the zone file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { data } from '../v3/support.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { client, createDomain, errorFields, expectErrors, TIME, type Client } from './support.js';

let server: TestServer;
let api: Client;
let key: string;
beforeAll(async () => {
  server = await startTestServer();
  key = (await server.user('alice')).key;
  api = client(server.base, key);
});
afterAll(() => server.close());

describe('a domain', () => {
  it('is created, read, updated and deleted with Linode v4 fields, under the ids interfaces A and B use', async () => {
    const made = await createDomain(api, 'Shape.Example', { description: 'first', group: 'web', ttl_sec: 7000, axfr_ips: ['192.0.2.1'] });
    expect(made).toEqual({
      id: expect.any(Number),
      domain: 'shape.example',
      type: 'master',
      status: 'active',
      soa_email: 'hostmaster@Shape.Example',
      description: 'first',
      group: 'web',
      tags: [],
      // Rounded up as interface A rounds it.
      ttl_sec: 7200,
      refresh_sec: 0,
      retry_sec: 0,
      expire_sec: 0,
      master_ips: [],
      axfr_ips: ['192.0.2.1'],
      created: expect.stringMatching(TIME),
      updated: expect.stringMatching(TIME),
    });
    expect(Math.abs(Date.parse(`${made.created}Z`) - Date.now())).toBeLessThan(60_000);

    const [v3] = await data(server.base, { api_action: 'domain.list', api_key: key, DomainID: made.id });
    expect(v3).toMatchObject({ DOMAINID: made.id, DOMAIN: 'shape.example', TTL_SEC: 7200, LPM_DISPLAYGROUP: 'web' });
    const v1 = await api.get(`/v1/domains/${made.id}`);
    expect(v1.body).toMatchObject({ id: made.id, domain: 'shape.example' });
    expect((await api.get(`/v4/domains/${made.id}`)).body).toEqual(made);

    // Only the fields given change; null is "not given" (clients send it so).
    const put = await api.put(`/v4/domains/${made.id}`, { description: 'second', status: 'edit_mode', soa_email: null, retry_sec: 100 });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ id: made.id, description: 'second', status: 'edit_mode', soa_email: 'hostmaster@Shape.Example', group: 'web', retry_sec: 300 });
    expect((await api.put(`/v4/domains/${made.id}`, { status: 'disabled' })).body.status).toBe('disabled');
    // Tags are kept sorted, once each; filtering on a tag finds the domains that have it.
    expect((await api.put(`/v4/domains/${made.id}`, { tags: ['web', 'prod', 'web'] })).body.tags).toEqual(['prod', 'web']);
    const tagged = await api.get('/v4/domains', { headers: { 'x-filter': JSON.stringify({ tags: 'prod' }) } });
    expect(tagged.body.data.map((d: any) => d.id)).toEqual([made.id]);

    const del = await api.del(`/v4/domains/${made.id}`);
    expect(del.status, del.text).toBe(200);
    expect(del.body).toEqual({});
    expectErrors(await api.get(`/v4/domains/${made.id}`), 404);
  });

  it('may be a zone mirror (type slave) with its masters', async () => {
    const r = await api.post('/v4/domains', { domain: 'mirror.example', type: 'slave', master_ips: ['192.0.2.53'] });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ type: 'slave', master_ips: ['192.0.2.53'], soa_email: '' });
  });

  it('is refused with the fields at fault named as v4 names them, and nothing is created', async () => {
    const before = (await api.get('/v4/domains')).body.results;
    expect(errorFields(await api.post('/v4/domains', { domain: 'bad..example', type: 'master', soa_email: 'nobody' }), 400).sort()).toEqual(['domain', 'soa_email']);
    expect(errorFields(await api.post('/v4/domains', { domain: 'nomail.example', type: 'master' }), 400)).toEqual(['soa_email']);
    expect(errorFields(await api.post('/v4/domains', { domain: 'x.example', type: 'primary', soa_email: 'a@x.example' }), 400)).toEqual(['type']);
    expect(errorFields(await api.post('/v4/domains', { domain: 'x.example', type: 'master', soa_email: 'a@x.example', ttl_sec: 'long' }), 400)).toEqual(['ttl_sec']);
    expect(errorFields(await api.post('/v4/domains', { domain: 'x.example', type: 'master', soa_email: 'a@x.example', master_ips: ['not-an-ip'] }), 400)).toEqual(['master_ips']);
    expect(errorFields(await api.post('/v4/domains', { domain: 'x.example', type: 'master', soa_email: 'a@x.example', status: 'has_errors' }), 400)).toEqual(['status']);
    expect(errorFields(await api.post('/v4/domains', { domain: 'x.example', type: 'master', soa_email: 'a@x.example', tags: ['ok-tag', 'x'] }), 400)).toEqual(['tags']);
    await createDomain(api, 'taken.example');
    expect(errorFields(await api.post('/v4/domains', { domain: 'taken.example', type: 'master', soa_email: 'a@taken.example' }), 400)).toEqual(['domain']);
    expect((await api.get('/v4/domains')).body.results).toBe(before + 1);
  });

  it('answers its zone file as lines', async () => {
    const d = await createDomain(api, 'zonefile.example');
    await api.post(`/v4/domains/${d.id}/records`, { type: 'A', name: 'www', target: '192.0.2.80' });
    const r = await api.get(`/v4/domains/${d.id}/zone-file`);
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.body)).toEqual(['zone_file']);
    expect(r.body.zone_file.every((l: unknown) => typeof l === 'string')).toBe(true);
    expect(r.body.zone_file.join('\n')).toMatch(/^zonefile\.example\.\s+\d+\s+IN\s+SOA\s/m);
    expect(r.body.zone_file.join('\n')).toMatch(/^www\.zonefile\.example\.\s+\d+\s+IN\s+A\s+192\.0\.2\.80$/m);
    expect(r.body.zone_file.at(-1)).not.toBe('');
  });
});

describe('the domain list', () => {
  let owner: Client;
  const names = Array.from({ length: 27 }, (_, i) => `d${String(i).padStart(2, '0')}.list.example`);
  beforeAll(async () => {
    owner = client(server.base, (await server.user('lister')).key);
    for (const [i, name] of names.entries()) await createDomain(owner, name, { group: i % 2 === 0 ? 'even' : 'odd' });
  });

  it('comes in pages of page_size (25 to 500, 100 unless asked), from page 1, in id order', async () => {
    const all = await owner.get('/v4/domains');
    expect(all.body).toMatchObject({ page: 1, pages: 1, results: 27 });
    expect(all.body.data.map((d: any) => d.domain)).toEqual(names);
    const first = await owner.get('/v4/domains?page_size=25');
    expect(first.body).toMatchObject({ page: 1, pages: 2, results: 27 });
    expect(first.body.data).toHaveLength(25);
    const second = await owner.get('/v4/domains?page=2&page_size=25');
    expect(second.body).toMatchObject({ page: 2, pages: 2, results: 27 });
    expect(second.body.data.map((d: any) => d.domain)).toEqual(names.slice(25));
    expect((await owner.get('/v4/domains?page=3&page_size=25')).body).toMatchObject({ data: [], page: 3, pages: 2 });
    expect(errorFields(await owner.get('/v4/domains?page_size=10'), 400)).toEqual(['page_size']);
    expect(errorFields(await owner.get('/v4/domains?page_size=501'), 400)).toEqual(['page_size']);
    expect(errorFields(await owner.get('/v4/domains?page=0'), 400)).toEqual(['page']);
  });

  const filtered = (filter: unknown) => owner.get('/v4/domains', { headers: { 'x-filter': JSON.stringify(filter) } });

  it('takes X-Filter: equality, +and, +or, +order_by and +order', async () => {
    const one = await filtered({ domain: 'd03.list.example' });
    expect(one.body).toMatchObject({ results: 1, pages: 1 });
    expect(one.body.data[0].domain).toBe('d03.list.example');
    expect((await filtered({ group: 'odd' })).body.results).toBe(13);
    const or = await filtered({ '+or': [{ domain: 'd01.list.example' }, { domain: 'd02.list.example' }] });
    expect(or.body.data.map((d: any) => d.domain)).toEqual(['d01.list.example', 'd02.list.example']);
    const and = await filtered({ '+and': [{ group: 'even' }, { '+or': [{ domain: 'd01.list.example' }, { domain: 'd02.list.example' }] }] });
    expect(and.body.data.map((d: any) => d.domain)).toEqual(['d02.list.example']);
    const desc = await filtered({ group: 'even', '+order_by': 'domain', '+order': 'desc' });
    expect(desc.body.data.map((d: any) => d.domain)).toEqual(names.filter((_, i) => i % 2 === 0).reverse());
    const contains = await filtered({ domain: { '+contains': 'd2' } });
    expect(contains.body.results).toBe(7);
    // The filter holds across pages.
    expect((await owner.get('/v4/domains?page_size=25', { headers: { 'x-filter': JSON.stringify({ type: 'master' }) } })).body).toMatchObject({ results: 27, pages: 2 });
  });

  it('refuses a filter it cannot apply, naming X-Filter', async () => {
    for (const bad of ['{not json', '[]', '{"soa_email": "a@b"}', '{"+or": []}', '{"domain": {"+like": "x"}}', '{"+order_by": "soa_email"}', '{"+order_by": "domain", "+order": "up"}', '{"domain": [1]}']) {
      const r = await owner.get('/v4/domains', { headers: { 'x-filter': bad } });
      expect(errorFields(r, 400), bad).toEqual(['X-Filter']);
    }
    const deep = JSON.stringify(Array.from({ length: 20 }).reduce((inner) => ({ '+and': [inner] }), { domain: 'x' }));
    expect(errorFields(await owner.get('/v4/domains', { headers: { 'x-filter': deep } }), 400)).toEqual(['X-Filter']);
  });
});
