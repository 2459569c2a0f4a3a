/**
 * Apache libcloud (Debian python3-libcloud), LinodeDNSDriver with api_version '3.0', pointed at interface A at `/`
 * (libcloud's API_ROOT) over plain HTTP; every step is checked through interface A itself.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { data, records } from '../v3/support.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { py, pyOk } from './support.js';
import { peers } from '../support/peers.js';

// Debian's client, run by /usr/bin/python3.
const needsClient = peers('python3 libcloud');

let server: TestServer;
let key: string;
let otherKey: string;
let endpoint: string;
beforeAll(async () => {
  server = await startTestServer();
  key = (await server.user('alice')).key;
  otherKey = (await server.user('bob')).key;
  // libcloud always requests API_ROOT "/"; the driver only takes host and port from this.
  endpoint = `${server.base}/`;
});
afterAll(() => server.close());

const libcloud = (k: string, ...args: string[]) => py('libcloud_dns.py', [k, ...args], endpoint);
const ok = (...args: string[]) => pyOk('libcloud_dns.py', [key, ...args], endpoint);
const domains = async (k: string) => (await data(server.base, { api_action: 'domain.list', api_key: k })) as any[];

// Each step starts a python process (lexicon's command line alone takes seconds on a loaded machine).
needsClient.describe('Apache libcloud LinodeDNSDriver (api_version 3.0)', { timeout: 180_000 }, () => {
  it('lists zones, creates a zone, creates, lists, updates and deletes records, updates and deletes the zone', async () => {
    expect(await ok('list-zones')).toEqual([]);

    const zone = await ok('create-zone', 'libcloud.example', 'hostmaster@libcloud.example');
    expect(zone).toMatchObject({ domain: 'libcloud.example', type: 'master', extra: { SOA_Email: 'hostmaster@libcloud.example' } });
    const [stored] = await domains(key);
    // libcloud keeps IDs as strings.
    expect(stored).toMatchObject({ DOMAINID: Number(zone.id), DOMAIN: 'libcloud.example', TYPE: 'master', SOA_EMAIL: 'hostmaster@libcloud.example', STATUS: 1 });

    // TTL_SEC 0 ("our default") becomes ttl None in libcloud's Zone.
    expect(await ok('list-zones')).toEqual([
      { id: zone.id, domain: 'libcloud.example', type: 'master', ttl: null, extra: { SOA_Email: 'hostmaster@libcloud.example', status: 1, description: '' } },
    ]);
    const zid = String(zone.id);

    const txt = await ok('create-record', zid, '_acme-challenge', 'TXT', 'Token-ABC_123');
    const a = await ok('create-record', zid, 'www', 'A', '192.0.2.10', JSON.stringify({ TTL_sec: 3600 }));
    const mx = await ok('create-record', zid, '', 'MX', 'mail.libcloud.example', JSON.stringify({ Priority: 20 }));
    const srv = await ok('create-record', zid, '_sip._udp', 'SRV', 'sip.libcloud.example', JSON.stringify({ Priority: 5, Weight: 7, Port: 5060, Protocol: 'udp' }));
    expect((await records(server.base, key, zone.id)).map((r) => [r.RESOURCEID, r.TYPE, r.NAME, r.TARGET, r.TTL_SEC, r.PRIORITY, r.WEIGHT, r.PORT, r.PROTOCOL])).toEqual([
      [Number(mx.id), 'MX', '', 'mail.libcloud.example', 0, 20, 5, 80, ''],
      [Number(a.id), 'A', 'www', '192.0.2.10', 3600, 10, 5, 80, ''],
      [Number(txt.id), 'TXT', '_acme-challenge', 'Token-ABC_123', 0, 10, 5, 80, ''],
      [Number(srv.id), 'SRV', '_sip._udp', 'sip.libcloud.example', 0, 5, 7, 5060, 'udp'],
    ]);

    // libcloud parses TYPE back into its RecordType enum: every record comes back with its type.
    const listed = await ok('list-records', zid);
    expect(listed.map((r: any) => [r.id, r.type, r.name, r.data])).toEqual([
      [mx.id, 'MX', '', 'mail.libcloud.example'],
      [a.id, 'A', 'www', '192.0.2.10'],
      [txt.id, 'TXT', '_acme-challenge', 'Token-ABC_123'],
      [srv.id, 'SRV', '_sip._udp', 'sip.libcloud.example'],
    ]);
    expect(listed[1]).toMatchObject({ ttl: 3600, extra: { ttl_sec: 3600, priority: 10, weight: 5, port: 80, protocol: '' } });

    await ok('update-record', zid, String(txt.id), '_acme-challenge', 'changed value');
    await ok('update-record', zid, String(a.id), 'web', '192.0.2.11');
    const after = await records(server.base, key, zone.id);
    expect(after.find((r) => r.RESOURCEID === Number(txt.id))).toMatchObject({ TYPE: 'TXT', NAME: '_acme-challenge', TARGET: 'changed value' });
    expect(after.find((r) => r.RESOURCEID === Number(a.id))).toMatchObject({ TYPE: 'A', NAME: 'web', TARGET: '192.0.2.11', TTL_SEC: 3600 });

    expect(await ok('delete-record', zid, String(txt.id))).toBe(true);
    expect((await records(server.base, key, zone.id)).map((r) => r.RESOURCEID)).toEqual([mx.id, a.id, srv.id].map(Number));

    const renamed = await ok('update-zone', zid, 'renamed-libcloud.example', '7000');
    expect(renamed).toMatchObject({ id: zid, domain: 'renamed-libcloud.example', ttl: 7200 });
    expect((await domains(key))[0]).toMatchObject({ DOMAINID: Number(zid), DOMAIN: 'renamed-libcloud.example', TTL_SEC: 7200 });

    expect(await ok('delete-zone', zid)).toBe(true);
    expect(await domains(key)).toEqual([]);
  });

  it('maps our errors to its own exceptions: 5 to ZoneDoesNotExistError / RecordDoesNotExistError, 4 to InvalidCredsError, 8 to LinodeException', async () => {
    const zone = await ok('create-zone', 'libcloud-errors.example', 'hostmaster@libcloud-errors.example');
    const zid = String(zone.id);

    const missing = await libcloud(key, 'get-zone', '99999999');
    expect([missing.code, missing.json?.error]).toEqual([3, 'ZoneDoesNotExistError']);
    // Another account's zone looks exactly like a missing one.
    const foreign = await libcloud(otherKey, 'list-records', zid);
    expect([foreign.code, foreign.json?.error]).toEqual([3, 'ZoneDoesNotExistError']);
    const noRecord = await libcloud(key, 'delete-record', zid, '99999999');
    expect([noRecord.code, noRecord.json?.error]).toEqual([3, 'RecordDoesNotExistError']);

    const badKey = await libcloud('x'.repeat(64), 'list-zones');
    expect([badKey.code, badKey.json?.error]).toEqual([3, 'InvalidCredsError']);

    const duplicate = await libcloud(otherKey, 'create-zone', 'libcloud-errors.example', 'h@example.net');
    expect([duplicate.code, duplicate.json?.error]).toEqual([3, 'LinodeException']);
    expect(duplicate.json.message).toContain("The domain 'libcloud-errors.example' already exists in our database.");

    const badAddress = await libcloud(key, 'create-record', zid, 'www', 'A', 'not-an-address');
    expect([badAddress.code, badAddress.json?.error]).toEqual([3, 'LinodeException']);
    expect(badAddress.json.message).toMatch(/^\(8\) /);
    expect(await records(server.base, key, zone.id)).toEqual([]);
    expect((await domains(otherKey)).map((d) => d.DOMAIN)).toEqual([]);
  });
});
