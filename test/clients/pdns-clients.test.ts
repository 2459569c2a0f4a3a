/**
 * PowerDNS API clients (Debian packages, unchanged) against the PowerDNS door: dns-lexicon's `powerdns`
 * provider through its own command line (`--pdns-server`, `--auth-token`), and Apache libcloud's
 * PowerDNSDriver (api_version v1, host and port pointed at zonehost). Every step is checked through the door.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { peers } from '../support/peers.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { pdns, pdnsZone, rrset, rrsetLines } from '../pdns/support.js';
import { py, pyOk } from './support.js';

const needsLexicon = peers('python3 lexicon');
const needsLibcloud = peers('python3 libcloud');

let server: TestServer;
let key: string;
let otherKey: string;
/** libcloud's account: its zone list is its own. */
let cloudKey: string;
beforeAll(async () => {
  server = await startTestServer();
  key = (await server.user('alice')).key;
  otherKey = (await server.user('bob')).key;
  cloudKey = (await server.user('carol')).key;
});
afterAll(() => server.close());

const lexicon = (k: string, action: string, zone: string, type: string, ...opts: string[]) =>
  py('lexicon_cli.py', ['powerdns', action, zone, type, ...opts, '--pdns-server', server.base, '--auth-token', k, '--output', 'JSON'], `${server.base}/api/`);
