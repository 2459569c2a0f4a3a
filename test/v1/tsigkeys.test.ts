/** Interface B's TSIG keys (/v1/tsigkeys) and zone mirrors' master keys (the `tsig` field of /v1/zonemirrors), over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, v3, type TestServer } from '../support/server.js';
import { client, expectProblem, problemFields, type Client } from './support.js';

let server: TestServer;
let alice: Client;
let bob: Client;
let domainId: number;
let mirrorId: number;
let bobDomainId: number;
let aliceKey: string;
let aliceAccount: number;

/** 16 and 15 bytes, base64. */
const SECRET16 = Buffer.from('0123456789abcdef').toString('base64');
const SECRET15 = Buffer.from('0123456789abcde').toString('base64');

beforeAll(async () => {
  server = await startTestServer();
  const a = await server.user('alice');
  aliceKey = a.key;
  aliceAccount = a.accountId;
  alice = client(server.base, a.key);
  bob = client(server.base, (await server.user('bob')).key);
  domainId = (await alice.post('/v1/domains', { domain: 'example.com', soa: 'hostmaster@example.com' })).body.id;
  mirrorId = (await alice.post('/v1/zonemirrors', { domain: 'mirrored.example', masters: ['192.0.2.53'] })).body.id;
  bobDomainId = (await bob.post('/v1/domains', { domain: 'bob.example', soa: 'hostmaster@bob.example' })).body.id;
});
afterAll(() => server.close());

