/**
 * pebble, Debian's ACME test server, for the DNS-01 tests: its HTTPS certificate made by openssl (Debian's
 * package does not ship upstream's test/certs), started against a zonehost node's DNS (which answers its
 * challenge lookups), and the checks of what it issued. Every program runs as a child process (never
 * spawnSync: the zonehost node runs in the test's process).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';

export interface Run {
  code: number;
  output: string;
}

export function run(cmd: string, args: string[], env: Record<string, string> = {}, timeout = 120_000): Promise<Run> {
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

/** A CA and a certificate for 127.0.0.1 for pebble's HTTPS listeners, in `dir`. */
async function makeTlsFiles(dir: string): Promise<void> {
  const p = (f: string) => join(dir, f);
  await runOk('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', p('ca.key'), '-out', p('ca.pem'), '-days', '2', '-subj', '/CN=zonehost test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  await runOk('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', p('key.pem'), '-out', p('req.csr'), '-subj', '/CN=127.0.0.1']);
  writeFileSync(p('ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n');
  await runOk('openssl', ['x509', '-req', '-in', p('req.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca.key'), '-CAcreateserial', '-out', p('cert.pem'), '-days', '2', '-extfile', p('ext.cnf')]);
}

export interface Pebble {
  /** The ACME directory URL. */
  directory: string;
  /** A directory of the test's own, for the clients' files; removed by stop(). */
  dir: string;
  /** The CA certificate pebble's HTTPS listeners are signed with (for the clients to trust). */
  caFile: string;
  /** What pebble has logged so far. */
  log(): string;
  /** Checks that `pem` (the leaf first) names exactly `names` and was issued by pebble's current intermediate. */
  expectIssued(pem: string, names: string[]): Promise<void>;
  stop(): void;
}

/** pebble checking challenges against the DNS server at 127.0.0.1:`dnsPort`, once its directory answers. */
export async function startPebble(dnsPort: number): Promise<Pebble> {
  const dir = mkdtempSync(join(tmpdir(), 'zonehost-acme-'));
  await makeTlsFiles(dir);
  const caFile = join(dir, 'ca.pem');
  /** GET over HTTPS trusting only our test CA. */
  const httpsGet = (url: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      get(url, { ca: readFileSync(caFile) }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      }).on('error', reject);
    });
  const [listen, management, http, tls] = [await freePort(), await freePort(), await freePort(), await freePort()];
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
  let log = '';
  const pebble: ChildProcess = spawn('pebble', ['-config', join(dir, 'pebble.json'), '-dnsserver', `127.0.0.1:${dnsPort}`, '-strict=false'], {
    // No random sleeps before validating; validate for real; no injected badNonce errors (clients retry them, but slowly).
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_VA_ALWAYS_VALID: '0', PEBBLE_WFE_NONCEREJECT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  pebble.stdout?.on('data', (c: Buffer) => (log += c.toString()));
  pebble.stderr?.on('data', (c: Buffer) => (log += c.toString()));
  const stop = () => {
    pebble.kill();
    rmSync(dir, { recursive: true, force: true });
  };
  const directory = `https://127.0.0.1:${listen}/dir`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await httpsGet(directory)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (pebble.exitCode !== null || Date.now() > deadline) {
      stop();
      throw new Error(`pebble did not start\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    directory,
    dir,
    caFile,
    log: () => log,
    async expectIssued(pem, names) {
      const leaf = new X509Certificate(pem);
      const sans = (leaf.subjectAltName ?? '').split(', ').map((s) => s.replace(/^DNS:/, ''));
      expect(sans.sort()).toEqual([...names].sort());
      const intermediate = new X509Certificate((await httpsGet(`https://127.0.0.1:${management}/intermediates/0`)).body);
      expect(leaf.checkIssued(intermediate)).toBe(true);
      expect(leaf.verify(intermediate.publicKey)).toBe(true);
    },
    stop,
  };
}
