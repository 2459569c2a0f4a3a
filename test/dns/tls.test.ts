/**
 * DNS over TLS (RFC 7858) and over HTTPS (RFC 8484) as real clients see them: kdig +tls, dig +tls (BIND 9.18),
 * kdig +https (HTTP/2 only) and HTTP/1.1; several queries written at once on one TLS connection, answered by id;
 * padding to 468-octet blocks (RFC 8467); AXFR and IXFR over TLS under the same rules as over TCP; and the HTTP
 * APIs and the panel, over HTTP/2 and HTTP/1.1 on the same HTTPS port as DNS over HTTPS.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:tls';
import { promisify } from 'node:util';
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PANEL_DIR } from '../../src/http/panel.js';
import type { Actor } from '../../src/services/index.js';
import { peers } from '../support/peers.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { dotClient, httpsRequest, testCertificate } from '../support/tls.js';
import { dig, parseDig, rrs } from './support.js';

const run = promisify(execFile);
const needsOpenssl = peers('openssl');
const needsKdig = peers('openssl', 'kdig');
const needsDig = peers('openssl', 'dig');

const ZONE = 'tls.example';
const TSIG_NAME = 'tls.key';
const TSIG_SECRET = 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI='; // 32 bytes
const CLOSED = 'closed.example';
/** Eight 200-octet strings: more than 1232 octets, so truncated over UDP and whole over HTTPS. */
const BIG_TXT = Array.from({ length: 8 }, (_, i) => `${i}${'t'.repeat(200)}`);

let cert: ReturnType<typeof testCertificate>;
let server: TestServer;
let key: string;
let dot: number;
let https: number;

/** Interface A over HTTP/2 (fetch cannot take a self-signed certificate): the call's DATA. */
async function v3(params: Record<string, string | number>): Promise<any> {
  const qs = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]));
  const reply = await httpsRequest(https, { path: `/api/?${qs}`, http2: true });
  const body = JSON.parse(reply.body.toString());
  expect(body.ERRORARRAY, reply.body.toString()).toEqual([]);
  return body.DATA;
}

/** kdig or dig against the DoT port (or with `+https`, the HTTPS port): the parsed answer and the raw output. */
async function client(program: 'kdig' | 'dig', port: number, ...args: string[]) {
  const retry = program === 'kdig' ? '+retry=0' : '+tries=1';
  const { stdout } = await run(program, ['-p', String(port), '@127.0.0.1', '+norec', '+time=3', retry, ...args], { timeout: 20_000 });
  return parseDig(stdout);
}

/** The records a transfer printed (kdig prints them without sections) as "name ttl type data". */
const transferred = (raw: string): string[] =>
  raw.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(';')).map((l) => {
    const [name, ttl, , type, ...data] = l.split(/\s+/);
    return `${name} ${ttl} ${type} ${data.join(' ')}`;
  });

const rcodeOf = (msg: Buffer): number => (dnsPacket.decode(msg).flags ?? 0) & 15;

const query = (id: number, name: string, type: dnsPacket.RecordType = 'A', edns = true): Buffer =>
  dnsPacket.encode({ type: 'query', id, questions: [{ type, class: 'IN', name }], ...(edns ? { additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232 } as dnsPacket.Answer] } : {}) });

beforeAll(async () => {
  if (needsOpenssl.reason !== null) return;
  cert = testCertificate();
  server = await startTestServer({ tls: { cert: cert.cert, key: cert.key }, dot: { host: '127.0.0.1', port: 0 } });
  dot = server.dotAddress!.port;
  https = server.httpAddress!.port;
  const alice = await server.user('alice');
  key = alice.key;
  const id = (await v3({ api_action: 'domain.create', api_key: key, Domain: ZONE, Type: 'master', SOA_Email: `hostmaster@${ZONE}`, axfr_ips: '127.0.0.1' })).DomainID;
  const records = [
    { Type: 'A', Name: 'www', Target: '192.0.2.1' },
    ...Array.from({ length: 10 }, (_, i) => ({ Type: 'A', Name: `h${i}`, Target: `192.0.2.${10 + i}` })),
    ...BIG_TXT.map((Target) => ({ Type: 'TXT', Name: 'big', Target })),
  ];
  for (const r of records) await v3({ api_action: 'domain.resource.create', api_key: key, DomainID: id, ...r });
  await v3({ api_action: 'domain.create', api_key: key, Domain: CLOSED, Type: 'master', SOA_Email: `hostmaster@${CLOSED}` });
  const actor: Actor = { accountId: alice.accountId, userId: alice.accountId, role: 'owner', username: 'alice', keyLabel: 'test', iface: 'cli', remoteAddr: '' };
  await server.services.tsigKeys.create(actor, { name: TSIG_NAME, secret: TSIG_SECRET, domains: [id], update: false });
});

