import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { peers } from '../support/peers.js';
import { testCertificate } from '../support/tls.js';

// openssl makes the server's certificate before all tests, and is the client of the handshakes.
const needsOpenssl = peers('openssl');
const needsOpensslCurl = peers('openssl', 'curl');

let cert: ReturnType<typeof testCertificate>;
let server: TestServer;
let port: number;

/** Runs a command without blocking the event loop (the server under test lives in this process). */
function run(cmd: string, args: string[], input = ''): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill(), 15_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    child.stdin.end(input);
  });
}

/** Runs `openssl s_client` against the server (HTTPS, or `at` another port); ok when a cipher was negotiated. */
async function handshake(...args: string[]): Promise<{ ok: boolean; out: string }> {
  return handshakeAt(port, ...args);
}

async function handshakeAt(at: number, ...args: string[]): Promise<{ ok: boolean; out: string }> {
  const out = await run('openssl', ['s_client', '-connect', `127.0.0.1:${at}`, '-servername', 'localhost', ...args], 'Q\n');
  return { ok: /Cipher is (?!\(NONE\))/.test(out), out };
}

beforeAll(async () => {
  cert = testCertificate();
  server = await startTestServer({ tls: { cert: cert.cert, key: cert.key }, dot: { host: '127.0.0.1', port: 0 } });
  port = server.httpAddress!.port;
});

afterAll(async () => {
  await server?.close();
  cert?.remove();
});

needsOpenssl.describe('TLS', () => {
  it('negotiates ECDHE on TLS 1.2 and an ephemeral key on TLS 1.3', async () => {
    const v12 = await handshake('-tls1_2');
    expect(v12.ok, v12.out).toBe(true);
    expect(v12.out).toMatch(/Cipher is ECDHE-RSA-(AES\d+-GCM-SHA\d+|CHACHA20-POLY1305)/);
    expect(v12.out).toMatch(/Server Temp Key: (X25519|ECDH)/);
    const v13 = await handshake('-tls1_3');
    expect(v13.ok, v13.out).toBe(true);
    expect(v13.out).toMatch(/TLSv1\.3/);
  });

  it('refuses RSA key exchange, CBC ciphers and TLS below 1.2', async () => {
    expect((await handshake('-tls1_2', '-cipher', 'AES128-GCM-SHA256')).ok).toBe(false);
    expect((await handshake('-tls1_2', '-cipher', 'ECDHE-RSA-AES128-SHA')).ok).toBe(false);
    expect((await handshake('-tls1_1', '-cipher', 'DEFAULT@SECLEVEL=0')).ok).toBe(false);
  });

  it('holds DNS over TLS to the same versions and ciphers, and offers its ALPN "dot"', async () => {
    const dot = server.dotAddress!.port;
    const v12 = await handshakeAt(dot, '-tls1_2', '-alpn', 'dot');
    expect(v12.ok, v12.out).toBe(true);
    expect(v12.out).toMatch(/Cipher is ECDHE-RSA-/);
    expect(v12.out).toMatch(/ALPN protocol: dot/);
    expect((await handshakeAt(dot, '-tls1_2', '-cipher', 'AES128-GCM-SHA256')).ok).toBe(false);
    expect((await handshakeAt(dot, '-tls1_1', '-cipher', 'DEFAULT@SECLEVEL=0')).ok).toBe(false);
  });

  needsOpensslCurl.it('serves the API over HTTPS with HSTS', async () => {
    const out = await run('curl', ['-sk', '-D', '-', `https://127.0.0.1:${port}/?api_action=test.echo`]);
    expect(out).toMatch(/strict-transport-security: max-age=31536000/i);
    expect(out).toContain('"ERRORCODE":4');
  });
});
