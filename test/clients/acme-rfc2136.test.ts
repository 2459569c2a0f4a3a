/**
 * ACME DNS-01 through DNS UPDATE: certbot's dns-rfc2136 plugin and lego's rfc2136 provider (Debian packages)
 * each obtain a certificate from pebble, Debian's ACME test server, which checks the challenge by asking
 * zonehost's DNS server. Each client signs with a TSIG key that may write `_acme-challenge` TXT records only.
 * Every client runs as a child process (never spawnSync: the zonehost server runs in this process).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Actor } from '../../src/services/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createDomain, dig, rrs } from '../dns/support.js';
import { peers } from '../support/peers.js';
import { run, startPebble, type Pebble } from '../support/pebble.js';

// pebble is the CA (its HTTPS certificate made by openssl), certbot's plugin and lego the clients; dig reads the zone.
const needsAcme = peers('pebble', 'openssl', 'certbot', 'python3 certbot_dns_rfc2136', 'lego', 'dig');

const SECRET = 'YWNtZS1yZmMyMTM2LXRlc3Qtc2VjcmV0LTMyLWJ5dGU='; // 32 bytes
const ACME_ONLY = { names: ['_acme-challenge'], types: ['TXT'] };

let server: TestServer;
let apiKey: string;
let actor: Actor;
let pebble: Pebble;

/** A zone for one client and a TSIG key that may write its `_acme-challenge` TXT records only. */
async function acmeZone(zone: string, keyName: string): Promise<number> {
  const id = await createDomain(server.base, apiKey, zone);
  await server.services.tsigKeys.create(actor, { name: keyName, secret: SECRET, algorithm: 'hmac-sha256', domains: [id], update: ACME_ONLY });
  return id;
}

const challengeTxt = async (zone: string) => rrs((await dig(server, `_acme-challenge.${zone}`, 'TXT')).answer);

/** The journal entries a TSIG key made in a domain. */
async function keyEvents(domainId: number, keyName: string): Promise<{ action: string; before: unknown[]; after: unknown[] }[]> {
  const res = await fetch(`${server.base}/v1/events?domain=${domainId}&limit=500`, { headers: { authorization: `Bearer ${apiKey}` } });
  const all = (await res.json()) as { action: string; key_label: string; before: unknown[]; after: unknown[] }[];
  return all.filter((e) => e.key_label === `tsig:${keyName}.`);
}

