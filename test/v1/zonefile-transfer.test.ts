/**
 * Import by AXFR over interface B (POST /v1/domains/{id}/zonefile/transfer): a zone pulled from a real knotd
 * primary, with and without TSIG, written as a PUT of its file would be; dry runs write nothing; refused
 * transfers (a key the request lacks, a zone the primary lacks, a connection closed) are clear errors, a zone
 * with records we do not take is a 422 naming each, and none writes anything; refused destinations are refused before any connection; one transfer at a time per account.
 * The primaries listen on 127.0.37.x (spare loopback addresses), which this server's --import-allow lets through.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kdigAt, startPrimary, type Knot, type KnotKey } from '../support/knot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { client, createDomain as createV1Domain, expectProblem, type Client, type Reply } from './support.js';
import { peers } from '../support/peers.js';

// The transfers come from knotd primaries started before all tests (when installed).
const needsKnot = peers('knotd', 'knotc');
const needsKnotKdig = peers('knotd', 'knotc', 'kdig');

const PRIMARY = '127.0.37.2';
const KEYED = '127.0.37.3';
const SILENT = '127.0.37.4';
const ZONE = 'moving.test';
const KEY: KnotKey = { name: 'import-key', algorithm: 'hmac-sha256', secret: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMzQ=' };

const zoneFile = (serial: number) => `$ORIGIN ${ZONE}.
$TTL 3600
@ 7200 IN SOA ns1.oldprovider.test. admin.${ZONE}. ${serial} 7200 1800 1209600 300
@ IN NS ns1.oldprovider.test.
@ IN NS ns2.oldprovider.test.
@ IN A 192.0.2.10
www 600 IN A 192.0.2.11
www IN AAAA 2001:db8::11
@ IN MX 10 mail.${ZONE}.
mail IN A 192.0.2.25
@ IN TXT "v=spf1 mx -all"
@ IN NSEC www.${ZONE}. A NS SOA MX TXT RRSIG NSEC
`;

let server: TestServer;
let api: Client;
let primary: Knot;
let keyed: Knot;

beforeAll(async () => {
  server = await startTestServer({ importAllow: ['127.0.37.0/24'] });
  api = client(server.base, (await server.user('axfr-import')).key);
  if (needsKnot.reason !== null) return;
  primary = await startPrimary(PRIMARY, ZONE, zoneFile(2024070101), 9);
  keyed = await startPrimary(KEYED, ZONE, zoneFile(2024070102), 9, KEY);
}, 60_000);
afterAll(async () => {
  await primary?.stop();
  await keyed?.stop();
  await server?.close();
});

/** The domain the primaries serve (created once: names are unique in the service). */
let id: number;
beforeAll(async () => {
  id = await createDomain(ZONE);
});

const createDomain = (name: string): Promise<number> => createV1Domain(api, name);

const transfer = (domainId: number, body: unknown, dryRun = false): Promise<Reply> => api.post(`/v1/domains/${domainId}/zonefile/transfer${dryRun ? '?dry_run=true' : ''}`, body);

async function exported(domainId: number): Promise<string> {
  const r = await api.get(`/v1/domains/${domainId}/zonefile`);
  expect(r.status, r.text).toBe(200);
  return r.text;
}

/** The exported records other than the SOA and the service's NS, sorted, one "name type data" each. */
const records = (text: string): string[] =>
  text
    .trim()
    .split('\n')
    .map((l) => l.split('\t'))
    .filter(([, , , type, data]) => type !== 'SOA' && !(type === 'NS' && /zonehost\.test\.$/.test(data ?? '')))
    .map(([name, , , type, data]) => `${name} ${type} ${data}`)
    .sort();

const EXPECTED = [
  `mail.${ZONE}. A 192.0.2.25`,
  `${ZONE}. A 192.0.2.10`,
  `${ZONE}. MX 10 mail.${ZONE}.`,
  `${ZONE}. NS ns1.oldprovider.test.`,
  `${ZONE}. NS ns2.oldprovider.test.`,
  `${ZONE}. TXT "v=spf1 mx -all"`,
  `www.${ZONE}. A 192.0.2.11`,
  `www.${ZONE}. AAAA 2001:db8::11`,
];

