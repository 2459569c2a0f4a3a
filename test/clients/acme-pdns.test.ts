/**
 * ACME DNS-01 through the PowerDNS door: lego's `pdns` provider (Debian's lego, unchanged, configured only by
 * PDNS_API_URL and PDNS_API_KEY) obtains a certificate from pebble, which checks the challenge by asking
 * zonehost's DNS server. lego asks GET /api for the API version, reads the zone, follows its relative `url`
 * with an RRset PATCH, and removes the TXT record afterwards. Its API key may write `_acme-challenge` TXT only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dig, rrs } from '../dns/support.js';
import { peers } from '../support/peers.js';
import { run, startPebble, type Pebble } from '../support/pebble.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { call } from '../v1/support.js';
import { pdnsZone } from '../pdns/support.js';

const needsAcme = peers('pebble', 'openssl', 'lego', 'dig');

const PASSWORD = 'correct horse battery staple';

let server: TestServer;
let key: string;
let pebble: Pebble;

needsAcme.describe('ACME DNS-01 with lego --dns pdns', { timeout: 240_000 }, () => {
  beforeAll(async () => {
    server = await startTestServer();
    key = (await server.user('lego', PASSWORD)).key;
    pebble = await startPebble(server.dnsAddress?.port as number);
  });
  afterAll(async () => {
    pebble?.stop();
    await server?.close();
  });

  it('obtains a certificate for the apex and the wildcard with a key for _acme-challenge TXT only, then removes its TXT records', async () => {
    const zone = 'lego-pdns.example';
    await pdnsZone(server.base, key, zone);
    const acmeKey = (await server.services.accounts.issueKey('lego', PASSWORD, { label: 'lego', scope: { records: { names: ['_acme-challenge'], types: ['TXT'] } } })).key;
    const port = server.dnsAddress?.port;
    const path = join(pebble.dir, 'lego');
    const r = await run(
      'lego',
      [
        '--server', pebble.directory, '--path', path, '--accept-tos', '--email', `acme@${zone}`,
        '--dns', 'pdns',
        // lego finds the zone by asking its resolvers for the SOA: here zonehost itself.
        '--dns.resolvers', `127.0.0.1:${port}`,
        // lego would then query the zone's NS hosts (ns1/ns2.zonehost.test) on port 53, which do not exist here;
        // pebble's own lookup against zonehost is the real check.
        '--dns.disable-cp',
        '--domains', zone, '--domains', `*.${zone}`,
        'run',
      ],
      {
        LEGO_CA_CERTIFICATES: pebble.caFile,
        PDNS_API_URL: server.base,
        PDNS_API_KEY: acmeKey,
        PDNS_PROPAGATION_TIMEOUT: '30',
        PDNS_POLLING_INTERVAL: '1',
      },
    );
    expect(r.code, `${r.output}\n--- pebble ---\n${pebble.log()}`).toBe(0);
    await pebble.expectIssued(readFileSync(join(path, 'certificates', `${zone}.crt`), 'utf8'), [zone, `*.${zone}`]);
    expect(rrs((await dig(server, `_acme-challenge.${zone}`, 'TXT')).answer)).toEqual([]);
    // Each change went through the door with lego's key: created, then removed.
    const events = (await call(server.base, 'GET', '/v1/events?limit=500', { key })).body as { action: string; key_label: string }[];
    // (The key's own making is in the trail too, under its label: key.create.)
    const lego = events.filter((e) => e.key_label === 'lego' && e.action !== 'key.create');
    expect(lego.length, JSON.stringify(events)).toBeGreaterThanOrEqual(2);
    expect(lego.map((e) => e.action).filter((a) => a !== 'record.batch'), JSON.stringify(lego)).toEqual([]);
  });
});
