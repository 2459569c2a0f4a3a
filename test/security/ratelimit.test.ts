import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, v3, type TestServer } from '../support/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const call = (base: string, qs: string, headers: Record<string, string> = {}) => fetch(`${base}/?${qs}`, { headers });

describe('request rate limits', () => {
  it('limits requests per API key with code 14, HTTP 429 and Retry-After', async () => {
    server = await startTestServer({ rateLimits: { perAddress: 0, perKey: 3 } });
    const { key } = await server.user('alice');
    for (let i = 0; i < 3; i++) expect((await call(server.base, `api_action=test.echo&api_key=${key}`)).status).toBe(200);
    const res = await call(server.base, `api_action=test.echo&api_key=${key}`);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.headers.get('content-type')).toBe('application/json;charset=UTF-8');
    expect(await res.json()).toEqual({ ERRORARRAY: [{ ERRORCODE: 14, ERRORMESSAGE: 'API rate limit exceeded' }], ACTION: 'test.echo', DATA: {} });
    // The limit is per key: another account's key is still served.
    const { key: other } = await server.user('bob');
    expect((await call(server.base, `api_action=test.echo&api_key=${other}`)).status).toBe(200);
  });

  it("limits the PowerDNS door's requests per X-API-Key, answering 429 {\"error\"} with Retry-After", async () => {
    server = await startTestServer({ rateLimits: { perAddress: 0, perKey: 2 } });
    const { key } = await server.user('alice');
    const zones = () => fetch(`${server?.base}/api/v1/servers/localhost/zones`, { headers: { 'x-api-key': key } });
    for (let i = 0; i < 2; i++) expect((await zones()).status).toBe(200);
    const res = await zones();
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res.json()).toEqual({ error: 'Too many requests' });
  });

  it('limits requests per client address, whatever the key', async () => {
    server = await startTestServer({ rateLimits: { perAddress: 2, perKey: 0 } });
    expect((await call(server.base, 'api_action=api.spec')).status).toBe(200);
    expect((await call(server.base, 'api_action=test.echo&api_key=x')).status).toBe(200);
    expect((await call(server.base, 'api_action=api.spec')).status).toBe(429);
  });

  it('believes X-Forwarded-For only from a configured proxy', async () => {
    server = await startTestServer({ rateLimits: { perAddress: 2, perKey: 0 }, trustProxy: ['127.0.0.1'] });
    const { key } = await server.user('alice');
    const created = await v3(server.base, { api_action: 'domain.create', api_key: key, Domain: 'example.com', Type: 'master', SOA_Email: 'h@example.com' }, { headers: { 'X-Forwarded-For': '198.51.100.7' } });
    const res = await v3(server.base, { api_action: 'domain.resource.create', api_key: key, DomainID: created.DATA.DomainID, Type: 'A', Name: 'home', Target: '[remote_addr]' }, { headers: { 'X-Forwarded-For': '198.51.100.8' } });
    expect(res.ERRORARRAY).toEqual([]);
    const list = await v3(server.base, { api_action: 'domain.resource.list', api_key: key, DomainID: created.DATA.DomainID }, { headers: { 'X-Forwarded-For': '198.51.100.9' } });
    expect(list.DATA[0].TARGET).toBe('198.51.100.8');
  });

  it('ignores X-Forwarded-For from anyone else', async () => {
    server = await startTestServer({ rateLimits: { perAddress: 0, perKey: 0 } });
    const { key } = await server.user('alice');
    const created = await v3(server.base, { api_action: 'domain.create', api_key: key, Domain: 'example.com', Type: 'master', SOA_Email: 'h@example.com' });
    await v3(server.base, { api_action: 'domain.resource.create', api_key: key, DomainID: created.DATA.DomainID, Type: 'A', Name: 'home', Target: '[remote_addr]' }, { headers: { 'X-Forwarded-For': '198.51.100.8' } });
    const list = await v3(server.base, { api_action: 'domain.resource.list', api_key: key, DomainID: created.DATA.DomainID });
    expect(list.DATA[0].TARGET).toBe('127.0.0.1');
  });
});

describe('password guessing', () => {
  it('refuses even the right password after too many failures for the user', async () => {
    server = await startTestServer({ rateLimits: { perAddress: 0, perKey: 0 } });
    await server.user('alice', 'the right one');
    for (let i = 0; i < 10; i++) {
      const res = await v3(server.base, { api_action: 'user.getapikey', username: 'alice', password: `guess ${i}` });
      expect(res.ERRORARRAY[0].ERRORCODE).toBe(4);
    }
    const res = await call(server.base, 'api_action=user.getapikey&username=alice&password=the%20right%20one');
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await res.json()) as any).ERRORARRAY).toEqual([{ ERRORCODE: 14, ERRORMESSAGE: 'API rate limit exceeded' }]);
  });
});
