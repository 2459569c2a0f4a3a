/**
 * Apache libcloud (Debian python3-libcloud), LinodeDNSDriver with api_version '4.0', host and port pointed at
 * the v4 door over plain HTTP (libcloud requests Linode's /v4/... paths itself, in pages of 25); every step
 * is checked through the v4 door. libcloud parses `created`/`updated` strictly (YYYY-MM-DDTHH:MM:SS).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, type Client } from '../v4/support.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { py, pyOk } from './support.js';
import { peers } from '../support/peers.js';

// Debian's client, run by /usr/bin/python3.
const needsClient = peers('python3 libcloud');

let server: TestServer;
let key: string;
let otherKey: string;
let api: Client;
beforeAll(async () => {
  server = await startTestServer();
  key = (await server.user('alice')).key;
  otherKey = (await server.user('bob')).key;
  api = client(server.base, key);
});
afterAll(() => server.close());

const v3Endpoint = () => `${server.base}/api/`;
const v4Endpoint = () => `${server.base}/v4/`;
const libcloud = (k: string, ...args: string[]) => py('libcloud_dns_v4.py', [k, ...args], v3Endpoint(), v4Endpoint());
const ok = (...args: string[]) => pyOk('libcloud_dns_v4.py', [key, ...args], v3Endpoint(), v4Endpoint());

// Each step starts a python process.
needsClient.describe('Apache libcloud LinodeDNSDriver (api_version 4.0)', { timeout: 180_000 }, () => {
  it('creates, lists, reads and updates zones and records, over more than one page, and deletes them', async () => {
    expect(await ok('list-zones')).toEqual([]);
    const zone = await ok('create-zone', 'libcloud4.example', 'hostmaster@libcloud4.example');
    // ttl_sec 0 (the default) is ttl None in libcloud's Zone.
    expect(zone).toMatchObject({ domain: 'libcloud4.example', type: 'master', ttl: null, extra: { soa_email: 'hostmaster@libcloud4.example', status: 'active', tags: [] } });
    // libcloud parsed created/updated into datetimes (printed back here as ISO text).
    expect(zone.extra.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    const stored = (await api.get(`/v4/domains/${zone.id}`)).body;
    expect(stored).toMatchObject({ id: Number(zone.id), domain: 'libcloud4.example', soa_email: 'hostmaster@libcloud4.example' });
    const zid = String(zone.id);

    const a = await ok('create-record', zid, 'www', 'A', '192.0.2.10', JSON.stringify({ ttl_sec: 3600 }));
    expect(a).toMatchObject({ name: 'www', type: 'A', data: '192.0.2.10', ttl: 3600 });
    const srv = await ok('create-record', zid, '', 'SRV', 'sip.libcloud4.example', JSON.stringify({ service: 'sip', protocol: 'udp', priority: 5, weight: 7, port: 5060 }));
    expect(srv).toMatchObject({ name: '_sip._udp', type: 'SRV', data: 'sip.libcloud4.example', extra: { service: 'sip', protocol: 'udp', port: 5060, priority: 5, weight: 7 } });
    // 30 more, so that libcloud's pages of 25 take two requests.
    for (let i = 0; i < 30; i++) expect((await api.post(`/v4/domains/${zid}/records`, { type: 'TXT', name: `t${i}`, target: `v${i}` })).status).toBe(200);
    const listed = await ok('list-records', zid);
    expect(listed).toHaveLength(32);
    expect(listed.slice(0, 2).map((r: any) => [r.id, r.type, r.name, r.data])).toEqual([
      [a.id, 'A', 'www', '192.0.2.10'],
      [srv.id, 'SRV', '_sip._udp', 'sip.libcloud4.example'],
    ]);
    expect(await ok('get-record', zid, String(a.id))).toMatchObject({ id: a.id, name: 'www', data: '192.0.2.10' });

    const updated = await ok('update-record', zid, String(a.id), 'web', '192.0.2.11');
    expect(updated).toMatchObject({ id: a.id, name: 'web', data: '192.0.2.11', ttl: 3600 });
    expect((await api.get(`/v4/domains/${zid}/records/${a.id}`)).body).toMatchObject({ name: 'web', target: '192.0.2.11', ttl_sec: 3600 });

    expect(await ok('delete-record', zid, String(a.id))).toBe(true);
    expect((await api.get(`/v4/domains/${zid}/records/${a.id}`)).status).toBe(404);

    const renamed = await ok('update-zone', zid, 'renamed-libcloud4.example', '7000');
    expect(renamed).toMatchObject({ id: zone.id, domain: 'renamed-libcloud4.example', ttl: 7200 });
    expect(await ok('list-zones')).toHaveLength(1);
    expect(await ok('delete-zone', zid)).toBe(true);
    expect(await ok('list-zones')).toEqual([]);
  });

  it("raises libcloud's errors for a wrong key, an unknown zone and another account's zone", async () => {
    const zone = await ok('create-zone', 'private4.example', 'hostmaster@private4.example');
    const wrong = await libcloud('not-a-key', 'list-zones');
    expect(wrong.code).toBe(3);
    expect(wrong.json).toMatchObject({ error: 'InvalidCredsError' });
    const other = await libcloud(otherKey, 'get-zone', String(zone.id));
    expect(other.code).toBe(3);
    expect(other.json.message).toMatch(/Not found.*404/);
    const bad = await libcloud(key, 'create-record', String(zone.id), 'x', 'A', 'not-an-address');
    expect(bad.code).toBe(3);
    expect(bad.json.message).toMatch(/target.*400/);
  });
});
