/**
 * The v4 door under hostile and wrong requests: keys missing, wrong or another account's; ids unknown,
 * malformed or another account's; bodies of the wrong types, not JSON, not objects, too large; and API keys
 * with scopes, which see and change exactly what they may on the other doors. Never a 5xx, always Linode's
 * error shape, and nothing half-written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { client, createDomain, createRecord, errorFields, expectErrors, type Client } from './support.js';

const PASSWORD = 'correct horse battery staple';

let server: TestServer;
let alice: Client;
let bob: Client;
let aliceDomain: any;
let bobDomain: any;
let bobRecord: any;
beforeAll(async () => {
  server = await startTestServer();
  alice = client(server.base, (await server.user('alice', PASSWORD)).key);
  bob = client(server.base, (await server.user('bob', PASSWORD)).key);
  aliceDomain = await createDomain(alice, 'alice.example');
  bobDomain = await createDomain(bob, 'bob.example');
  bobRecord = await createRecord(bob, bobDomain.id, { type: 'A', name: 'www', target: '192.0.2.2' });
});
afterAll(() => server.close());

/** Bob's zone as every interface would see it afterwards: unchanged. */
async function bobUnchanged(): Promise<void> {
  expect((await bob.get(`/v4/domains/${bobDomain.id}`)).body).toEqual(bobDomain);
  expect((await bob.get(`/v4/domains/${bobDomain.id}/records`)).body.data).toEqual([bobRecord]);
}

describe('authentication', () => {
  it('a request without a key, with a wrong key or another scheme gets 401', async () => {
    expectErrors(await client(server.base).get('/v4/domains'), 401);
    expectErrors(await client(server.base, 'not-a-key').get('/v4/domains'), 401);
    expectErrors(await client(server.base).get('/v4/domains', { headers: { authorization: 'Basic Ym9iOmJvYg==' } }), 401);
    expectErrors(await client(server.base).post('/v4/domains', { domain: 'x.example', type: 'master', soa_email: 'a@x.example' }), 401);
    expectErrors(await client(server.base).get('/v4/nowhere'), 401);
  });
});

describe("another account's objects and unknown ids", () => {
  it('are not found, and stay as they are', async () => {
    const d = `/v4/domains/${bobDomain.id}`;
    const r = `${d}/records/${bobRecord.id}`;
    for (const reply of [
      await alice.get(d),
      await alice.put(d, { description: 'mine now' }),
      await alice.del(d),
      await alice.get(`${d}/zone-file`),
      await alice.get(`${d}/records`),
      await alice.post(`${d}/records`, { type: 'A', name: 'x', target: '192.0.2.1' }),
      await alice.get(r),
      await alice.put(r, { target: '192.0.2.3' }),
      await alice.del(r),
      // Bob's record asked for under Alice's domain.
      await alice.get(`/v4/domains/${aliceDomain.id}/records/${bobRecord.id}`),
      await alice.post(`${d}/clone`, { domain: 'stolen.example' }),
    ]) {
      expectErrors(reply, 404);
    }
    for (const id of ['0', '-1', 'abc', '1e3', '99999999999999999999', '9007199254740993', '%00']) {
      expectErrors(await alice.get(`/v4/domains/${id}`), 404);
      expectErrors(await alice.get(`/v4/domains/${aliceDomain.id}/records/${id}`), 404);
    }
    expectErrors(await alice.get('/v4/linodes'), 404);
    await bobUnchanged();
    expect((await alice.get('/v4/domains', { headers: { 'x-filter': '{"domain": "stolen.example"}' } })).body.results).toBe(0);
  });
});

