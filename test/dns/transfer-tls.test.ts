/**
 * Zone transfers over TLS (RFC 9103) both ways: BIND's named as a secondary pulling from our DNS over TLS port
 * (`primaries { … tls ephemeral; }`, which needs the ALPN "dot"), and refused by a domain whose list does not
 * name it; a zone mirror (`"tls": true`) pulling from a zonehost master that serves DNS only over TLS on the
 * master's address (its UDP and TCP listen elsewhere), and told why when the master refuses.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../multinode/nodes.js';
import { answersSoa } from '../support/consumers.js';
import { daemon, type Daemon } from '../support/daemon.js';
import { eventually } from '../support/knot.js';
import { peers } from '../support/peers.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { httpsRequest, testCertificate } from '../support/tls.js';
import { client } from '../v1/support.js';
import { dig, rrs } from './support.js';

const run = promisify(execFile);
const needsOpenssl = peers('openssl');
const needsNamed = peers('openssl', 'named', 'kdig');
const needsDig = peers('openssl', 'dig');

const OPEN = 'xot.example';
const CLOSED = 'xot-closed.example';
/** Pulled by a mirror that verifies the master's certificate. */
const VERIFIED = 'xot-verified.example';
/** The TLS master's address: its DNS over TLS listens there on 853, where mirrors look for it. */
const MASTER = '127.0.39.1';

let cert: ReturnType<typeof testCertificate>;
let primary: TestServer;
let key: string;

/** Interface A on the primary (HTTPS: fetch cannot take its self-signed certificate). */
async function v3(params: Record<string, string | number>): Promise<any> {
  const qs = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]));
  const body = JSON.parse((await httpsRequest(primary.httpAddress!.port, { path: `/api/?${qs}`, http2: false })).body.toString());
  expect(body.ERRORARRAY).toEqual([]);
  return body.DATA;
}

beforeAll(async () => {
  if (needsOpenssl.reason !== null) return;
  cert = testCertificate();
  primary = await startTestServer({ tls: { cert: cert.cert, key: cert.key }, dot: { host: MASTER, port: 853 } });
  key = (await primary.user('primary')).key;
  // Both the loopback address a peer connects from and the master's own (the source Linux picks for it).
  const open = (await v3({ api_action: 'domain.create', api_key: key, Domain: OPEN, Type: 'master', SOA_Email: `hostmaster@${OPEN}`, axfr_ips: `127.0.0.1;${MASTER}` })).DomainID;
  await v3({ api_action: 'domain.resource.create', api_key: key, DomainID: open, Type: 'A', Name: 'www', Target: '192.0.2.80' });
  await v3({ api_action: 'domain.resource.create', api_key: key, DomainID: open, Type: 'TXT', Name: 'txt', Target: 'over tls' });
  await v3({ api_action: 'domain.create', api_key: key, Domain: CLOSED, Type: 'master', SOA_Email: `hostmaster@${CLOSED}` });
  const verified = (await v3({ api_action: 'domain.create', api_key: key, Domain: VERIFIED, Type: 'master', SOA_Email: `hostmaster@${VERIFIED}`, axfr_ips: `127.0.0.1;${MASTER}` })).DomainID;
  await v3({ api_action: 'domain.resource.create', api_key: key, DomainID: verified, Type: 'A', Name: 'www', Target: '192.0.2.81' });
});

afterAll(async () => {
  await primary?.close();
  cert?.remove();
});

needsNamed.describe("BIND named as a secondary over TLS ('tls ephemeral')", () => {
  let named: Daemon;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'zonehost-named-xot-'));
    const primaries = `primaries { ${MASTER} port 853 tls ephemeral; };`;
    writeFileSync(
      join(dir, 'named.conf'),
      `options {
  directory "${dir}";
  pid-file "${dir}/named.pid";
  listen-on port ${port} { 127.0.0.1; };
  listen-on-v6 { none; };
  recursion no;
  notify no;
};
zone "${OPEN}" { type secondary; ${primaries} };
zone "${CLOSED}" { type secondary; ${primaries} };
controls { };
`,
    );
    named = await daemon('named', ['-g', '-c', join(dir, 'named.conf')], dir, () => answersSoa('127.0.0.1', OPEN, port), 30_000);
  });
  afterAll(() => named?.stop());

  it('pulls the zone over TLS and serves it', async () => {
    const { stdout } = await run('kdig', ['-p', String(port), '@127.0.0.1', '+norec', `www.${OPEN}`, 'A'], { timeout: 10_000 });
    expect(stdout).toMatch(new RegExp(`www\\.${OPEN.replace('.', '\\.')}\\.\\s+\\d+\\s+IN\\s+A\\s+192\\.0\\.2\\.80`));
    expect(named.log()).toMatch(/Transfer status: success/);
    // Port 853 of that address is zonehost's DNS over TLS and nothing else: named's log names the port, not TLS.
    expect(named.log()).toMatch(/#853: connected using/);
  });

  it('is refused a zone whose transfer list does not name it', async () => {
    await eventually('named to report the refused transfer', async () => new RegExp(`${CLOSED.replace('.', '\\.')}.*(REFUSED|refused)`).test(named.log()), 20_000);
    expect(await answersSoa('127.0.0.1', CLOSED, port)).toBe(false);
  });
});

