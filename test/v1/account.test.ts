/** Interface B zone mirrors, API keys, the audit trail, rate limits and isolation between accounts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_TYPE_NAMES } from '../../src/model/records/index.js';
import { startTestServer, v3, type TestServer } from '../support/server.js';
import { call, client, expectProblem, problemFields, type Client } from './support.js';

const PASSWORD = 'correct horse battery staple';
let server: TestServer;
let key: string;
let api: Client;

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.user('alice', PASSWORD));
  api = client(server.base, key);
});
afterAll(() => server.close());

describe('/v1/zonemirrors', () => {
  it('creates, reads, lists, changes and deletes a mirror, with read-only transfer state', async () => {
    const c = await api.post('/v1/zonemirrors', { domain: 'Mirror.Example', masters: ['192.0.2.53', '2001:db8::53'] });
    expect(c.status, c.text).toBe(201);
    const id = c.body.id;
    expect(c.body).toEqual({
      id,
      domain: 'mirror.example',
      masters: ['192.0.2.53', '2001:db8::53'],
      status: 'active',
      axfr: [],
      tsig: null,
      tls: false,
      tls_verify: null,
      transfer: { serial: null, last_success: null, last_attempt: expect.toBeOneOf([null, expect.any(String)]), last_error: expect.toBeOneOf([null, expect.any(String)]) },
    });
    expect(c.headers.get('location')).toBe(`/v1/zonemirrors/${id}`);
    const g = await api.get(`/v1/zonemirrors/${id}`);
    expect(g.headers.get('etag')).toMatch(/^"/);
    expect((await api.get('/v1/zonemirrors?name=mirror.example')).body.map((m: any) => m.id)).toEqual([id]);

    await server.services.mirrors.failed(id, 'connection refused by 192.0.2.53');
    const failed = (await api.get(`/v1/zonemirrors/${id}`)).body.transfer;
    expect(failed.serial).toBeNull();
    expect(typeof failed.last_error).toBe('string');
    expect(Date.parse(failed.last_attempt)).not.toBeNaN();

    const p = await api.patch(`/v1/zonemirrors/${id}`, { masters: ['192.0.2.54'], status: 'inactive', axfr: ['192.0.2.99'], tls: true });
    expect(p.body).toMatchObject({ masters: ['192.0.2.54'], status: 'inactive', axfr: ['192.0.2.99'], tls: true });
    const u = await api.put(`/v1/zonemirrors/${id}`, { domain: 'mirror.example', masters: ['192.0.2.55'] });
    expect(u.body).toMatchObject({ masters: ['192.0.2.55'], status: 'active', axfr: [], tls: false });
    expectProblem(await api.patch(`/v1/zonemirrors/${id}`, { transfer: { serial: 5 } }), 400);
    expectProblem(await api.put(`/v1/zonemirrors/${id}`, { domain: 'mirror.example', masters: ['192.0.2.56'] }, { headers: { 'if-match': c.headers.get('etag') as string } }), 412);
    const list = await v3(server.base, { api_action: 'domain.list', api_key: key, DomainID: id });
    expect(list.DATA[0]).toMatchObject({ TYPE: 'slave', MASTER_IPS: '192.0.2.55;', DOMAIN: 'mirror.example' });
    expect((await api.del(`/v1/zonemirrors/${id}`)).status).toBe(204);
    expectProblem(await api.get(`/v1/zonemirrors/${id}`), 404);
  });

  it('checks masters and refuses unknown fields, naming each', async () => {
    expect(problemFields(await api.post('/v1/zonemirrors', { domain: 'm2.example' }), 400)).toEqual(['masters']);
    expect(problemFields(await api.post('/v1/zonemirrors', { domain: 'm2.example', masters: [] }), 400)).toEqual(['masters']);
    expect(problemFields(await api.post('/v1/zonemirrors', { domain: 'm2.example', masters: ['x'], soa: 'a@b.example' }), 400).sort()).toEqual(['masters.0', 'soa']);
  });

  it('shows interface A slaves here and never masters', async () => {
    const a = await v3(server.base, { api_action: 'domain.create', api_key: key, Domain: 'slave-from-a.example', Type: 'slave', master_ips: '192.0.2.1;192.0.2.2' });
    const m = await api.get(`/v1/zonemirrors/${a.DATA.DomainID}`);
    expect(m.body).toMatchObject({ id: a.DATA.DomainID, domain: 'slave-from-a.example', masters: ['192.0.2.1', '192.0.2.2'] });
    const d = await api.post('/v1/domains', { domain: 'master-b.example', soa: 'a@master-b.example' });
    expectProblem(await api.get(`/v1/zonemirrors/${d.body.id}`), 404);
    expectProblem(await api.del(`/v1/zonemirrors/${d.body.id}`), 404);
    expect((await api.get('/v1/zonemirrors')).body.map((x: any) => x.id)).not.toContain(d.body.id);
    expect((await api.get(`/v1/domains/${d.body.id}`)).status).toBe(200);
  });

  it('answers 405 with Allow', async () => {
    const r = await api.put('/v1/zonemirrors', {});
    expectProblem(r, 405);
    expect(r.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
  });
});

describe('/v1/keys', () => {
  it('creates a key with user name and password, shows it once, lists only its prefix, revokes it', async () => {
    const c = await call(server.base, 'POST', '/v1/keys', { body: { username: 'alice', password: PASSWORD, label: 'laptop', expires: 2 } });
    expect(c.status, c.text).toBe(201);
    expect(c.body).toEqual({ id: expect.any(Number), label: 'laptop', created: expect.any(String), expires: expect.any(String), prefix: expect.any(String), scope: {}, member_id: expect.any(Number), key: expect.any(String) });
    expect(Date.parse(c.body.expires) - Date.parse(c.body.created)).toBe(2 * 3600_000);
    expect(c.body.key.startsWith(c.body.prefix)).toBe(true);
    expect(c.headers.get('location')).toBe(`/v1/keys/${c.body.id}`);
    const mine = client(server.base, c.body.key);
    expect((await mine.get('/v1/domains')).status).toBe(200);
    // The same key works on interface A.
    expect((await v3(server.base, { api_action: 'domain.list', api_key: c.body.key })).ERRORARRAY).toEqual([]);

    const list = await api.get('/v1/keys');
    const shown = list.body.find((k: any) => k.id === c.body.id);
    expect(shown).toEqual({ id: c.body.id, label: 'laptop', created: c.body.created, expires: c.body.expires, prefix: c.body.prefix, scope: {}, member_id: c.body.member_id });
    expect(list.text).not.toContain(c.body.key);
    expect(list.text).not.toContain(key);
    expect((await api.get(`/v1/keys/${c.body.id}`)).body).toEqual(shown);

    const never = await call(server.base, 'POST', '/v1/keys', { body: { username: 'alice', password: PASSWORD, expires: 0 } });
    expect(never.body).toMatchObject({ label: '', expires: null });

    expect((await api.del(`/v1/keys/${c.body.id}`)).status).toBe(204);
    const gone = await mine.get('/v1/domains');
    expectProblem(gone, 401);
    expect((await v3(server.base, { api_action: 'domain.list', api_key: c.body.key })).ERRORARRAY[0].ERRORCODE).toBe(4);
    expectProblem(await api.del(`/v1/keys/${c.body.id}`), 404);
    expectProblem(await api.get(`/v1/keys/${c.body.id}`), 404);
  });

  it('takes a key from interface A user.getapikey too', async () => {
    const a = await v3(server.base, { api_action: 'user.getapikey', username: 'alice', password: PASSWORD });
    expect((await client(server.base, a.DATA.API_KEY).get('/v1/keys')).status).toBe(200);
  });

  it('answers 401 for wrong credentials and 400 for bad input, naming the fields', async () => {
    const wrong = await call(server.base, 'POST', '/v1/keys', { body: { username: 'alice', password: 'nope' } });
    expectProblem(wrong, 401);
    expect((await call(server.base, 'POST', '/v1/keys', { body: { username: 'nobody', password: 'nope' } })).text).toBe(wrong.text);
    expect(problemFields(await call(server.base, 'POST', '/v1/keys', { body: { password: 'x', expires: 99999, label: 5 } }), 400).sort()).toEqual(['expires', 'label', 'username']);
    const r = await api.put('/v1/keys', {});
    expectProblem(r, 405);
    expect(r.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
  });

  it('throttles password guessing with 429 and Retry-After', async () => {
    await server.user('guessed', PASSWORD);
    let last = await call(server.base, 'POST', '/v1/keys', { body: { username: 'guessed', password: 'guess-0' } });
    for (let i = 1; i < 30 && last.status === 401; i++) last = await call(server.base, 'POST', '/v1/keys', { body: { username: 'guessed', password: `guess-${i}` } });
    expectProblem(last, 429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    // Even the right password waits now.
    expectProblem(await call(server.base, 'POST', '/v1/keys', { body: { username: 'guessed', password: PASSWORD } }), 429);
  });
});

describe('/v1/events', () => {
  it("lists the account's changes with who, when, how and before/after, filtered by domain and paged", async () => {
    const d = await api.post('/v1/domains', { domain: 'audited.example', soa: 'a@audited.example' });
    const a = await api.post(`/v1/domains/${d.body.id}/A`, { name: 'www', address: '192.0.2.1' });
    await v3(server.base, { api_action: 'domain.resource.update', api_key: key, DomainID: d.body.id, ResourceID: a.body.id, Target: '192.0.2.2' });
    await api.del(`/v1/domains/${d.body.id}/A/${a.body.id}`);
    const r = await api.get(`/v1/events?domain=${d.body.id}`);
    expect(r.status).toBe(200);
    expect(r.body.map((e: any) => [e.action, e.interface, e.object_id])).toEqual([
      ['domain.create', 'v1', d.body.id],
      ['record.create', 'v1', a.body.id],
      ['record.update', 'v3', a.body.id],
      ['record.delete', 'v1', a.body.id],
    ]);
    // Every change names the API key that made it, by id as well as by label.
    const keyId = (await api.get('/v1/keys')).body.find((k: any) => key.startsWith(k.prefix)).id;
    expect(r.body.map((e: any) => e.key_id)).toEqual([keyId, keyId, keyId, keyId]);
    const update = r.body[2];
    expect(update).toMatchObject({ domain_id: d.body.id, key_label: 'test', key_id: keyId, remote_addr: expect.stringMatching(/127\.0\.0\.1/) });
    expect(update.before).toMatchObject({ data: { address: '192.0.2.1' } });
    expect(update.after).toMatchObject({ data: { address: '192.0.2.2' } });
    expect(Date.parse(update.at)).not.toBeNaN();

    const first = await api.get(`/v1/events?domain=${d.body.id}&limit=3`);
    expect(first.body.map((e: any) => e.id)).toEqual(r.body.slice(0, 3).map((e: any) => e.id));
    const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '')?.[1] as string;
    expect(next).toContain(`domain=${d.body.id}`);
    expect((await api.get(next)).body).toEqual(r.body.slice(3));
    expect(problemFields(await api.get('/v1/events?domain=x'), 400)).toEqual(['domain']);
    const p = await api.post('/v1/events', {});
    expectProblem(p, 405);
    expect(p.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('rate limits on interface B', () => {
  it('answers a 429 problem with Retry-After (interface A keeps its envelope)', async () => {
    const limited = await startTestServer({ rateLimits: { perAddress: 0, perKey: 3 } });
    try {
      const { key: k } = await limited.user('rl');
      const c = client(limited.base, k);
      const statuses: number[] = [];
      let last = await c.get('/v1/domains');
      statuses.push(last.status);
      for (let i = 0; i < 5 && last.status !== 429; i++) {
        last = await c.get('/v1/domains');
        statuses.push(last.status);
      }
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expectProblem(last, 429);
      expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
      const a = await fetch(`${limited.base}/api/?api_action=domain.list&api_key=${k}`);
      expect(a.status).toBe(429);
      expect(((await a.json()) as any).ERRORARRAY[0].ERRORCODE).toBe(14);
    } finally {
      await limited.close();
    }
  });
});

describe('isolation between accounts', () => {
  it("another account's ids answer exactly like missing ones on every route, and never show in lists", async () => {
    const { key: eveKey } = await server.user('eve');
    const eve = client(server.base, eveKey);
    const dom = (await eve.post('/v1/domains', { domain: 'eve.example', soa: 'eve@eve.example' })).body.id;
    const mirror = (await eve.post('/v1/zonemirrors', { domain: 'eve-mirror.example', masters: ['192.0.2.9'] })).body.id;
    const rec: Record<string, number> = {};
    const bodies: Record<string, object> = {
      A: { address: '192.0.2.1' }, AAAA: { address: '2001:db8::1' }, CNAME: { name: 'c', target: 'x.example' }, MX: { mail_server: 'mx.example' },
      NS: { name: 'sub', nameserver: 'ns.example' }, TXT: { text: 'eve' }, SRV: { service: 'sip', protocol: 'tcp', port: 1, target: 'sip.example' },
      CAA: { tag: 'issue', value: ';' },
      TLSA: { name: '_443._tcp', certificate_usage: 3, selector: 1, matching_type: 0, certificate_association_data: 'AB' },
      SSHFP: { algorithm: 4, fingerprint_type: 1, fingerprint: '86F7E437FAA5A7FCE15D1DDCB9EAEAEA377667B8' },
      PTR: { name: '10', ptrdname: 'host.example' },
      NAPTR: { order: 1, preference: 1, flags: 'U', services: 'E2U+sip', regexp: '!^.*$!sip:eve@example.com!' },
      // At NS's name: a delegation (the NS record is made first).
      DS: { name: 'sub', key_tag: 1, algorithm: 13, digest_type: 1, digest: '86F7E437FAA5A7FCE15D1DDCB9EAEAEA377667B8' },
      SVCB: { svc_priority: 1, target_name: '.' },
      HTTPS: { svc_priority: 0, target_name: 'x.example' },
      ALIAS: { name: 'cdn', target: 'cdn.provider.example' },
    };
    for (const t of RECORD_TYPE_NAMES) rec[t] = (await eve.post(`/v1/domains/${dom}/${t}`, bodies[t])).body.id;
    const eveKeyId = (await eve.get('/v1/keys')).body[0].id;
    const mine = (await api.post('/v1/domains', { domain: 'alice-iso.example', soa: 'a@alice-iso.example' })).body.id;
    const MISSING = 987654;

    // [method, path with the other account's id, the same path with a missing id, body]
    const cases: [string, string, string, unknown][] = [];
    for (const m of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const body = m === 'PUT' ? { domain: 'x.example', soa: 'a@x.example' } : m === 'PATCH' ? {} : undefined;
      cases.push([m, `/v1/domains/${dom}`, `/v1/domains/${MISSING}`, body]);
      cases.push([m, `/v1/zonemirrors/${mirror}`, `/v1/zonemirrors/${MISSING}`, m === 'PUT' ? { domain: 'x.example', masters: ['192.0.2.1'] } : body]);
    }
    cases.push(['GET', `/v1/domains/${dom}/records`, `/v1/domains/${MISSING}/records`, undefined]);
    for (const t of RECORD_TYPE_NAMES) {
      cases.push(['GET', `/v1/domains/${dom}/${t}`, `/v1/domains/${MISSING}/${t}`, undefined]);
      cases.push(['POST', `/v1/domains/${dom}/${t}`, `/v1/domains/${MISSING}/${t}`, bodies[t]]);
      for (const m of ['GET', 'PUT', 'PATCH', 'DELETE']) {
        const body = m === 'PUT' ? bodies[t] : m === 'PATCH' ? {} : undefined;
        // Through her domain id, and through my own domain with her record id.
        cases.push([m, `/v1/domains/${dom}/${t}/${rec[t]}`, `/v1/domains/${MISSING}/${t}/${MISSING}`, body]);
        cases.push([m, `/v1/domains/${mine}/${t}/${rec[t]}`, `/v1/domains/${mine}/${t}/${MISSING}`, body]);
      }
    }
    for (const m of ['GET', 'DELETE']) cases.push([m, `/v1/keys/${eveKeyId}`, `/v1/keys/${MISSING}`, undefined]);
    for (const [method, theirs, missing, body] of cases) {
      const a = await api.call(method, theirs, body === undefined ? {} : { body });
      const b = await api.call(method, missing, body === undefined ? {} : { body });
      expect(a.status, `${method} ${theirs}`).toBe(404);
      expect(a.text, `${method} ${theirs}`).toBe(b.text);
      expect([...a.headers.keys()].sort()).toEqual([...b.headers.keys()].sort());
    }
    const eventsOfHers = await api.get(`/v1/events?domain=${dom}`);
    expect(eventsOfHers.body).toEqual([]);

    const everything = [
      await api.get('/v1/domains'),
      await api.get('/v1/zonemirrors'),
      await api.get('/v1/keys'),
      await api.get('/v1/events'),
      await api.get('/v1/domains?name=eve.example'),
    ];
    for (const r of everything) {
      expect(r.status).toBe(200);
      expect(r.text).not.toMatch(/eve/);
    }
    // Her data is untouched.
    expect((await eve.get(`/v1/domains/${dom}/records`)).body.length).toBe(RECORD_TYPE_NAMES.length);
    expect((await eve.get(`/v1/zonemirrors/${mirror}`)).status).toBe(200);
    expect((await eve.get('/v1/keys')).body.map((k: any) => k.id)).toContain(eveKeyId);
  });
});