afterAll(async () => {
  await server?.close();
  cert?.remove();
});

describe('starting DNS over TLS', () => {
  it('says at start that --dot needs a certificate, and the DNS server', async () => {
    await expect(startTestServer({ dot: { host: '127.0.0.1', port: 0 } })).rejects.toThrow(/--dot needs --tls-cert and --tls-key/);
    await expect(startTestServer({ dns: null, dot: { host: '127.0.0.1', port: 0 }, tls: { cert: '/nonexistent', key: '/nonexistent' } })).rejects.toThrow(/--dot needs the DNS server/);
  });
});

needsOpenssl.describe('DNS over TLS', () => {
  it('negotiates the ALPN "dot"', async () => {
    const c = await dotClient(dot);
    expect(c.alpn).toBe('dot');
    c.close();
  });

  needsKdig.it('answers kdig +tls, padded to a block of 468 octets when the query has EDNS, unpadded without', async () => {
    const a = await client('kdig', dot, '+tls', `www.${ZONE}`, 'A');
    expect(a.status).toBe('NOERROR');
    expect(a.flags).toContain('aa');
    expect(rrs(a.answer)).toEqual([`www.${ZONE}. 86400 A 192.0.2.1`]);
    expect(a.raw).toMatch(/TLS session \(TLS1\.3\)/);
    expect(a.raw).toMatch(/;; PADDING: \d+ B/);
    expect(a.raw).toMatch(/;; Received 468 B/);
    const plain = await client('kdig', dot, '+tls', '+noedns', `www.${ZONE}`, 'A');
    expect(plain.status).toBe('NOERROR');
    expect(plain.raw).not.toMatch(/PADDING/);
    expect(Number(/;; Received (\d+) B/.exec(plain.raw)?.[1])).toBeLessThan(468);
  });

  needsKdig.it('pads a TSIG-signed answer before signing it, over TLS and HTTPS: kdig -y verifies it, and it is a multiple of 468 octets with its TSIG', async () => {
    for (const [name, over] of [[`www.${ZONE}`, ['-p', String(dot), '+tls']], [`big.${ZONE}`, ['-p', String(dot), '+tls']], [`www.${ZONE}`, ['-p', String(https), '+https']]] as const) {
      const args = [...over, '@127.0.0.1', '+norec', '+time=3', '+retry=0', '+padding', '-y', `hmac-sha256:${TSIG_NAME}:${TSIG_SECRET}`];
      // kdig says on stderr when the answer's TSIG does not verify.
      const { stdout, stderr } = await run('kdig', [...args, name, name.startsWith('big') ? 'TXT' : 'A'], { timeout: 20_000 });
      expect(stderr).toBe('');
      const a = parseDig(stdout);
      expect(a.status).toBe('NOERROR');
      expect(a.raw).toMatch(/;; TSIG PSEUDOSECTION:\n\S+\s+0\s+ANY\s+TSIG\s+hmac-sha256\.? \d+ 300 32 \S+ \d+ NOERROR 0/);
      expect(a.raw).not.toMatch(/WARNING|failed|BADSIG|BADKEY/i);
      expect(a.raw).toMatch(/;; PADDING: \d+ B/);
      expect(Number(/;; Received (\d+) B/.exec(a.raw)?.[1]) % 468).toBe(0);
    }
  });

  needsDig.it('answers dig +tls (BIND 9.18)', async () => {
    const a = await client('dig', dot, '+tls', `www.${ZONE}`, 'A');
    expect(a.status).toBe('NOERROR');
    expect(rrs(a.answer)).toEqual([`www.${ZONE}. 86400 A 192.0.2.1`]);
    expect(a.raw).toMatch(/; PAD: \(\d+ bytes\)/);
    expect(a.raw).toMatch(/\(TLS\)/);
  });

  it('answers every query of a pipelined connection, matched by id, each padded', async () => {
    const c = await dotClient(dot);
    const names = [...Array.from({ length: 10 }, (_, i) => `h${i}.${ZONE}`), `nx.${ZONE}`, `www.${ZONE}`, 'elsewhere.example'];
    c.send(names.map((name, i) => query(100 + i, name)));
    const answers = await c.answers(names.length);
    const byId = new Map(answers.map((m) => [dnsPacket.decode(m).id, m]));
    expect([...byId.keys()].sort()).toEqual(names.map((_, i) => 100 + i));
    for (const [i, name] of names.entries()) {
      const m = byId.get(100 + i) as Buffer;
      const p = dnsPacket.decode(m);
      expect(p.questions?.[0]?.name).toBe(name);
      expect(m.length % 468).toBe(0);
      if (i < 10) expect((p.answers?.[0] as { data: string }).data).toBe(`192.0.2.${10 + i}`);
    }
    expect(rcodeOf(byId.get(110) as Buffer)).toBe(3); // NXDOMAIN
    expect(rcodeOf(byId.get(112) as Buffer)).toBe(5); // REFUSED
    c.close();
  });

  it('answers a query written after a zone transfer before the transfer ends (out of order)', async () => {
    const c = await dotClient(dot);
    c.send([query(1, ZONE, 'AXFR', false), query(2, `www.${ZONE}`)]);
    // The AXFR is one message here (a small zone), so two in all.
    const [first, second] = await c.answers(2);
    expect(dnsPacket.decode(first as Buffer).id).toBe(2);
    expect(dnsPacket.decode(second as Buffer).answers?.filter((r) => r.type === 'SOA')).toHaveLength(2);
    c.close();
  });

  needsKdig.it('transfers a zone by AXFR and IXFR to an address on its list, and refuses one not listed', async () => {
    const axfr = transferred((await client('kdig', dot, '+tls', ZONE, 'AXFR')).raw);
    expect(axfr.filter((r) => / SOA /.test(r))).toHaveLength(2);
    expect(axfr).toContain(`www.${ZONE}. 86400 A 192.0.2.1`);
    expect(axfr.filter((r) => / TXT /.test(r))).toHaveLength(BIG_TXT.length);
    const serial = Number(axfr[0]?.split(' ')[5]);
    const [domain] = await v3({ api_action: 'domain.list', api_key: key }).then((list: { DOMAIN: string; DOMAINID: number }[]) => list.filter((d) => d.DOMAIN === ZONE));
    await v3({ api_action: 'domain.resource.create', api_key: key, DomainID: domain!.DOMAINID, Type: 'A', Name: 'new', Target: '192.0.2.99' });
    const ixfr = transferred((await client('kdig', dot, '+tls', ZONE, `IXFR=${serial}`)).raw);
    expect(ixfr).toContain(`new.${ZONE}. 86400 A 192.0.2.99`);
    expect(ixfr.length).toBeLessThan(axfr.length);
    const refused = await run('kdig', ['-p', String(dot), '@127.0.0.1', '+tls', '+time=3', '+retry=0', CLOSED, 'AXFR'], { timeout: 20_000 }).then(
      () => 'transferred',
      (e: { stdout?: string; stderr?: string }) => `${e.stdout}${e.stderr}`,
    );
    expect(refused).toMatch(/server replied with error 'REFUSED'/);
  });
});

