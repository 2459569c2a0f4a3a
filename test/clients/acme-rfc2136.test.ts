/**
 * ACME DNS-01 through DNS UPDATE: certbot's dns-rfc2136 plugin and lego's rfc2136 provider (Debian packages)
 * each obtain a certificate from pebble, Debian's ACME test server, which checks the challenge by asking
 * zonehost's DNS server. Each client signs with a TSIG key that may write `_acme-challenge` TXT records only.
 * Every client runs as a child process (never spawnSync: the zonehost server runs in this process).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Actor } from '../../src/services/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createDomain, dig, rrs } from '../dns/support.js';
import { peers } from '../support/peers.js';

// pebble is the CA (its HTTPS certificate made by openssl), certbot's plugin and lego the clients; dig reads the zone.
const needsAcme = peers('pebble', 'openssl', 'certbot', 'python3 certbot_dns_rfc2136', 'lego', 'dig');

const SECRET = 'YWNtZS1yZmMyMTM2LXRlc3Qtc2VjcmV0LTMyLWJ5dGU='; // 32 bytes
const ACME_ONLY = { names: ['_acme-challenge'], types: ['TXT'] };

let server: TestServer;
let apiKey: string;
let actor: Actor;
let dir: string;
let pebble: ChildProcess | undefined;
let pebbleLog = '';
let directory: string;
let managementPort: number;

interface Run {
  code: number;
  output: string;
}

function run(cmd: string, args: string[], env: Record<string, string> = {}, timeout = 120_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env: { ...process.env, ...env }, timeout, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

async function runOk(cmd: string, args: string[]): Promise<void> {
  const r = await run(cmd, args);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.code}\n${r.output}`);
}

/** A port free on 127.0.0.1 at the time of asking. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** GET over HTTPS trusting only our test CA. */
function httpsGet(url: string): Promise<{ status: number; body: string }> {
  const ca = readFileSync(join(dir, 'ca.pem'));
  return new Promise((resolve, reject) => {
    get(url, { ca }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

/**
 * A CA and a certificate for 127.0.0.1 for pebble's HTTPS listeners. Debian's pebble package does not ship
 * upstream's test/certs, so the test makes its own and trusts it the same way upstream's would be trusted.
 */
async function makeTlsFiles(): Promise<void> {
  const p = (f: string) => join(dir, f);
  await runOk('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', p('ca.key'), '-out', p('ca.pem'), '-days', '2', '-subj', '/CN=zonehost test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  await runOk('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', p('key.pem'), '-out', p('req.csr'), '-subj', '/CN=127.0.0.1']);
  writeFileSync(p('ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n');
  await runOk('openssl', ['x509', '-req', '-in', p('req.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-CAcreateserial', '-out', p('cert.pem'), '-days', '2', '-extfile', p('ext.cnf')]);
}

async function startPebble(dnsPort: number): Promise<void> {
  const [listen, management, http, tls] = [await freePort(), await freePort(), await freePort(), await freePort()];
  managementPort = management;
  const config = {
    pebble: {
      listenAddress: `127.0.0.1:${listen}`,
      managementListenAddress: `127.0.0.1:${management}`,
      certificate: join(dir, 'cert.pem'),
      privateKey: join(dir, 'key.pem'),
      // Only used for HTTP-01 / TLS-ALPN-01 validation, never here; unused ports all the same.
      httpPort: http,
      tlsPort: tls,
      ocspResponderURL: '',
      externalAccountBindingRequired: false,
    },
  };
  writeFileSync(join(dir, 'pebble.json'), JSON.stringify(config));
  pebble = spawn('pebble', ['-config', join(dir, 'pebble.json'), '-dnsserver', `127.0.0.1:${dnsPort}`, '-strict=false'], {
    // No random sleeps before validating; validate for real; no injected badNonce errors (clients retry them, but slowly).
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_VA_ALWAYS_VALID: '0', PEBBLE_WFE_NONCEREJECT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  pebble.stdout?.on('data', (c: Buffer) => (pebbleLog += c.toString()));
  pebble.stderr?.on('data', (c: Buffer) => (pebbleLog += c.toString()));
  directory = `https://127.0.0.1:${listen}/dir`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await httpsGet(directory)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (pebble.exitCode !== null || Date.now() > deadline) throw new Error(`pebble did not start\n${pebbleLog}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

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

/** Checks that `pem` (the leaf first) names exactly `names` and was issued by pebble's current intermediate. */
async function expectIssued(pem: string, names: string[]): Promise<void> {
  const leaf = new X509Certificate(pem);
  const sans = (leaf.subjectAltName ?? '').split(', ').map((s) => s.replace(/^DNS:/, ''));
  expect(sans.sort()).toEqual([...names].sort());
  const intermediate = new X509Certificate((await httpsGet(`https://127.0.0.1:${managementPort}/intermediates/0`)).body);
  expect(leaf.checkIssued(intermediate)).toBe(true);
  expect(leaf.verify(intermediate.publicKey)).toBe(true);
}

needsAcme.describe('ACME DNS-01 over RFC 2136 with a key for _acme-challenge TXT only', { timeout: 240_000 }, () => {
  beforeAll(async () => {
    server = await startTestServer();
    const user = await server.user('acme');
    apiKey = user.key;
    actor = { accountId: user.accountId, userId: user.accountId, role: 'owner', username: 'acme', keyLabel: 'test', iface: 'cli', remoteAddr: '' };
    dir = mkdtempSync(join(tmpdir(), 'zonehost-acme-'));
    await makeTlsFiles();
    await startPebble(server.dnsAddress?.port as number);
  });
  afterAll(async () => {
    pebble?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await server?.close();
  });

  it('certbot --dns-rfc2136 obtains a certificate for the apex and the wildcard, then removes its TXT records', async () => {
    const zone = 'certbot-acme.example';
    const id = await acmeZone(zone, 'certbot.acme.key');
    const base = join(dir, 'certbot');
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
        '--server', directory,
        '--config-dir', join(base, 'config'), '--work-dir', join(base, 'work'), '--logs-dir', join(base, 'logs'),
        '--authenticator', 'dns-rfc2136', '--dns-rfc2136-credentials', ini, '--dns-rfc2136-propagation-seconds', '1',
        '--cert-name', zone, '-d', zone, '-d', `*.${zone}`,
      ],
      { REQUESTS_CA_BUNDLE: join(dir, 'ca.pem') },
    );
    const log = () => `${r.output}\n${existsSync(join(base, 'logs', 'letsencrypt.log')) ? readFileSync(join(base, 'logs', 'letsencrypt.log'), 'utf8') : ''}\n--- pebble ---\n${pebbleLog}`;
    expect(r.code, log()).toBe(0);
    await expectIssued(readFileSync(join(base, 'config', 'live', zone, 'fullchain.pem'), 'utf8'), [zone, `*.${zone}`]);
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
    const path = join(dir, 'lego');
    const r = await run(
      'lego',
      [
        '--server', directory, '--path', path, '--accept-tos', '--email', 'acme@lego-acme.example',
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
        LEGO_CA_CERTIFICATES: join(dir, 'ca.pem'),
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
    expect(r.code, `${r.output}\n--- pebble ---\n${pebbleLog}`).toBe(0);
    await expectIssued(readFileSync(join(path, 'certificates', `${zone}.crt`), 'utf8'), [zone, `*.${zone}`]);
    expect(await challengeTxt(zone)).toEqual([]);
    const events = await keyEvents(id, 'lego.acme.key');
    expect(events.filter((e) => e.after.length > 0).length, JSON.stringify(events)).toBeGreaterThanOrEqual(2);
    expect(events.filter((e) => e.before.length > 0 && e.after.length === 0).length, JSON.stringify(events)).toBeGreaterThanOrEqual(2);
  });
});