needsKnot.describe('import from a knotd primary', () => {
  it('a dry run answers the difference and writes nothing', async () => {
    const before = await exported(id);
    const r = await transfer(id, { server: PRIMARY, port: 53 }, true);
    expect(r.status, r.text).toBe(200);
    expect(r.body.dry_run).toBe(true);
    expect(r.body.added).toHaveLength(EXPECTED.length);
    expect(r.body.added.every((a: { id?: number }) => a.id === undefined)).toBe(true);
    // The SOA's timers as a file's are taken: rounded to the allowed TTLs, the default expire stored as 0.
    expect(r.body.domain).toMatchObject({ soa: `admin@${ZONE}`, refresh: 7200, retry: 3600, expire: 0 });
    expect(r.body.domain.changed).toEqual(expect.arrayContaining(['soa', 'refresh']));
    expect(await exported(id)).toBe(before);
  });

  needsKnotKdig.it('imports the zone as a PUT of its file would, DNSSEC records dropped', async () => {
    // The primary does send an NSEC record (so dropping it is tested).
    expect((await kdigAt(primary, ZONE, 'NSEC')).answer.some((a) => a.type === 'NSEC')).toBe(true);
    const r = await transfer(id, { server: PRIMARY });
    expect(r.status, r.text).toBe(200);
    expect(r.body.dry_run).toBe(false);
    expect(r.body.added).toHaveLength(EXPECTED.length);
    expect(r.body.added.every((a: { id?: number }) => typeof a.id === 'number')).toBe(true);
    const text = await exported(id);
    expect(records(text)).toEqual(EXPECTED);
    expect(text).not.toMatch(/\tNSEC\t/);
    expect(text).toMatch(new RegExp(`\\tSOA\\t\\S+ admin\\.${ZONE.replace('.', '\\.')}\\. \\d+ 7200 3600 1209600 `));
    // Again: nothing changes.
    const again = await transfer(id, { server: PRIMARY });
    expect(again.status, again.text).toBe(200);
    expect(again.body.added).toEqual([]);
    expect(again.body.removed).toEqual([]);
    expect(again.body.unchanged).toHaveLength(EXPECTED.length);
  });

  it('imports with TSIG when given the key the primary wants', async () => {
    const put = await api.call('PUT', `/v1/domains/${id}/zonefile`, { raw: `www.${ZONE}. 300 IN A 198.51.100.1\n`, headers: { 'content-type': 'text/dns' } });
    expect(put.status, put.text).toBe(200);
    expect(records(await exported(id))).toEqual([`www.${ZONE}. A 198.51.100.1`]);
    const r = await transfer(id, { server: KEYED, port: 53, tsig: KEY });
    expect(r.status, r.text).toBe(200);
    expect(r.body.removed).toHaveLength(1);
    expect(records(await exported(id))).toEqual(EXPECTED);
  });
});

needsKnot.describe('refused transfers are clear errors and write nothing', () => {
  it('a primary that wants a key the request does not give: 502 naming NOTAUTH', async () => {
    const before = await exported(id);
    const r = await transfer(id, { server: KEYED });
    const body = expectProblem(r, 502);
    expect(body.detail).toMatch(/127\.0\.37\.3 port 53 failed: the primary refused the transfer: NOTAUTH/);
    expect(body.detail).toMatch(/Nothing was written/);
    expect(await exported(id)).toBe(before);
  });

  it('a wrong key: 502', async () => {
    const before = await exported(id);
    const r = await transfer(id, { server: KEYED, tsig: { ...KEY, secret: 'd3Jvbmctd3Jvbmctd3Jvbmctd3Jvbmctd3JvbmctMTI=' } });
    const body = expectProblem(r, 502);
    expect(body.detail).toMatch(/127\.0\.37\.3 port 53 failed: /);
    expect(await exported(id)).toBe(before);
  });

  it('a zone the primary does not have: 502 naming its answer', async () => {
    const other = await createDomain('notthere.test');
    const before = await exported(other);
    const body = expectProblem(await transfer(other, { server: PRIMARY }), 502);
    expect(body.detail).toMatch(/the primary refused the transfer: (NOTAUTH|REFUSED)/);
    expect(await exported(other)).toBe(before);
  });

  it('nothing listening: 502 saying the connection was refused', async () => {
    const body = expectProblem(await transfer(id, { server: PRIMARY, port: 5399 }), 502);
    expect(body.detail).toMatch(/ECONNREFUSED/);
  });

  it('one transfer at a time per account (409), and a connection closed mid-way is 502', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(5300, SILENT, resolve));
    try {
      const first = transfer(id, { server: SILENT, port: 5300 });
      for (let i = 0; i < 100 && sockets.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(sockets).toHaveLength(1);
      const second = await transfer(id, { server: PRIMARY });
      expect(second.status, second.text).toBe(409);
      expect(second.body.detail).toMatch(/Another import by AXFR of this account is under way/);
      for (const s of sockets) s.destroy();
      const body = expectProblem(await first, 502);
      expect(body.detail).toMatch(/closed the connection before the transfer ended/);
      // The account may transfer again.
      expect((await transfer(id, { server: PRIMARY })).status).toBe(200);
    } finally {
      await new Promise((r) => silent.close(r));
    }
  });
});