needsAcme.describe('ACME DNS-01 over RFC 2136 with a key for _acme-challenge TXT only', { timeout: 240_000 }, () => {
  beforeAll(async () => {
    server = await startTestServer();
    const user = await server.user('acme');
    apiKey = user.key;
    actor = { accountId: user.accountId, userId: user.accountId, role: 'owner', username: 'acme', keyLabel: 'test', iface: 'cli', remoteAddr: '' };
    pebble = await startPebble(server.dnsAddress?.port as number);
  });
  afterAll(async () => {
    pebble?.stop();
    await server?.close();
  });

  it('certbot --dns-rfc2136 obtains a certificate for the apex and the wildcard, then removes its TXT records', async () => {
    const zone = 'certbot-acme.example';
    const id = await acmeZone(zone, 'certbot.acme.key');
    const base = join(pebble.dir, 'certbot');
    mkdirSync(base);
    const ini = join(base, 'rfc2136.ini');
    const port = server.dnsAddress?.port;
    writeFileSync(
      ini,
      ['dns_rfc2136_server = 127.0.0.1', `dns_rfc2136_port = ${port}`, 'dns_rfc2136_name = certbot.acme.key.', `dns_rfc2136_secret = ${SECRET}`, 'dns_rfc2136_algorithm = HMAC-SHA256', ''].join('\n'),
      { mode: 0o600 },
    );
    // certbot is a python script; Debian's interpreter holds the plugin even when another python3 comes first.
    const r = await run(
      '/usr/bin/python3',
      [
        '/usr/bin/certbot', 'certonly', '-v',
        '--non-interactive', '--agree-tos', '--register-unsafely-without-email',
        '--server', pebble.directory,
        '--config-dir', join(base, 'config'), '--work-dir', join(base, 'work'), '--logs-dir', join(base, 'logs'),
        '--authenticator', 'dns-rfc2136', '--dns-rfc2136-credentials', ini, '--dns-rfc2136-propagation-seconds', '1',
        '--cert-name', zone, '-d', zone, '-d', `*.${zone}`,
      ],
      { REQUESTS_CA_BUNDLE: pebble.caFile },
    );
    const log = () => `${r.output}\n${existsSync(join(base, 'logs', 'letsencrypt.log')) ? readFileSync(join(base, 'logs', 'letsencrypt.log'), 'utf8') : ''}\n--- pebble ---\n${pebble.log()}`;
    expect(r.code, log()).toBe(0);
    await pebble.expectIssued(readFileSync(join(base, 'config', 'live', zone, 'fullchain.pem'), 'utf8'), [zone, `*.${zone}`]);
    expect(await challengeTxt(zone)).toEqual([]);
    // Both validation values went in and came out through DNS UPDATE, signed with the key.
    const events = await keyEvents(id, 'certbot.acme.key');
    expect(events.filter((e) => e.after.length > 0).length, JSON.stringify(events)).toBeGreaterThanOrEqual(2);
    expect(events.filter((e) => e.before.length > 0 && e.after.length === 0).length, JSON.stringify(events)).toBeGreaterThanOrEqual(2);
  });

  it('lego --dns rfc2136 obtains a certificate for the apex and the wildcard, then removes its TXT records', async () => {
    const zone = 'lego-acme.example';
    const id = await acmeZone(zone, 'lego.acme.key');
    const port = server.dnsAddress?.port;
    const path = join(pebble.dir, 'lego');
    const r = await run(
      'lego',
      [
        '--server', pebble.directory, '--path', path, '--accept-tos', '--email', 'acme@lego-acme.example',
        '--dns', 'rfc2136',
        // lego finds the zone by asking its resolvers for the SOA: here zonehost itself.
        '--dns.resolvers', `127.0.0.1:${port}`,
        // lego 4.9 would then query the zone's NS hosts (ns1/ns2.zonehost.test) on port 53, which do not exist
        // here; pebble's own lookup against zonehost is the real check.
        '--dns.disable-cp',
        '--domains', zone, '--domains', `*.${zone}`,
        'run',
      ],
      {
        LEGO_CA_CERTIFICATES: pebble.caFile,
        RFC2136_NAMESERVER: `127.0.0.1:${port}`,
        RFC2136_TSIG_KEY: 'lego.acme.key.',
        RFC2136_TSIG_SECRET: SECRET,
        RFC2136_TSIG_ALGORITHM: 'hmac-sha256.',
        RFC2136_PROPAGATION_TIMEOUT: '30',
        RFC2136_POLLING_INTERVAL: '1',
        // lego solves the apex and the wildcard one after the other (same TXT name); it waits 60 s between them by default.
        RFC2136_SEQUENCE_INTERVAL: '1',
      },
    );
    expect(r.code, `${r.output}\n--- pebble ---\n${pebble.log()}`).toBe(0);
    await pebble.expectIssued(readFileSync(join(path, 'certificates', `${zone}.crt`), 'utf8'), [zone, `*.${zone}`]);
    expect(await challengeTxt(zone)).toEqual([]);
    const events = await keyEvents(id, 'lego.acme.key');
    expect(events.filter((e) => e.after.length > 0).length, JSON.stringify(events)).toBeGreaterThanOrEqual(2);
    expect(events.filter((e) => e.before.length > 0 && e.after.length === 0).length, JSON.stringify(events)).toBeGreaterThanOrEqual(2);
  });
});