async function lexiconOk(...a: Parameters<typeof lexicon>) {
  const r = await lexicon(...a);
  if (r.code !== 0) throw new Error(`lexicon exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.json;
}

// Each step starts a python process (lexicon's command line alone takes seconds on a loaded machine).
needsLexicon.describe('dns-lexicon (powerdns provider)', { timeout: 240_000 }, () => {
  // lexicon splits the domain with tldextract's bundled suffix list: the zones are under real top-level domains.
  it('creates, lists, updates and deletes TXT records, one record of an RRset at a time', async () => {
    await pdnsZone(server.base, key, 'example.com', { rrsets: [rrset('www.example.com.', 'A', ['192.0.2.1'])] });
    expect(await lexiconOk(key, 'list', 'example.com', 'TXT')).toEqual([]);

    expect(await lexiconOk(key, 'create', 'example.com', 'TXT', '--name', '_acme-challenge', '--content', 'token-one')).toBe(true);
    expect(await lexiconOk(key, 'create', 'example.com', 'TXT', '--name', '_acme-challenge', '--content', 'token-two')).toBe(true);
    // lexicon's TTL of 600 is rounded up to the next TTL this service allows, as on every door.
    expect(await rrsetLines(server.base, key, 'example.com')).toEqual([
      '_acme-challenge.example.com. TXT 3600 "token-one"',
      '_acme-challenge.example.com. TXT 3600 "token-two"',
      'www.example.com. A 3600 192.0.2.1',
    ]);

    const listed = await lexiconOk(key, 'list', 'example.com', 'TXT', '--name', '_acme-challenge');
    expect(listed.map((r: any) => [r.type, r.name, r.content]).sort()).toEqual([
      ['TXT', '_acme-challenge.example.com', 'token-one'],
      ['TXT', '_acme-challenge.example.com', 'token-two'],
    ]);

    // Deleting one value: lexicon sends a REPLACE of the RRset with the others.
    expect(await lexiconOk(key, 'delete', 'example.com', 'TXT', '--name', '_acme-challenge', '--content', 'token-one')).toBe(true);
    expect(await rrsetLines(server.base, key, 'example.com')).toEqual(['_acme-challenge.example.com. TXT 3600 "token-two"', 'www.example.com. A 3600 192.0.2.1']);

    // An update by identifier: lexicon deletes the old record and creates the new one.
    const [rec] = await lexiconOk(key, 'list', 'example.com', 'TXT', '--name', '_acme-challenge');
    expect(await lexiconOk(key, 'update', 'example.com', 'TXT', '--identifier', rec.id, '--name', '_acme-challenge', '--content', 'token-three')).toBe(true);
    expect(await rrsetLines(server.base, key, 'example.com')).toEqual(['_acme-challenge.example.com. TXT 3600 "token-three"', 'www.example.com. A 3600 192.0.2.1']);

    expect(await lexiconOk(key, 'delete', 'example.com', 'TXT', '--name', '_acme-challenge')).toBe(true);
    expect(await rrsetLines(server.base, key, 'example.com')).toEqual(['www.example.com. A 3600 192.0.2.1']);
  });

  it("fails with a wrong key and for another account's zone, changing nothing", async () => {
    await pdnsZone(server.base, key, 'example.org');
    const wrong = await lexicon('x'.repeat(40), 'create', 'example.org', 'TXT', '--name', 'n', '--content', 'v');
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('401');
    const foreign = await lexicon(otherKey, 'create', 'example.org', 'TXT', '--name', 'n', '--content', 'v');
    expect(foreign.code).not.toBe(0);
    expect(foreign.stderr).toContain('404');
    expect(await rrsetLines(server.base, key, 'example.org')).toEqual([]);
  });
});

const libcloud = (k: string, ...args: string[]) => py('libcloud_pdns.py', [k, ...args], `${server.base}/`);
const cloudOk = (...args: string[]) => pyOk('libcloud_pdns.py', [cloudKey, ...args], `${server.base}/`);

needsLibcloud.describe('Apache libcloud PowerDNSDriver (api_version v1)', { timeout: 180_000 }, () => {
  it('creates a zone, reads it with its account, notified_serial and last_check, and creates, lists, updates and deletes records', async () => {
    const zone = await cloudOk('create-zone', 'libcloud.example.', 'ns1.example.net.');
    expect(zone).toMatchObject({ domain: 'libcloud.example.' });
    const read = await cloudOk('get-zone', 'libcloud.example.');
    expect(read).toMatchObject({ id: 'libcloud.example.', domain: 'libcloud.example.', extra: { kind: 'Native', dnssec: false, account: '', masters: [], last_check: 0 } });
    expect(read.extra.serial).toBeGreaterThan(0);
    expect(read.extra.notified_serial).toBe(read.extra.serial);
    expect((await cloudOk('list-zones')).map((z: any) => z.id)).toEqual(['libcloud.example.']);

    await cloudOk('create-record', 'libcloud.example.', 'www.libcloud.example.', 'A', '192.0.2.10', '3600');
    await cloudOk('create-record', 'libcloud.example.', 'libcloud.example.', 'MX', '10 mail.example.net.', '300');
    expect(await rrsetLines(server.base, cloudKey, 'libcloud.example')).toEqual(['libcloud.example. MX 300 10 mail.example.net.', 'www.libcloud.example. A 3600 192.0.2.10']);
    const records = await cloudOk('list-records', 'libcloud.example.');
    expect(records).toContainEqual({ name: 'www.libcloud.example.', type: 'A', data: '192.0.2.10', ttl: 3600 });

    await cloudOk('update-record', 'libcloud.example.', 'www.libcloud.example.', 'A', '192.0.2.11', '300');
    expect(await rrsetLines(server.base, cloudKey, 'libcloud.example')).toContain('www.libcloud.example. A 300 192.0.2.11');
    expect(await cloudOk('delete-record', 'libcloud.example.', 'www.libcloud.example.', 'A')).toBe(true);
    expect(await rrsetLines(server.base, cloudKey, 'libcloud.example')).toEqual(['libcloud.example. MX 300 10 mail.example.net.']);

    expect(await cloudOk('delete-zone', 'libcloud.example.')).toBe(true);
    expect(await cloudOk('list-zones')).toEqual([]);
  });

  it('reports a wrong key as InvalidCredsError, and a zone made twice as an error', async () => {
    const wrong = await libcloud('x'.repeat(40), 'list-zones');
    expect(wrong.code).toBe(3);
    expect(wrong.json.error).toBe('InvalidCredsError');
    await cloudOk('create-zone', 'twice.example.', 'ns1.example.net.');
    const again = await libcloud(cloudKey, 'create-zone', 'twice.example.', 'ns1.example.net.');
    expect(again.code).toBe(3);
    expect((await pdns(server.base, cloudKey, 'GET', '~/zones')).body.map((z: any) => z.name)).toEqual(['twice.example.']);
  });
});