needsOpenssl.describe('DNS over HTTPS', () => {
  needsKdig.it('answers kdig +https (HTTP/2, POST and GET), padded', async () => {
    for (const flag of ['+https', '+https-get']) {
      const a = await client('kdig', https, flag, `www.${ZONE}`, 'A');
      expect(a.status).toBe('NOERROR');
      expect(rrs(a.answer)).toEqual([`www.${ZONE}. 86400 A 192.0.2.1`]);
      expect(a.raw).toMatch(flag === '+https' ? /HTTP\/2-POST/ : /HTTP\/2-GET/);
      expect(a.raw).toMatch(/;; PADDING: \d+ B/);
    }
  });

  it('answers GET and POST over HTTP/1.1 and HTTP/2 alike, with a freshness lifetime of the smallest TTL', async () => {
    const msg = query(0, `www.${ZONE}`);
    for (const http2 of [false, true]) {
      const get = await httpsRequest(https, { path: `/dns-query?dns=${msg.toString('base64url')}`, headers: { accept: 'application/dns-message' }, http2 });
      const post = await httpsRequest(https, { method: 'POST', path: '/dns-query', headers: { 'content-type': 'application/dns-message' }, body: msg, http2 });
      for (const reply of [get, post]) {
        expect(reply.version).toBe(http2 ? '2' : '1.1');
        expect(reply.status).toBe(200);
        expect(reply.headers['content-type']).toBe('application/dns-message');
        expect(reply.headers['cache-control']).toBe('max-age=86400');
        const p = dnsPacket.decode(reply.body);
        expect(p.answers?.map((r) => (r as { data: string }).data)).toEqual(['192.0.2.1']);
        expect(reply.body.length % 468).toBe(0);
      }
    }
  });

  needsDig.it('answers in full what UDP truncates: the query\'s EDNS size does not apply over HTTP', async () => {
    const overUdp = await dig(server, `big.${ZONE}`, 'TXT', '+bufsize=1232', '+ignore');
    expect(overUdp.flags).toContain('tc');
    const msg = dnsPacket.encode({ type: 'query', id: 0, questions: [{ type: 'TXT', class: 'IN', name: `big.${ZONE}` }], additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 512 } as dnsPacket.Answer] });
    const reply = await httpsRequest(https, { path: `/dns-query?dns=${msg.toString('base64url')}`, http2: true });
    const p = dnsPacket.decode(reply.body);
    expect(p.flag_tc).toBe(false);
    expect(p.answers).toHaveLength(BIG_TXT.length);
  });

  it('refuses a malformed dns parameter (400) and a body of another type (415); a transfer is not carried (NOTIMP)', async () => {
    for (const path of ['/dns-query', '/dns-query?dns=', '/dns-query?dns=!!!!', '/dns-query?dns=AAAA', `/dns-query?dns=${Buffer.from('hello world').toString('base64url')}`, '/dns-query?dns=a&dns=b']) {
      expect((await httpsRequest(https, { path, http2: true })).status, path).toBe(400);
    }
    const msg = query(0, `www.${ZONE}`);
    for (const type of ['application/json', 'text/plain', 'application/x-www-form-urlencoded']) {
      expect((await httpsRequest(https, { method: 'POST', path: '/dns-query', headers: { 'content-type': type }, body: msg, http2: false })).status, type).toBe(415);
    }
    expect((await httpsRequest(https, { method: 'POST', path: '/dns-query', body: msg, http2: true })).status).toBe(415);
    const axfr = await httpsRequest(https, { path: `/dns-query?dns=${query(0, ZONE, 'AXFR', false).toString('base64url')}`, http2: true });
    expect(axfr.status).toBe(200);
    expect(rcodeOf(axfr.body)).toBe(4); // NOTIMP
  });

  it('is not held to the API request limits', async () => {
    const limited = await startTestServer({ rateLimits: { perAddress: 2, perKey: 0 } });
    try {
      const msg = query(0, 'nothing.example').toString('base64url');
      for (let i = 0; i < 5; i++) expect((await fetch(`${limited.base}/dns-query?dns=${msg}`)).status).toBe(200);
      const api = await Promise.all(Array.from({ length: 3 }, () => fetch(`${limited.base}/api/?api_action=test.echo`)));
      expect(api.map((r) => r.status)).toContain(429);
    } finally {
      await limited.close();
    }
  });
});

