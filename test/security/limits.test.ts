import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, v3, type TestServer } from '../support/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('size limits', () => {
  it('caps records per domain and domains per account with clear errors', async () => {
    server = await startTestServer({ limits: { recordsPerDomain: 2, domainsPerAccount: 1 } });
    const { key } = await server.user('alice');
    const d = await v3(server.base, { api_action: 'domain.create', api_key: key, Domain: 'a.example', Type: 'master', SOA_Email: 'h@a.example' });
    const second = await v3(server.base, { api_action: 'domain.create', api_key: key, Domain: 'b.example', Type: 'master', SOA_Email: 'h@b.example' });
    expect(second.ERRORARRAY).toEqual([{ ERRORCODE: 8, ERRORMESSAGE: 'An account may hold at most 1 domains.' }]);
    for (const name of ['one', 'two']) {
      const r = await v3(server.base, { api_action: 'domain.resource.create', api_key: key, DomainID: d.DATA.DomainID, Type: 'A', Name: name, Target: '192.0.2.1' });
      expect(r.ERRORARRAY).toEqual([]);
    }
    const third = await v3(server.base, { api_action: 'domain.resource.create', api_key: key, DomainID: d.DATA.DomainID, Type: 'A', Name: 'three', Target: '192.0.2.1' });
    expect(third.ERRORARRAY).toEqual([{ ERRORCODE: 8, ERRORMESSAGE: 'A domain may hold at most 2 records.' }]);
  });

  it('answers an oversized body in the envelope, not with an HTTP error', async () => {
    server = await startTestServer();
    const { key } = await server.user('alice');
    const res = await fetch(`${server.base}/api/?api_action=test.echo&api_key=${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `foo=${'x'.repeat(2 * 1024 * 1024)}`,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ERRORARRAY: [{ ERRORCODE: 1, ERRORMESSAGE: 'Bad request: the request body is too large.' }], ACTION: 'test.echo', DATA: {} });
  });
});