needsKnot.describe('a zone with records we do not take', () => {
  const ODD = 'odd.test';
  let odd: Knot;
  let oddId: number;
  beforeAll(async () => {
    odd = await startPrimary('127.0.37.5', ODD, `$ORIGIN ${ODD}.
$TTL 3600
@ IN SOA ns1.oldprovider.test. admin.${ODD}. 1 7200 1800 1209600 300
@ IN NS ns1.oldprovider.test.
@ IN A 192.0.2.10
host IN HINFO "PC" "Linux"
@ IN LOC 52 22 23.000 N 4 53 32.000 E -2.00m 0.00m 10000m 10m
`, 9);
    oddId = await createDomain(ODD);
  }, 30_000);
  afterAll(async () => {
    await odd?.stop();
  });

  it('is 422 naming each of them, and writes nothing', async () => {
    const before = await exported(oddId);
    for (const dryRun of [true, false]) {
      const p = expectProblem(await transfer(oddId, { server: '127.0.37.5' }, dryRun), 422);
      expect(p.detail).toMatch(/2 records we do not take; nothing was written/);
      expect(p.errors.map((e: { field: string }) => e.field)).toEqual(['transfer', 'transfer']);
      expect(p.errors.map((e: { reason: string }) => e.reason).sort()).toEqual([
        `host.${ODD} HINFO: record type HINFO is not supported`,
        `${ODD} LOC: record type LOC is not supported`,
      ]);
    }
    expect(await exported(oddId)).toBe(before);
  });
});

describe('destinations refused before any connection', () => {
  let listener: Server;
  let connections = 0;
  let port = 0;
  beforeAll(async () => {
    // A loopback listener outside the allowed network: a refused request must never reach it.
    listener = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((r) => listener.close(r));
  });

  const cases: [string, () => Record<string, unknown>, string, RegExp][] = [
    ['loopback outside --import-allow', () => ({ server: '127.0.0.1', port }), 'server', /loopback/],
    ['IPv6 loopback', () => ({ server: '::1', port }), 'server', /loopback/],
    ['IPv4-mapped loopback', () => ({ server: '::ffff:127.0.0.1', port }), 'server', /loopback/],
    ['private (RFC 1918)', () => ({ server: '10.1.2.3' }), 'server', /private network/],
    ['private 192.168', () => ({ server: '192.168.1.1' }), 'server', /private network/],
    ['unique local IPv6', () => ({ server: 'fd00::1' }), 'server', /unique local/],
    ['link-local (metadata service)', () => ({ server: '169.254.169.254' }), 'server', /link-local/],
    ['IPv6 link-local', () => ({ server: 'fe80::1' }), 'server', /link-local/],
    ['CGNAT', () => ({ server: '100.64.0.1' }), 'server', /carrier-grade NAT/],
    ['multicast', () => ({ server: '224.0.0.251' }), 'server', /multicast/],
    ['broadcast', () => ({ server: '255.255.255.255' }), 'server', /broadcast/],
    ['unspecified', () => ({ server: '0.0.0.0' }), 'server', /this network/],
    ['a host name', () => ({ server: 'localhost', port }), 'server', /not an IP address/],
    ['port 25', () => ({ server: PRIMARY, port: 25 }), 'port', /Port 25 is not allowed/],
    ['port 0', () => ({ server: PRIMARY, port: 0 }), 'port', /Port 0 is not allowed/],
  ];
  for (const [what, body, field, reason] of cases) {
    it(`${what}: 422 naming ${field}`, async () => {
      const started = Date.now();
      const p = expectProblem(await transfer(id, body()), 422);
      expect(p.errors[0].field).toBe(field);
      expect(p.errors[0].reason).toMatch(reason);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(connections).toBe(0);
    });
  }
});