describe('/v1/tsigkeys', () => {
  it('creates a key with a generated secret, shown only in the 201 answer', async () => {
    const c = await alice.post('/v1/tsigkeys', {
      name: 'acme.example.com.',
      algorithm: 'hmac-sha256',
      domains: [domainId],
      update: { names: ['_acme-challenge'], types: ['TXT'] },
      transfer: false,
    });
    expect(c.status, c.text).toBe(201);
    const id = c.body.id;
    expect(c.body).toEqual({
      id,
      name: 'acme.example.com.',
      algorithm: 'hmac-sha256',
      secret: expect.any(String),
      domains: [domainId],
      update: { names: ['_acme-challenge'], types: ['TXT'] },
      transfer: false,
      created: expect.any(String),
      member_id: expect.any(Number),
    });
    expect(Buffer.from(c.body.secret, 'base64').length).toBe(32);
    expect(Buffer.from(c.body.secret, 'base64').toString('base64')).toBe(c.body.secret);
    expect(c.headers.get('location')).toBe(`/v1/tsigkeys/${id}`);

    const g = await alice.get(`/v1/tsigkeys/${id}`);
    expect(g.status).toBe(200);
    const { secret: _s, ...shown } = c.body;
    expect(g.body).toEqual(shown);
    expect(g.headers.get('etag')).toMatch(/^"/);
    const list = await alice.get('/v1/tsigkeys');
    expect(list.body).toContainEqual(shown);
    for (const r of [g, list]) expect(r.text).not.toContain(c.body.secret);

    // What the DNS side reads: the secret, found by the name as a message carries it.
    const stored = await server.services.tsigKeys.byName('ACME.example.com.');
    expect(stored).toMatchObject({ id, name: 'acme.example.com', secret: c.body.secret, accountId: expect.any(Number) });
  });

  it('takes a given secret and defaults the other fields', async () => {
    const c = await alice.post('/v1/tsigkeys', { name: 'given.example.com', secret: SECRET16 });
    expect(c.status, c.text).toBe(201);
    expect(c.body).toMatchObject({ name: 'given.example.com.', algorithm: 'hmac-sha256', secret: SECRET16, domains: [], update: false, transfer: false });
    // A secret without padding is shown canonically.
    const unpadded = await alice.post('/v1/tsigkeys', { name: 'unpadded.example.com', secret: SECRET16.replace(/=+$/, ''), algorithm: 'hmac-sha1', update: true, transfer: true, domains: [mirrorId] });
    expect(unpadded.status, unpadded.text).toBe(201);
    expect(unpadded.body).toMatchObject({ secret: SECRET16, algorithm: 'hmac-sha1', update: true, transfer: true, domains: [mirrorId] });
  });

  it('keeps names unique across accounts (409), case and trailing dot aside', async () => {
    expect((await alice.post('/v1/tsigkeys', { name: 'unique.example' })).status).toBe(201);
    expect(problemFields(await bob.post('/v1/tsigkeys', { name: 'Unique.Example.' }), 409)).toEqual(['name']);
    expect(problemFields(await alice.post('/v1/tsigkeys', { name: 'unique.example.' }), 409)).toEqual(['name']);
    const other = await alice.post('/v1/tsigkeys', { name: 'other-unique.example' });
    expect(problemFields(await alice.patch(`/v1/tsigkeys/${other.body.id}`, { name: 'UNIQUE.example' }), 409)).toEqual(['name']);
  });

  it("refuses domains that are not the caller's own, naming the id", async () => {
    const r = await alice.post('/v1/tsigkeys', { name: 'foreign.example.com', domains: [domainId, bobDomainId, 999999] });
    expect(problemFields(r, 400)).toEqual(['domains', 'domains']);
    expect(r.body.errors.map((e: any) => e.reason).join(' ')).toContain(String(bobDomainId));
    expect(r.body.errors.map((e: any) => e.reason).join(' ')).toContain('999999');
    expect((await alice.get('/v1/tsigkeys')).body.map((k: any) => k.name)).not.toContain('foreign.example.com.');
  });

  it('names the field of every invalid value', async () => {
    const bad: [unknown, string[]][] = [
      [{ name: 'bad name!' }, ['name']],
      [{ name: '' }, ['name']],
      [{ name: 'a..b' }, ['name']],
      [{}, ['name']],
      [{ name: 'k1.example', algorithm: 'hmac-md5' }, ['algorithm']],
      [{ name: 'k1.example', secret: SECRET15 }, ['secret']],
      [{ name: 'k1.example', secret: 'not base64!' }, ['secret']],
      [{ name: 'k1.example', secret: 42 }, ['secret']],
      [{ name: 'k1.example', update: { names: ['bad name!'] } }, ['update.names']],
      [{ name: 'k1.example', update: { names: [] } }, ['update.names']],
      [{ name: 'k1.example', update: { types: ['BOGUS'] } }, ['update.types']],
      [{ name: 'k1.example', update: { types: ['SOA'] } }, ['update.types']],
      [{ name: 'k1.example', update: { types: [] } }, ['update.types']],
      [{ name: 'k1.example', update: { names: ['x'], owners: ['y'] } }, ['update.owners']],
      [{ name: 'k1.example', update: 'yes' }, ['update']],
      [{ name: 'k1.example', domains: ['one'] }, ['domains.0']],
      [{ name: 'k1.example', domains: 5 }, ['domains']],
      [{ name: 'k1.example', transfer: 'yes' }, ['transfer']],
      [{ name: 'k1.example', colour: 'red' }, ['colour']],
      [{ name: 'bad name!', algorithm: 'md5', secret: SECRET15 }, ['algorithm', 'name', 'secret']],
    ];
    for (const [body, fields] of bad) {
      const r = await alice.post('/v1/tsigkeys', body);
      expect(problemFields(r, 400).sort(), JSON.stringify(body)).toEqual(fields);
    }
    expect((await alice.get('/v1/tsigkeys')).body.map((k: any) => k.name)).not.toContain('k1.example.');
    // Scope names are relative; @ is the apex, *.x a subtree.
    const ok = await alice.post('/v1/tsigkeys', { name: 'scoped.example', update: { names: ['@', '*.dyn', '_acme-challenge.WWW.'], types: ['txt', 'A'] } });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.update).toEqual({ names: ['@', '*.dyn', '_acme-challenge.www'], types: ['TXT', 'A'] });
  });

  it('changes fields by PATCH, never the secret, with If-Match', async () => {
    const c = await alice.post('/v1/tsigkeys', { name: 'patch.example.com' });
    const id = c.body.id;
    const p = await alice.patch(`/v1/tsigkeys/${id}`, { name: 'patched.example.com.', algorithm: 'hmac-sha512', domains: [domainId, mirrorId, domainId], update: { types: ['TXT'] }, transfer: true });
    expect(p.status, p.text).toBe(200);
    expect(p.body).toEqual({ id, name: 'patched.example.com.', algorithm: 'hmac-sha512', domains: [domainId, mirrorId], update: { types: ['TXT'] }, transfer: true, created: c.body.created, member_id: c.body.member_id });
    expect(p.headers.get('etag')).toBe((await alice.get(`/v1/tsigkeys/${id}`)).headers.get('etag'));
    expect((await server.services.tsigKeys.byName('patched.example.com'))?.secret).toBe(c.body.secret);
    expect(await server.services.tsigKeys.byName('patch.example.com')).toBeUndefined();

    expect(problemFields(await alice.patch(`/v1/tsigkeys/${id}`, { secret: SECRET16 }), 400)).toEqual(['secret']);
    expect(problemFields(await alice.patch(`/v1/tsigkeys/${id}`, { domains: [bobDomainId] }), 400)).toEqual(['domains']);
    expect(problemFields(await alice.patch(`/v1/tsigkeys/${id}`, { algorithm: 'hmac-md5' }), 400)).toEqual(['algorithm']);
    expect(problemFields(await alice.patch(`/v1/tsigkeys/${id}`, { update: { names: ['bad name!'] } }), 400)).toEqual(['update.names']);
    expectProblem(await alice.patch(`/v1/tsigkeys/${id}`, { transfer: false }, { headers: { 'if-match': c.headers.get('etag') as string } }), 412);
    const fresh = await alice.patch(`/v1/tsigkeys/${id}`, { update: false }, { headers: { 'if-match': p.headers.get('etag') as string } });
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.body.update).toBe(false);
    expect((await alice.patch(`/v1/tsigkeys/${id}`, {})).body).toEqual(fresh.body);
  });

  it("keeps accounts apart: another account's key is 404 everywhere", async () => {
    const c = await alice.post('/v1/tsigkeys', { name: 'private.example.com' });
    expectProblem(await bob.get(`/v1/tsigkeys/${c.body.id}`), 404);
    expectProblem(await bob.patch(`/v1/tsigkeys/${c.body.id}`, { transfer: true }), 404);
    expectProblem(await bob.del(`/v1/tsigkeys/${c.body.id}`), 404);
    expect((await bob.get('/v1/tsigkeys')).body).toEqual([]);
    expect((await alice.get(`/v1/tsigkeys/${c.body.id}`)).body.transfer).toBe(false);
  });

  it('deletes a key: it is gone at once, for the API and the DNS side', async () => {
    const c = await alice.post('/v1/tsigkeys', { name: 'gone.example.com' });
    expect(await server.services.tsigKeys.byName('gone.example.com')).toBeDefined();
    expect((await alice.del(`/v1/tsigkeys/${c.body.id}`)).status).toBe(204);
    expectProblem(await alice.get(`/v1/tsigkeys/${c.body.id}`), 404);
    expectProblem(await alice.del(`/v1/tsigkeys/${c.body.id}`), 404);
    expect(await server.services.tsigKeys.byName('gone.example.com')).toBeUndefined();
    // The name is free again.
    expect((await bob.post('/v1/tsigkeys', { name: 'gone.example.com' })).status).toBe(201);
  });

  it('pages the list by id', async () => {
    const all = (await alice.get('/v1/tsigkeys')).body.map((k: any) => k.id);
    expect(all.length).toBeGreaterThan(2);
    const first = await alice.get('/v1/tsigkeys?limit=2');
    expect(first.body.map((k: any) => k.id)).toEqual(all.slice(0, 2));
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBe(`/v1/tsigkeys?limit=2&after=${all[1]}`);
    expect((await alice.get(next as string)).body.map((k: any) => k.id)).toEqual(all.slice(2, 4));
  });

  it('answers 405 with Allow for other methods, and 401 without a key', async () => {
    const list = await alice.put('/v1/tsigkeys', {});
    expectProblem(list, 405);
    expect(list.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
    const one = await alice.put('/v1/tsigkeys/1', {});
    expectProblem(one, 405);
    expect(one.headers.get('allow')).toBe('GET, PATCH, DELETE, HEAD, OPTIONS');
    expectProblem(await alice.post('/v1/tsigkeys/1', {}), 405);
    expectProblem(await client(server.base).get('/v1/tsigkeys'), 401);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await client(server.base).get('/v1/openapi.json')).body;
    expect(Object.keys(doc.paths['/v1/tsigkeys']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v1/tsigkeys/{id}']).sort()).toEqual(['delete', 'get', 'patch']);
    const created = doc.paths['/v1/tsigkeys'].post.responses['201'].content['application/json'].schema;
    expect(Object.keys(created.properties)).toEqual(expect.arrayContaining(['id', 'name', 'algorithm', 'secret', 'domains', 'update', 'transfer']));
    const shown = doc.paths['/v1/tsigkeys/{id}'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(shown.properties)).not.toContain('secret');
    expect(doc.paths['/v1/tsigkeys'].post.requestBody.content['application/json'].schema.properties.update.description).toMatch(/names/);
  });

  it('limits the keys an account holds', async () => {
    const small = await startTestServer({ limits: { tsigKeysPerAccount: 2 } });
    try {
      const c = client(small.base, (await small.user('carol')).key);
      expect((await c.post('/v1/tsigkeys', { name: 'a.carol.example' })).status).toBe(201);
      expect((await c.post('/v1/tsigkeys', { name: 'b.carol.example' })).status).toBe(201);
      expectProblem(await c.post('/v1/tsigkeys', { name: 'c.carol.example' }), 409);
    } finally {
      await small.close();
    }
  });
});

describe('/v1/zonemirrors tsig', () => {
  const KEY = { name: 'transfer.master.example.', algorithm: 'hmac-sha256', secret: SECRET16 };

  it('takes the masters\' key on create, PATCH and PUT, shows it without its secret, and removes it with null', async () => {
    const c = await alice.post('/v1/zonemirrors', { domain: 'signed-mirror.example', masters: ['192.0.2.53'], tsig: KEY });
    expect(c.status, c.text).toBe(201);
    const id = c.body.id;
    expect(c.body.tsig).toEqual({ name: 'transfer.master.example.', algorithm: 'hmac-sha256' });
    expect(c.text).not.toContain(SECRET16);
    const g = await alice.get(`/v1/zonemirrors/${id}`);
    expect(g.body.tsig).toEqual({ name: 'transfer.master.example.', algorithm: 'hmac-sha256' });
    expect(g.text).not.toContain(SECRET16);
    // Stored for the puller, with its secret.
    expect((await server.services.domains.get({ accountId: aliceAccount, userId: aliceAccount, role: 'owner', username: 'alice', keyLabel: '', iface: 'cli', remoteAddr: '' }, id)).masterTsig).toEqual({
      name: 'transfer.master.example',
      algorithm: 'hmac-sha256',
      secret: SECRET16,
    });

    // PATCH without tsig keeps it; with another key replaces it.
    expect((await alice.patch(`/v1/zonemirrors/${id}`, { axfr: ['192.0.2.1'] })).body.tsig).toEqual({ name: 'transfer.master.example.', algorithm: 'hmac-sha256' });
    const p = await alice.patch(`/v1/zonemirrors/${id}`, { tsig: { name: 'other', algorithm: 'hmac-sha512', secret: SECRET16 } });
    expect(p.body.tsig).toEqual({ name: 'other.', algorithm: 'hmac-sha512' });
    // Interface A neither shows nor loses it.
    const a = await v3(server.base, { api_action: 'domain.update', api_key: aliceKey, DomainID: id, master_ips: '192.0.2.54', Description: 'from A' });
    expect(a.ERRORARRAY).toEqual([]);
    const listed = await v3(server.base, { api_action: 'domain.list', api_key: aliceKey, DomainID: id });
    expect(JSON.stringify(listed)).not.toMatch(/other|hmac/);
    expect((await alice.get(`/v1/zonemirrors/${id}`)).body).toMatchObject({ masters: ['192.0.2.54'], tsig: { name: 'other.', algorithm: 'hmac-sha512' } });

    // The audit trail names the key, never its secret.
    const events = await alice.get(`/v1/events?domain=${id}`);
    expect(events.text).toContain('other');
    expect(events.text).not.toContain(SECRET16);

    expect((await alice.patch(`/v1/zonemirrors/${id}`, { tsig: null })).body.tsig).toBeNull();
    const withKey = await alice.put(`/v1/zonemirrors/${id}`, { domain: 'signed-mirror.example', masters: ['192.0.2.53'], tsig: KEY });
    expect(withKey.body.tsig).toEqual({ name: 'transfer.master.example.', algorithm: 'hmac-sha256' });
    // PUT replaces the whole mirror: no tsig, no key.
    expect((await alice.put(`/v1/zonemirrors/${id}`, { domain: 'signed-mirror.example', masters: ['192.0.2.53'] })).body.tsig).toBeNull();
  });

  it('names the field of every invalid key value, and refuses the field on domains', async () => {
    const bad: [unknown, string[]][] = [
      [{ ...KEY, name: 'bad name!' }, ['tsig.name']],
      [{ ...KEY, algorithm: 'hmac-md5' }, ['tsig.algorithm']],
      [{ ...KEY, secret: SECRET15 }, ['tsig.secret']],
      [{ ...KEY, secret: '***' }, ['tsig.secret']],
      [{ name: KEY.name, algorithm: KEY.algorithm }, ['tsig.secret']],
      [{ ...KEY, extra: 1 }, ['tsig.extra']],
      ['key', ['tsig']],
    ];
    for (const [tsig, fields] of bad) {
      const r = await alice.post('/v1/zonemirrors', { domain: 'bad-tsig.example', masters: ['192.0.2.53'], tsig });
      expect(problemFields(r, 400).sort(), JSON.stringify(tsig)).toEqual(fields);
      expect(problemFields(await alice.patch(`/v1/zonemirrors/${mirrorId}`, { tsig }), 400).sort(), JSON.stringify(tsig)).toEqual(fields);
    }
    expect((await alice.get('/v1/zonemirrors?name=bad-tsig.example')).body).toEqual([]);
    expect(problemFields(await alice.post('/v1/domains', { domain: 'tsig-master.example', soa: 'a@tsig-master.example', tsig: KEY }), 400)).toEqual(['tsig']);
    expect((await alice.get('/v1/domains/' + domainId)).body).not.toHaveProperty('tsig');
  });
});
