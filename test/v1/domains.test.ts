/** Interface B domains: create/read/replace/patch/delete, validation problems, auth, methods, cross-interface. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../support/raw-http.js';
import { startTestServer, v3, type TestServer } from '../support/server.js';
import { call, client, expectProblem, fieldsOf, problemFields, type Client } from './support.js';

let server: TestServer;
let key: string;
let api: Client;

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.user('alice'));
  api = client(server.base, key);
});
afterAll(() => server.close());

describe('/v1/domains', () => {
  it('creates a domain: 201, Location, ETag, body equal to its GET, defaults filled in', async () => {
    const r = await api.post('/v1/domains', { domain: 'Create.Example.', soa: 'hostmaster@create.example' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({ id: expect.any(Number), domain: 'create.example', soa: 'hostmaster@create.example', default_ttl: 0, status: 'active', axfr: [] });
    expect(r.headers.get('location')).toBe(`/v1/domains/${r.body.id}`);
    const g = await api.get(r.headers.get('location') as string);
    expect(g.status).toBe(200);
    expect(g.body).toEqual(r.body);
    expect(g.headers.get('etag')).toBe(r.headers.get('etag'));
    expect(g.headers.get('etag')).toMatch(/^"[^"]+"$/);
  });

  it('takes every field; axfr "" becomes [] and default_ttl is rounded like TTL_SEC', async () => {
    const r = await api.post('/v1/domains', { domain: 'full.example', soa: 'a@full.example', default_ttl: 3000, status: 'inactive', axfr: ['192.0.2.1', '2001:db8::1'] });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ default_ttl: 3600, status: 'inactive', axfr: ['192.0.2.1', '2001:db8::1'] });
    const e = await api.post('/v1/domains', { domain: 'empty-axfr.example', soa: 'a@empty-axfr.example', axfr: '' });
    expect(e.body.axfr).toEqual([]);
  });

  it('lists domains as an array of the GET shape, with ?name=', async () => {
    const all = await api.get('/v1/domains');
    expect(all.status).toBe(200);
    expect(Array.isArray(all.body)).toBe(true);
    const one = all.body.find((d: any) => d.domain === 'create.example');
    expect(one).toEqual((await api.get(`/v1/domains/${one.id}`)).body);
    const named = await api.get('/v1/domains?name=CREATE.example.');
    expect(named.body).toEqual([one]);
    expect((await api.get('/v1/domains?name=nothing.example')).body).toEqual([]);
  });

  it('reports every schema problem at once, and unknown fields', async () => {
    const r = await api.post('/v1/domains', { domain: 'bad name!', soa: 'not-an-email', default_ttl: -1, status: 'on', axfr: ['1.2.3.4', 'x', '1.2.3.4'], extra: 1 });
    expectProblem(r, 400);
    expect(fieldsOf(r).sort()).toEqual(['axfr', 'axfr.1', 'default_ttl', 'domain', 'extra', 'soa', 'status'].sort());
    const missing = await api.post('/v1/domains', {});
    expectProblem(missing, 400);
    expect(fieldsOf(missing).sort()).toEqual(['domain', 'soa']);
    expect(missing.body.errors.every((e: any) => e.reason === 'is required')).toBe(true);
    const typed = await api.post('/v1/domains', { domain: 5, soa: 'a@b.example', default_ttl: '300' });
    expect(problemFields(typed, 400).sort()).toEqual(['default_ttl', 'domain']);
    const array = await api.post('/v1/domains', [1]);
    expect(expectProblem(array, 400).errors[0]).toEqual({ field: null, reason: 'the body must be a JSON object' });
  });

  it('reports the rules of the model too (numeric TLD), naming the v1 field, together with schema problems', async () => {
    const r = await api.post('/v1/domains', { domain: 'example.123', soa: 'a@b.example' });
    expect(problemFields(r, 400)).toEqual(['domain']);
    const both = await api.post('/v1/domains', { domain: 'example.123', soa: 'a@b.example', status: 'paused' });
    expect(problemFields(both, 400)).toEqual(['status', 'domain']);
    const c = await api.post('/v1/domains', { domain: 'rules.example', soa: 'a@rules.example' });
    const p = await api.patch(`/v1/domains/${c.body.id}`, { domain: 'rules.123', default_ttl: 'x' });
    expect(problemFields(p, 400)).toEqual(['default_ttl', 'domain']);
    // Stand-in values are not judged: with a required field missing, only the schema speaks.
    expect(problemFields(await api.post('/v1/domains', { domain: 'example.123' }), 400)).toEqual(['soa']);
  });

  it('answers 409 for a name already taken (by anyone)', async () => {
    const r = await api.post('/v1/domains', { domain: 'create.example', soa: 'x@create.example' });
    expect(problemFields(r, 409)).toEqual(['domain']);
  });

  it("answers 409 for a domain or zone mirror inside another account's domain, and for a rename onto one", async () => {
    const other = client(server.base, (await server.user('mallory')).key);
    for (const [path, body] of [
      ['/v1/domains', { domain: 'www.create.example', soa: 'x@evil.example' }],
      ['/v1/zonemirrors', { domain: 'www.create.example', masters: ['192.0.2.53'] }],
    ] as const) {
      const r = await other.post(path, body);
      expect(problemFields(r, 409)).toEqual(['domain']);
      expect(r.body.detail).toBe("The domain 'www.create.example' lies inside create.example, which another account manages; only that account can add names below it.");
    }
    const own = await other.post('/v1/domains', { domain: 'mallory.example', soa: 'x@mallory.example' });
    expect(problemFields(await other.patch(`/v1/domains/${own.body.id}`, { domain: 'mail.create.example' }), 409)).toEqual(['domain']);
    expect((await other.get(`/v1/domains/${own.body.id}`)).body.domain).toBe('mallory.example');
  });

  it('PUT replaces (omitted optional fields reset), PATCH changes only what is given', async () => {
    const c = await api.post('/v1/domains', { domain: 'put.example', soa: 'a@put.example', default_ttl: 300, axfr: ['192.0.2.9'], status: 'inactive' });
    const id = c.body.id;
    const p = await api.patch(`/v1/domains/${id}`, { default_ttl: 7200 });
    expect(p.status).toBe(200);
    expect(p.body).toEqual({ ...c.body, default_ttl: 7200 });
    const u = await api.put(`/v1/domains/${id}`, { domain: 'put2.example', soa: 'b@put2.example' });
    expect(u.status).toBe(200);
    expect(u.body).toEqual({ id, domain: 'put2.example', soa: 'b@put2.example', default_ttl: 0, status: 'active', axfr: [] });
    expect((await api.get(`/v1/domains/${id}`)).body).toEqual(u.body);
    const m = await api.call('PATCH', `/v1/domains/${id}`, { raw: '{"status":"inactive"}', headers: { 'content-type': 'application/merge-patch+json' } });
    expect(m.body.status).toBe('inactive');
    const withId = await api.patch(`/v1/domains/${id}`, { id: 5 });
    expectProblem(withId, 400);
    expect(fieldsOf(withId)).toEqual(['id']);
    const partial = await api.put(`/v1/domains/${id}`, { default_ttl: 5 });
    expectProblem(partial, 400);
    expect(fieldsOf(partial).sort()).toEqual(['domain', 'soa']);
  });

  it('DELETE answers 204, then the domain is 404 everywhere', async () => {
    const c = await api.post('/v1/domains', { domain: 'gone.example', soa: 'a@gone.example' });
    const d = await api.del(`/v1/domains/${c.body.id}`);
    expect(d.status).toBe(204);
    expect(d.text).toBe('');
    expectProblem(await api.get(`/v1/domains/${c.body.id}`), 404);
    expectProblem(await api.del(`/v1/domains/${c.body.id}`), 404);
    expectProblem(await api.put(`/v1/domains/${c.body.id}`, { domain: 'gone.example', soa: 'a@gone.example' }), 404);
    expectProblem(await api.patch(`/v1/domains/${c.body.id}`, {}), 404);
  });

  it('ETag and If-Match: 412 on a stale tag for PUT, PATCH and DELETE; the change is not made', async () => {
    const c = await api.post('/v1/domains', { domain: 'etag.example', soa: 'a@etag.example' });
    const url = `/v1/domains/${c.body.id}`;
    const tag = c.headers.get('etag') as string;
    const p = await api.patch(url, { default_ttl: 300 }, { headers: { 'if-match': tag } });
    expect(p.status).toBe(200);
    const newTag = p.headers.get('etag') as string;
    expect(newTag).not.toBe(tag);
    expect((await api.get(url)).headers.get('etag')).toBe(newTag);
    expectProblem(await api.patch(url, { default_ttl: 3600 }, { headers: { 'if-match': tag } }), 412);
    expectProblem(await api.put(url, { domain: 'etag.example', soa: 'b@etag.example' }, { headers: { 'if-match': tag } }), 412);
    expectProblem(await api.del(url, { headers: { 'if-match': tag } }), 412);
    expect((await api.get(url)).body.default_ttl).toBe(300);
    expect((await api.patch(url, { default_ttl: 3600 }, { headers: { 'if-match': `"other", ${newTag}` } })).status).toBe(200);
    expect((await api.del(url, { headers: { 'if-match': '*' } })).status).toBe(204);
  });

  it('If-Match holds under concurrency: of changes sent at once with one tag, exactly one lands', async () => {
    const c = await api.post('/v1/domains', { domain: 'race.example', soa: 'a@race.example' });
    const url = `/v1/domains/${c.body.id}`;
    const headers = { 'if-match': c.headers.get('etag') as string };
    const ttls = [300, 600, 900, 1200, 1800, 3600];
    const replies = await Promise.all(ttls.map((t) => api.patch(url, { default_ttl: t }, { headers })));
    const won = replies.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    for (const r of replies) if (!won.includes(r)) expectProblem(r, 412);
    expect((await api.get(url)).body.default_ttl).toBe(won[0]!.body.default_ttl);
    // A delete with the stale tag changes nothing either.
    expectProblem(await api.del(url, { headers }), 412);
  });

  it('answers 405 with Allow for methods a path does not have, and OPTIONS with Allow', async () => {
    const r = await api.call('DELETE', '/v1/domains');
    expectProblem(r, 405);
    expect(r.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
    const c = await api.post('/v1/domains', { domain: 'allow.example', soa: 'a@allow.example' });
    const p = await api.post(`/v1/domains/${c.body.id}`, {});
    expectProblem(p, 405);
    expect(p.headers.get('allow')).toBe('GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
    const o = await call(server.base, 'OPTIONS', '/v1/domains');
    expect(o.status).toBe(204);
    expect(o.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
    // Methods fetch will not send: 405 as well, and a method Node cannot parse gets a problem document.
    const port = Number(new URL(server.base).port);
    for (const method of ['TRACE', 'PROPFIND']) {
      const raw = await rawRequest(port, `${method} /v1/domains/${c.body.id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
      expect(raw).toMatch(/^HTTP\/1\.1 405 /);
      expect(raw).toMatch(/\r\nallow: GET, PUT, PATCH, DELETE, HEAD, OPTIONS\r\n/i);
      expect(raw).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    }
    const foo = await rawRequest(port, `FOO /v1/domains HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expect(foo).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(foo.slice(foo.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 400, title: 'Bad Request' });
  });

  it('refuses unknown query fields on every route, as on lists', async () => {
    const c = await api.post('/v1/domains', { domain: 'query.example', soa: 'a@query.example' });
    for (const [r, field] of [
      [await api.get(`/v1/domains/${c.body.id}?name=x`), 'name'],
      [await api.patch(`/v1/domains/${c.body.id}?bogus=1`, { default_ttl: 300 }), 'bogus'],
      [await api.post('/v1/domains?bogus=1', { domain: 'query2.example', soa: 'a@query.example' }), 'bogus'],
      [await api.del(`/v1/domains/${c.body.id}?bogus=1`), 'bogus'],
    ] as const) {
      expect(problemFields(r, 400)).toEqual([field]);
      expect(r.body.errors[0].reason).toBe('is not a known field');
    }
    expect((await api.get(`/v1/domains/${c.body.id}`)).body.default_ttl).toBe(0);
  });

  it('answers 400 for bad JSON, 415 for a non-JSON body, 413 for a huge body, 404 for unknown paths', async () => {
    const bad = await api.call('POST', '/v1/domains', { raw: '{"domain":', headers: { 'content-type': 'application/json' } });
    expect(expectProblem(bad, 400).detail).toMatch(/JSON/);
    expectProblem(await api.call('POST', '/v1/domains', { raw: '{}', headers: { 'content-type': 'application/json' }, body: undefined }), 400);
    expectProblem(await api.call('POST', '/v1/domains', { raw: 'domain=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415);
    expectProblem(await api.call('POST', '/v1/domains', { raw: 'hello', headers: { 'content-type': 'text/plain' } }), 415);
    // JSON is UTF-8: other bytes are refused, not stored as replacement characters; other charsets and codings are 415.
    const latin1 = Buffer.from('{"domain":"caf\xe9.example","soa":"a@b.example"}', 'latin1');
    const notUtf8 = await fetch(`${server.base}/v1/domains`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: latin1 });
    expect(notUtf8.status).toBe(400);
    expect(((await notUtf8.json()) as { detail: string }).detail).toBe('The body is not valid UTF-8.');
    const body = '{"domain":"charset.example","soa":"a@charset.example"}';
    const refused: Record<string, string>[] = [{ 'content-type': 'application/json; charset=iso-8859-1' }, { 'content-type': 'application/json', 'content-encoding': 'gzip' }];
    for (const headers of refused) {
      expectProblem(await api.call('POST', '/v1/domains', { raw: body, headers }), 415);
    }
    expect((await api.call('POST', '/v1/domains', { raw: body, headers: { 'content-type': 'application/json; charset=UTF-8' } })).status).toBe(201);
    const huge = await api.call('POST', '/v1/domains', { raw: JSON.stringify({ domain: 'x'.repeat(2 * 1024 * 1024) }), headers: { 'content-type': 'application/json' } });
    expectProblem(huge, 413);
    expectProblem(await api.get('/v1/nothing'), 404);
    expectProblem(await api.get('/v1/domains/abc'), 400);
  });
});

describe('HEAD, limits and the document', () => {
  it('answers HEAD like GET without a body, with the ETag', async () => {
    const c = await api.post('/v1/domains', { domain: 'head.example', soa: 'a@head.example' });
    const h = await api.call('HEAD', `/v1/domains/${c.body.id}`);
    expect(h.status).toBe(200);
    expect(h.text).toBe('');
    expect(h.headers.get('etag')).toBe(c.headers.get('etag'));
  });

  it('answers 409 when a count limit is reached', async () => {
    const small = await startTestServer({ limits: { domainsPerAccount: 1, recordsPerDomain: 1 } });
    try {
      const { key: k } = await small.user('small');
      const c = client(small.base, k);
      const d = await c.post('/v1/domains', { domain: 'one.example', soa: 'a@one.example' });
      expect(d.status).toBe(201);
      expect(problemFields(await c.post('/v1/domains', { domain: 'two.example', soa: 'a@two.example' }), 409)).toEqual([null]);
      expect((await c.post(`/v1/domains/${d.body.id}/A`, { address: '192.0.2.1' })).status).toBe(201);
      expect(problemFields(await c.post(`/v1/domains/${d.body.id}/A`, { address: '192.0.2.2' }), 409)).toEqual([null]);
    } finally {
      await small.close();
    }
  });

  it('serves the OpenAPI document without a key, and only with GET', async () => {
    const r = await call(server.base, 'GET', '/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    const p = await api.post('/v1/openapi.json', {});
    expectProblem(p, 405);
    expect(p.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('interface B authentication', () => {
  it('takes the key as Bearer or as the Basic password', async () => {
    expect((await call(server.base, 'GET', '/v1/domains', { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    const basic = `Basic ${Buffer.from(`anyone:${key}`).toString('base64')}`;
    expect((await call(server.base, 'GET', '/v1/domains', { headers: { authorization: basic } })).status).toBe(200);
  });

  it('answers 401 with WWW-Authenticate when the key is missing or wrong', async () => {
    const basic = (userPass: string) => ({ authorization: `Basic ${Buffer.from(userPass).toString('base64')}` });
    // The key as the Basic user name is not taken (documented: the user name is ignored).
    const attempts: Record<string, string>[] = [{}, { authorization: `Bearer ${key}x` }, basic('u:wrong'), basic(`${key}:`), basic(`${key}:wrong`), basic(key), { authorization: 'Token abc' }];
    for (const headers of attempts) {
      const r = await call(server.base, 'GET', '/v1/domains', { headers });
      expectProblem(r, 401);
      expect(r.headers.get('www-authenticate')).toMatch(/Bearer realm="zonehost", Basic realm="zonehost"/);
    }
    // Authentication comes before looking at the body.
    expectProblem(await call(server.base, 'POST', '/v1/domains', { body: { nonsense: true } }), 401);
  });

  it("checks the key before a list's query, and lists what a key limited to some domains sees, page by page", async () => {
    for (const q of ['limit=abc', 'after=-1', 'name=' + 'x'.repeat(300), 'limit=2']) {
      expectProblem(await call(server.base, 'GET', `/v1/domains?${q}`, { headers: { authorization: `Bearer ${key}x` } }), 401);
      expectProblem(await call(server.base, 'GET', `/v1/zonemirrors?${q}`, { headers: { authorization: `Bearer ${key}x` } }), 401);
    }
    expectProblem(await api.get('/v1/domains?limit=abc'), 400);
    const ids: number[] = [];
    for (const name of ['page-a.example', 'page-b.example', 'page-c.example']) ids.push((await api.post('/v1/domains', { domain: name, soa: `h@${name}` })).body.id);
    const limited = (await api.post('/v1/keys', { username: 'alice', password: 'correct horse battery staple', scope: { domains: [ids[2], ids[0]] } })).body.key as string;
    const pages: number[][] = [];
    for (let url: string | null = '/v1/domains?limit=1'; url; ) {
      const r = await client(server.base, limited).get(url);
      expect(r.status).toBe(200);
      pages.push(r.body.map((d: { id: number }) => d.id));
      url = /^<([^>]+)>/.exec(r.headers.get('link') ?? '')?.[1] ?? null;
    }
    expect(pages).toEqual([[ids[0]], [ids[2]]]);
    expect((await client(server.base, limited).get('/v1/zonemirrors')).body).toEqual([]);
    const all = (await api.get('/v1/domains?limit=500')).body.map((d: { id: number }) => d.id);
    expect(all).toEqual(expect.arrayContaining(ids));
    expect(all).toEqual([...all].sort((a: number, b: number) => a - b));
  });
});

describe('the same domains through both interfaces', () => {
  it('shows a domain created through interface A under the same id, and the reverse', async () => {
    const a = await v3(server.base, { api_action: 'domain.create', api_key: key, Domain: 'from-a.example', Type: 'master', SOA_Email: 'a@from-a.example', TTL_sec: 300, status: 2, axfr_ips: '192.0.2.5' });
    const id = a.DATA.DomainID;
    const b = await api.get(`/v1/domains/${id}`);
    expect(b.body).toEqual({ id, domain: 'from-a.example', soa: 'a@from-a.example', default_ttl: 300, status: 'active', axfr: ['192.0.2.5'] });
    // Setting the status name it already has keeps interface A's edit mode.
    await api.patch(`/v1/domains/${id}`, { status: 'active', default_ttl: 3600 });
    let list = await v3(server.base, { api_action: 'domain.list', api_key: key, DomainID: id });
    expect(list.DATA[0]).toMatchObject({ STATUS: 2, TTL_SEC: 3600 });
    await api.patch(`/v1/domains/${id}`, { status: 'inactive' });
    list = await v3(server.base, { api_action: 'domain.list', api_key: key, DomainID: id });
    expect(list.DATA[0].STATUS).toBe(0);

    const created = await api.post('/v1/domains', { domain: 'from-b.example', soa: 'b@from-b.example', axfr: ['2001:db8::5'] });
    list = await v3(server.base, { api_action: 'domain.list', api_key: key, DomainID: created.body.id });
    expect(list.DATA[0]).toMatchObject({ DOMAINID: created.body.id, DOMAIN: 'from-b.example', SOA_EMAIL: 'b@from-b.example', STATUS: 1, TTL_SEC: 0, TYPE: 'master', AXFR_IPS: '2001:db8::5;' });
  });

  it('does not list interface A slave domains under /v1/domains', async () => {
    const a = await v3(server.base, { api_action: 'domain.create', api_key: key, Domain: 'slave-a.example', Type: 'slave', master_ips: '192.0.2.53' });
    expectProblem(await api.get(`/v1/domains/${a.DATA.DomainID}`), 404);
    expect((await api.get('/v1/domains')).body.map((d: any) => d.id)).not.toContain(a.DATA.DomainID);
  });
});