needsOpenssl.describe('the HTTP APIs beside DNS over HTTPS', () => {
  it('answer interface A, interface B and the panel over HTTP/2 and HTTP/1.1', async () => {
    for (const http2 of [false, true]) {
      const a = await httpsRequest(https, { path: `/api/?api_action=domain.list&api_key=${key}`, http2 });
      expect(a.version).toBe(http2 ? '2' : '1.1');
      expect(JSON.parse(a.body.toString()).DATA.map((d: { DOMAIN: string }) => d.DOMAIN)).toContain(ZONE);
      const b = await httpsRequest(https, { path: '/v1/domains', headers: { authorization: `Bearer ${key}` }, http2 });
      expect(b.status).toBe(200);
      const domains = JSON.parse(b.body.toString()) as { id: number; domain: string }[];
      expect(domains.map((d) => d.domain)).toContain(ZONE);
      const created = await httpsRequest(https, {
        method: 'POST', path: `/v1/domains/${domains[0]?.id}/A`, http2,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: `via-http${http2 ? 2 : 1}`, address: '192.0.2.7' }),
      });
      expect(created.status, created.body.toString()).toBe(201);
      const panel = await httpsRequest(https, { path: '/manager/', http2 });
      expect(panel.status).toBe(existsSync(`${PANEL_DIR}/index.html`) ? 200 : 503);
      expect(panel.headers['strict-transport-security']).toBe('max-age=31536000');
    }
  });

  it('keeps the long query strings of interface A, and its envelope for a request that cannot be read', async () => {
    // HTTP/1.1 takes the header size of plain HTTP; HTTP/2 (nghttp2) takes at most 64 KiB in one header field.
    for (const [http2, long] of [[false, 'x'.repeat(100_000)], [true, 'x'.repeat(60_000)]] as const) {
      const reply = await httpsRequest(https, { path: `/api/?api_action=test.echo&api_key=${key}&foo=${long}`, http2 });
      expect(reply.status).toBe(200);
      // (Compared as a boolean: a failure must not print the 100,000 octets.)
      expect(JSON.parse(reply.body.toString()).DATA.FOO === long).toBe(true);
    }
    // A request line Node cannot parse, over HTTP/1.1 on TLS: interface A's envelope (app.ts clientError).
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: https, ALPNProtocols: ['http/1.1'], rejectUnauthorized: false }, () => socket.write('NOT A REQUEST\r\n\r\n'));
      let out = '';
      socket.on('data', (d: Buffer) => (out += d.toString()));
      socket.on('end', () => resolve(out));
      socket.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(text).toMatch(/"ERRORARRAY":\[\{"ERRORCODE"/);
  });
});