describe('bodies', () => {
  it('of the wrong types, not JSON or not objects are 400s naming the field; nothing is written', async () => {
    const records = `/v4/domains/${aliceDomain.id}/records`;
    expect(errorFields(await alice.post('/v4/domains', { domain: 42, type: 'master', soa_email: 'a@b.example' }), 400)).toEqual(['domain']);
    expect(errorFields(await alice.post('/v4/domains', { domain: 'x.example', type: 'master', soa_email: ['a@b.example'] }), 400)).toEqual(['soa_email']);
    expect(errorFields(await alice.post(records, { type: 'A', name: { $gt: '' }, target: '192.0.2.1' }), 400)).toEqual(['name']);
    expect(errorFields(await alice.post(records, { type: 'MX', target: 'mx.example', priority: 1.5 }), 400)).toEqual(['priority']);
    expect(errorFields(await alice.post(records, { type: 'A', target: '192.0.2.1', ttl_sec: '300' }), 400)).toEqual(['ttl_sec']);
    expectErrors(await alice.post('/v4/domains', undefined, { raw: '{"domain": ', headers: { 'content-type': 'application/json' } }), 400);
    expectErrors(await alice.post('/v4/domains', undefined, { raw: '[1,2]', headers: { 'content-type': 'application/json' } }), 400);
    expectErrors(await alice.post('/v4/domains', undefined, { raw: 'null', headers: { 'content-type': 'application/json' } }), 400);
    expectErrors(await alice.post(records, undefined, { raw: 'type=A', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415);
    expectErrors(await alice.post('/v4/domains', undefined, { raw: '', headers: { 'content-type': 'application/json' } }), 400);
    expect((await alice.get('/v4/domains')).body.results).toBe(1);
    expect((await alice.get(records)).body.results).toBe(0);
  });

  it('too large is refused before it is read whole; a huge value is a 400', async () => {
    const huge = await alice.post(`/v4/domains/${aliceDomain.id}/records`, { type: 'TXT', name: 'big', target: 'x'.repeat(2 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expectErrors(huge, 413);
    const long = await alice.post(`/v4/domains/${aliceDomain.id}/records`, { type: 'TXT', name: 'big', target: 'x'.repeat(200_000) });
    expect(errorFields(long, 400)).toEqual(['target']);
    const longName = await alice.post('/v4/domains', { domain: `${'a'.repeat(63)}.`.repeat(5) + 'example', type: 'master', soa_email: 'a@b.example' });
    expectErrors(longName, 400);
    expect((await alice.get(`/v4/domains/${aliceDomain.id}/records`)).body.results).toBe(0);
  });

  it('never get a 5xx, whatever the method and path', async () => {
    const paths = ['/v4/domains', `/v4/domains/${aliceDomain.id}`, `/v4/domains/${aliceDomain.id}/records`, '/v4/domains/import', `/v4/domains/${aliceDomain.id}/clone`, `/v4/domains/${aliceDomain.id}/zone-file`];
    const bodies = [undefined, {}, { domain: null }, { type: null }, { domain: '', remote_nameserver: '' }, 'text', 12, { domain: 'x'.repeat(300) }];
    for (const p of paths) {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH']) {
        for (const body of bodies) {
          if (method === 'DELETE' && p === `/v4/domains/${aliceDomain.id}`) continue;
          const r = await alice.call(method, p, body === undefined || method === 'GET' ? {} : { body });
          expect(r.status, `${method} ${p} ${JSON.stringify(body)}: ${r.text}`).toBeLessThan(500);
          expect(Object.keys(r.body ?? {}), `${method} ${p}`).not.toContain('statusCode');
        }
      }
    }
    await bobUnchanged();
  });
});

describe('API keys with scopes', () => {
  async function scopedKey(scope: object): Promise<Client> {
    const made = await client(server.base).post('/v1/keys', { username: 'alice', password: PASSWORD, label: `scoped-${Math.random()}`, scope });
    expect(made.status, made.text).toBe(201);
    return client(server.base, made.body.key);
  }

  it('a read-only key reads and is refused every write with 403', async () => {
    const ro = await scopedKey({ read_only: true });
    expect((await ro.get(`/v4/domains/${aliceDomain.id}`)).status).toBe(200);
    expect((await ro.get(`/v4/domains/${aliceDomain.id}/records`)).status).toBe(200);
    expectErrors(await ro.post('/v4/domains', { domain: 'ro.example', type: 'master', soa_email: 'a@ro.example' }), 403);
    expectErrors(await ro.put(`/v4/domains/${aliceDomain.id}`, { description: 'x' }), 403);
    expectErrors(await ro.post(`/v4/domains/${aliceDomain.id}/records`, { type: 'A', name: 'x', target: '192.0.2.1' }), 403);
    expectErrors(await ro.post(`/v4/domains/${aliceDomain.id}/clone`, { domain: 'ro-clone.example' }), 403);
    expectErrors(await ro.del(`/v4/domains/${aliceDomain.id}`), 403);
    expectErrors(await ro.post('/v4/domains/import', { domain: 'ro-import.example', remote_nameserver: '192.0.2.53' }), 403);
    const record = await createRecord(alice, aliceDomain.id, { type: 'A', name: 'ro', target: '192.0.2.5' });
    expectErrors(await ro.put(`/v4/domains/${aliceDomain.id}/records/${record.id}`, { target: '192.0.2.6' }), 403);
    expectErrors(await ro.del(`/v4/domains/${aliceDomain.id}/records/${record.id}`), 403);
    expect((await ro.get(`/v4/domains/${aliceDomain.id}/records/${record.id}`)).body).toEqual(record);
    expect((await ro.get(`/v4/domains/${aliceDomain.id}/zone-file`)).status).toBe(200);
    expect((await alice.get('/v4/domains')).body.results).toBe(1);
    expect((await alice.del(`/v4/domains/${aliceDomain.id}/records/${record.id}`)).status).toBe(200);
  });

  it('a key limited to other networks fails as a wrong key does', async () => {
    const elsewhere = await scopedKey({ subnets: ['192.0.2.0/24'] });
    expectErrors(await elsewhere.get('/v4/domains'), 401);
    expectErrors(await elsewhere.post('/v4/domains', { domain: 'net.example', type: 'master', soa_email: 'a@net.example' }), 401);
  });

  it('a key limited to some domains sees only those, and cannot create domains', async () => {
    const other = await createDomain(alice, 'other.alice.example');
    const limited = await scopedKey({ domains: [aliceDomain.id] });
    expect((await limited.get('/v4/domains')).body.data.map((d: any) => d.id)).toEqual([aliceDomain.id]);
    expectErrors(await limited.get(`/v4/domains/${other.id}`), 404);
    expectErrors(await limited.get(`/v4/domains/${other.id}/records`), 404);
    expectErrors(await limited.get(`/v4/domains/${other.id}/zone-file`), 404);
    expectErrors(await limited.post(`/v4/domains/${other.id}/clone`, { domain: 'limited-clone.example' }), 404);
    expectErrors(await limited.del(`/v4/domains/${other.id}`), 404);
    expectErrors(await limited.post('/v4/domains', { domain: 'new.example', type: 'master', soa_email: 'a@new.example' }), 403);
    expect((await limited.post(`/v4/domains/${aliceDomain.id}/records`, { type: 'A', name: 'in', target: '192.0.2.1' })).status).toBe(200);
    expect((await alice.del(`/v4/domains/${other.id}`)).status).toBe(200);
  });

  it('a key limited to some records writes only those, and no domain settings', async () => {
    const acme = await scopedKey({ records: { names: ['_acme-challenge'], types: ['TXT'] } });
    const ok = await acme.post(`/v4/domains/${aliceDomain.id}/records`, { type: 'TXT', name: '_acme-challenge', target: 'token' });
    expect(ok.status, ok.text).toBe(200);
    expectErrors(await acme.post(`/v4/domains/${aliceDomain.id}/records`, { type: 'TXT', name: 'www', target: 'token' }), 403);
    expectErrors(await acme.post(`/v4/domains/${aliceDomain.id}/records`, { type: 'A', name: '_acme-challenge', target: '192.0.2.1' }), 403);
    expectErrors(await acme.put(`/v4/domains/${aliceDomain.id}`, { description: 'x' }), 403);
    expect((await acme.del(`/v4/domains/${aliceDomain.id}/records/${ok.body.id}`)).status).toBe(200);
  });
});