needsOpenssl.describe('a zone mirror of a master over TLS', () => {
  let mirror: TestServer;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    mirror = await startTestServer({ mirrorFirstRetryMs: 300 });
    api = client(mirror.base, (await mirror.user('mirror')).key);
  });
  afterAll(() => mirror?.close());

  needsDig.it('is pulled over TLS and served', async () => {
    const created = await api.post('/v1/zonemirrors', { domain: OPEN, masters: [MASTER], tls: true });
    expect(created.status, created.text).toBe(201);
    expect(created.body.tls).toBe(true);
    await eventually('the mirror to transfer', async () => (await api.get(`/v1/zonemirrors/${created.body.id}`)).body.transfer.serial !== null, 20_000);
    const state = (await api.get(`/v1/zonemirrors/${created.body.id}`)).body.transfer;
    expect(state.last_error).toBeNull();
    const a = await dig(mirror, `www.${OPEN}`, 'A');
    expect(a.flags).toContain('aa');
    expect(rrs(a.answer)).toEqual([`www.${OPEN}. 86400 A 192.0.2.80`]);
  });

  needsDig.it("verifies the master's certificate when told to (tls_verify): pulled with its CA and name, refused with another name or the system's CAs", async () => {
    const ca = readFileSync(cert.cert, 'utf8');
    const verified = await api.post('/v1/zonemirrors', { domain: VERIFIED, masters: [MASTER], tls: true, tls_verify: { name: 'other.example', ca } });
    expect(verified.status, verified.text).toBe(201);
    expect(verified.body.tls_verify).toEqual({ name: 'other.example', ca });
    const id = verified.body.id as number;
    const lastError = async () => (await api.get(`/v1/zonemirrors/${id}`)).body.transfer.last_error ?? '';
    // The certificate is for localhost and 127.0.0.1: another name is refused, and said.
    await eventually('the wrong name to be refused', async () => /other\.example/.test(await lastError()), 20_000);
    expect(await lastError()).toMatch(/127\.0\.39\.1: TLS to 127\.0\.39\.1: Hostname\/IP does not match certificate's altnames/);
    // Without a CA of its own the system's are used, which do not know a self-signed certificate.
    expect((await api.patch(`/v1/zonemirrors/${id}`, { tls_verify: { name: 'localhost' } })).body.tls_verify).toEqual({ name: 'localhost', ca: null });
    await eventually('the unknown issuer to be refused', async () => /self-signed certificate/.test(await lastError()), 20_000);
    expect((await api.get(`/v1/zonemirrors/${id}`)).body.transfer.serial).toBeNull();
    // Its CA and its name: transferred and served.
    for (const name of ['localhost', '127.0.0.1']) expect((await api.patch(`/v1/zonemirrors/${id}`, { tls_verify: { name, ca } })).status).toBe(200);
    await eventually('the mirror to transfer', async () => (await api.get(`/v1/zonemirrors/${id}`)).body.transfer.serial !== null, 20_000);
    expect(rrs((await dig(mirror, `www.${VERIFIED}`, 'A')).answer)).toEqual([`www.${VERIFIED}. 86400 A 192.0.2.81`]);
    expect((await api.del(`/v1/zonemirrors/${id}`)).status).toBe(204);
  });

  it('refuses tls_verify without tls, a name that is no host name, and a CA that is no PEM certificate (400, the field named)', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ tls: false, tls_verify: { name: 'localhost' } }, /only be verified when the mirror transfers over TLS/],
      [{ tls: true, tls_verify: { name: 'not a host' } }, /may only contain letters/],
      [{ tls: true, tls_verify: { name: 'localhost', ca: 'hello' } }, /must be PEM/],
      [{ tls: true, tls_verify: { name: 'localhost', ca: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' } }, /cannot be read/],
    ];
    for (const [body, why] of cases) {
      const r = await api.post('/v1/zonemirrors', { domain: 'verify.example', masters: [MASTER], ...body });
      expect([r.status, r.text]).toEqual([400, expect.stringMatching(why)]);
      expect(r.text).toMatch(/tls_verify/);
    }
  });

  it('says why when the master refuses, and when asked over UDP and TCP at an address where only TLS listens', async () => {
    const refused = await api.post('/v1/zonemirrors', { domain: CLOSED, masters: [MASTER], tls: true });
    expect(refused.status, refused.text).toBe(201);
    await eventually('the refusal to be recorded', async () => /REFUSED/.test((await api.get(`/v1/zonemirrors/${refused.body.id}`)).body.transfer.last_error ?? ''), 20_000);
    const plain = await api.patch(`/v1/zonemirrors/${refused.body.id}`, { tls: false });
    expect(plain.body.tls).toBe(false);
    await eventually('the failure over UDP to be recorded', async () => /no answer/.test((await api.get(`/v1/zonemirrors/${refused.body.id}`)).body.transfer.last_error ?? ''), 20_000);
  });
});
