/**
 * Linode's own JavaScript client, @linode/api-v4 from npm (a devDependency), unchanged but for where its
 * requests go: the package builds every URL from https://api.linode.com/v4, so an interceptor of its axios
 * instance rewrites that prefix to the test server's /v4 (what a user does to point it elsewhere). Its token
 * is one of our API keys. Every step is checked through the v4 door.
 */
import * as linodeSdk from '@linode/api-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { client, type Client } from '../v4/support.js';

const LINODE = 'https://api.linode.com/v4';

/**
 * The functions used here, typed as the package documents them: its own declarations re-export the domain
 * functions from directories without an extension, which TypeScript's NodeNext resolution does not follow
 * (only `baseRequest` and `setToken` come through), so they are named here; the code run is the package's.
 */
interface DomainsSdk {
  getDomains(params?: object, filter?: object): Promise<{ data: any[]; page: number; pages: number; results: number }>;
  getDomain(id: number): Promise<any>;
  createDomain(data: object): Promise<any>;
  updateDomain(id: number, data: object): Promise<any>;
  deleteDomain(id: number): Promise<object>;
  cloneDomain(id: number, data: { domain: string }): Promise<any>;
  getDNSZoneFile(id: number): Promise<{ zone_file: string[] }>;
  getDomainRecords(id: number, params?: object): Promise<{ data: any[]; page: number; pages: number; results: number }>;
  getDomainRecord(id: number, recordId: number): Promise<any>;
  createDomainRecord(id: number, data: object): Promise<any>;
  updateDomainRecord(id: number, recordId: number, data: object): Promise<any>;
  deleteDomainRecord(id: number, recordId: number): Promise<object>;
}
const { baseRequest, setToken } = linodeSdk;
const { getDomains, getDomain, createDomain, updateDomain, deleteDomain, cloneDomain, getDNSZoneFile, getDomainRecords, getDomainRecord, createDomainRecord, updateDomainRecord, deleteDomainRecord } =
  linodeSdk as unknown as DomainsSdk;

let server: TestServer;
let api: Client;
let key: string;
let interceptor: number;
/** setToken adds an interceptor of its own (its id), which the one for a wrong key must replace, not follow. */
let tokenInterceptor: number;
beforeAll(async () => {
  server = await startTestServer();
  key = (await server.user('alice')).key;
  api = client(server.base, key);
  tokenInterceptor = setToken(key);
  interceptor = baseRequest.interceptors.request.use(<T extends { url?: string }>(config: T) => ({ ...config, url: config.url?.replace(LINODE, `${server.base}/v4`) }));
});
afterAll(async () => {
  baseRequest.interceptors.request.eject(interceptor);
  baseRequest.interceptors.request.eject(tokenInterceptor);
  await server.close();
});

describe('@linode/api-v4', () => {
  it('creates, reads, lists, updates, clones and deletes domains and records', async () => {
    const domain = await createDomain({ domain: 'sdk.example', type: 'master', soa_email: 'hostmaster@sdk.example' });
    expect(domain).toMatchObject({ domain: 'sdk.example', type: 'master', status: 'active', soa_email: 'hostmaster@sdk.example', tags: [] });
    expect((await api.get(`/v4/domains/${domain.id}`)).body).toEqual(domain);
    expect(await getDomain(domain.id)).toEqual(domain);

    const record = await createDomainRecord(domain.id, { type: 'A', name: 'www', target: '192.0.2.10', ttl_sec: 300 });
    expect(record).toMatchObject({ type: 'A', name: 'www', target: '192.0.2.10', ttl_sec: 300 });
    const mx = await createDomainRecord(domain.id, { type: 'MX', name: '', target: 'mail.sdk.example', priority: 20 });
    expect(await getDomainRecord(domain.id, record.id)).toEqual(record);
    const page = await getDomainRecords(domain.id);
    expect(page).toMatchObject({ page: 1, pages: 1, results: 2 });
    expect(page.data.map((r) => r.id)).toEqual([record.id, mx.id]);

    const filtered = await getDomains({}, { domain: 'sdk.example' });
    expect(filtered.data.map((d) => d.id)).toEqual([domain.id]);

    expect(await updateDomainRecord(domain.id, record.id, { target: '192.0.2.11' })).toMatchObject({ id: record.id, target: '192.0.2.11', ttl_sec: 300 });
    expect(await updateDomain(domain.id, { description: 'from the SDK', ttl_sec: 3600 })).toMatchObject({ description: 'from the SDK', ttl_sec: 3600 });

    const zoneFile = await getDNSZoneFile(domain.id);
    expect(zoneFile.zone_file.join('\n')).toContain('192.0.2.11');

    const copy = await cloneDomain(domain.id, { domain: 'sdk-copy.example' });
    expect(copy).toMatchObject({ domain: 'sdk-copy.example', description: 'from the SDK' });
    expect((await getDomainRecords(copy.id)).results).toBe(2);

    await deleteDomainRecord(domain.id, mx.id);
    expect((await api.get(`/v4/domains/${domain.id}/records/${mx.id}`)).status).toBe(404);
    await deleteDomain(copy.id);
    await deleteDomain(domain.id);
    expect((await getDomains()).results).toBe(0);
  });

  /** A failed call's HTTP status and body, as the package's axios error carries them (it passes server errors on as they are). */
  async function failure(call: Promise<unknown>): Promise<{ status: number; data: unknown }> {
    const e = (await call.then(
      () => expect.unreachable('the call succeeded'),
      (err: unknown) => err,
    )) as { response?: { status: number; data: unknown } };
    if (!e.response) throw e;
    return { status: e.response.status, data: e.response.data };
  }

  it("gets Linode's errors in the responses it rejects with", async () => {
    expect(await failure(getDomain(999999))).toEqual({ status: 404, data: { errors: [{ reason: 'Not found' }] } });
    const domain = await createDomain({ domain: 'sdk-errors.example', type: 'master', soa_email: 'hostmaster@sdk-errors.example' });
    expect(await failure(createDomainRecord(domain.id, { type: 'A', name: 'www', target: 'not-an-address' }))).toEqual({
      status: 400,
      data: { errors: [{ reason: expect.any(String), field: 'target' }] },
    });
    baseRequest.interceptors.request.eject(tokenInterceptor);
    const wrong = setToken('not-a-key');
    try {
      expect(await failure(getDomains())).toEqual({ status: 401, data: { errors: [{ reason: 'Invalid Token' }] } });
    } finally {
      baseRequest.interceptors.request.eject(wrong);
      tokenInterceptor = setToken(key);
    }
  });
});
