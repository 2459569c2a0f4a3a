/**
 * DNSSEC online signing checked by real validators from Debian's packages, anchored on the DS record the
 * API gives: BIND's `delv` and Unbound's `unbound-host`, for every kind of answer — positive, CNAME, wildcard
 * expansion, NODATA, NXDOMAIN, empty non-terminal, DS at secure and insecure delegations, DNSKEY, CDS — and
 * again after 100 random changes through the APIs. The zone's AXFR passes `dnssec-verify` and
 * `ldns-verify-zone`, and a knotd secondary serves it so that delv validates it there.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { eventually, kdigAt, startKnot, zonehostPrimary, type Knot } from '../support/knot.js';
import { delv as validator, unboundHost } from '../support/dnssec.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createDomain, createRecord, dig } from './support.js';
import { peers } from '../support/peers.js';

// Every test builds on the first, which turns DNSSEC on and reads the zone with dig.
const needsDig = peers('dig');
const needsDigDelv = peers('dig', 'delv');
const needsDigUnboundHost = peers('dig', 'unbound-host');
const needsDigDnssecVerifyLdnsVerifyZone = peers('dig', 'dnssec-verify', 'ldns-verify-zone');
const needsDigKdigKnotdKnotcDelv = peers('dig', 'kdig', 'knotd', 'knotc', 'delv');

const run = promisify(execFile);

const ZONE = 'signed.example';
const SECONDARY = '127.0.35.2';

let server: TestServer;
let apiKey: string;
let domainId: number;
let dir: string;
let knot: Knot | undefined;

const v1 = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.base}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

/** The DS records of the zone's keys, as the API gives them: "<zone>. TTL IN DS tag alg 2 hex". */
async function dsRecords(): Promise<string[]> {
  const { body } = await v1('GET', `/domains/${domainId}/dnssec`);
  return (body.keys as { ds: string[] }[]).flatMap((k) => k.ds);
}

const local = () => ({ host: '127.0.0.1', port: server.dnsAddress?.port as number });
const delv = async (name: string, type: string, at = local()) => validator(ZONE, await dsRecords(), at, name, type);
const unbound = async (name: string, type: string) => unboundHost(ZONE, await dsRecords(), local(), name, type);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zonehost-dnssec-'));
  // Response rate limiting off (--rrl-rate 0): one test asks 3,000 random names from one address on purpose.
  server = await startTestServer({ rrl: { rate: 0 } });
  ({ key: apiKey } = await server.user('signer'));
  // Transfers to dig (127.0.0.1) and the knotd secondary.
  domainId = await createDomain(server.base, apiKey, ZONE, { axfr_ips: `127.0.0.1;${SECONDARY}` });
  const records: Record<string, string | number>[] = [
    { Type: 'A', Name: 'www', Target: '192.0.2.1' },
    { Type: 'AAAA', Name: 'www', Target: '2001:db8::1' },
    { Type: 'MX', Name: '', Target: 'mail.signed.example', Priority: 10 },
    { Type: 'A', Name: 'mail', Target: '192.0.2.25' },
    { Type: 'CNAME', Name: 'alias', Target: 'www.signed.example' },
    { Type: 'A', Name: '*.wild', Target: '192.0.2.42' },
    { Type: 'TXT', Name: 'deep.a.ent', Target: 'below an empty non-terminal' },
    { Type: 'NS', Name: 'sub', Target: 'ns.sub.signed.example' },
    { Type: 'A', Name: 'ns.sub', Target: '192.0.2.53' },
    { Type: 'NS', Name: 'secure', Target: 'ns.elsewhere.example' },
  ];
  for (const r of records) await createRecord(server.base, apiKey, domainId, r);
  expect((await v1('POST', `/domains/${domainId}/DS`, { name: 'secure', key_tag: 12345, algorithm: 13, digest_type: 2, digest: 'AB'.repeat(32) })).status).toBe(201);
});

afterAll(async () => {
  await knot?.stop();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const CASES: [string, string, string, RegExp][] = [
  ['a positive answer', `www.${ZONE}`, 'A', /^; fully validated/m],
  ['the apex DNSKEY set', ZONE, 'DNSKEY', /^; fully validated/m],
  ['the apex CDS set', ZONE, 'CDS', /^; fully validated/m],
  ['an MX answer', ZONE, 'MX', /^; fully validated/m],
  ['a CNAME to an answer', `alias.${ZONE}`, 'A', /^; fully validated/m],
  ['a wildcard expansion', `anything.wild.${ZONE}`, 'A', /^; fully validated/m],
  ['NODATA at a wildcard', `anything.wild.${ZONE}`, 'TXT', /negative response, fully validated/],
  ['NODATA', `www.${ZONE}`, 'TXT', /negative response, fully validated/],
  ['NXDOMAIN', `nothere.${ZONE}`, 'A', /negative response, fully validated/],
  ['NXDOMAIN below an existing name', `x.y.www.${ZONE}`, 'A', /negative response, fully validated/],
  ['an empty non-terminal', `a.ent.${ZONE}`, 'A', /negative response, fully validated/],
  ['the DS of a secure delegation', `secure.${ZONE}`, 'DS', /^; fully validated/m],
  ['no DS at an insecure delegation', `sub.${ZONE}`, 'DS', /negative response, fully validated/],
];

describe('a zone with DNSSEC turned on', () => {
  needsDig.it('is signed on the next query, and publishes its DNSKEY and CDS', async () => {
    const put = await v1('PUT', `/domains/${domainId}/dnssec`, { enabled: true });
    expect(put.status).toBeLessThan(300);
    const ds = await dsRecords();
    expect(ds).toHaveLength(1);
    expect(ds[0]).toMatch(new RegExp(`^${ZONE}\\. \\d+ IN DS \\d+ 13 2 [0-9A-F]{64}$`));
    const key = await dig(server, ZONE, 'DNSKEY', '+dnssec');
    expect(key.answer.map((r) => r.type)).toEqual(['DNSKEY', 'RRSIG']);
  });

  for (const [what, name, type, verdict] of CASES) {
    needsDigDelv.it(`validates with delv: ${what}`, async () => {
      expect(await delv(name, type)).toMatch(verdict);
    });
  }

  needsDigUnboundHost.it('validates with unbound-host: positive, wildcard, NXDOMAIN, NODATA', async () => {
    expect(await unbound(`www.${ZONE}`, 'A')).toMatch(/\(secure\)/);
    expect(await unbound(`anything.wild.${ZONE}`, 'A')).toMatch(/\(secure\)/);
    expect(await unbound(`nothere.${ZONE}`, 'A')).toMatch(/\(secure\)/);
    expect(await unbound(`www.${ZONE}`, 'TXT')).toMatch(/\(secure\)/);
  });

  needsDigDnssecVerifyLdnsVerifyZone.it('transfers signed: dnssec-verify and ldns-verify-zone accept the AXFR', async () => {
    const axfr = await dig(server, ZONE, 'AXFR', '+onesoa', '+nocmd', '+nostats', '+noall', '+answer');
    const file = join(dir, 'axfr.zone');
    writeFileSync(file, axfr.raw);
    // -z: one combined signing key (flags 257) signs everything; dnssec-verify otherwise wants a key without the SEP flag too.
    const bind = await run('dnssec-verify', ['-z', '-o', ZONE, file]).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
    expect(`${bind.stdout}${bind.stderr}`).toMatch(/Zone fully signed/);
    const ldns = await run('ldns-verify-zone', [file]).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
    expect(`${ldns.stdout}${ldns.stderr}`).toMatch(/Zone is verified and complete/);
  });

  needsDigKdigKnotdKnotcDelv.it('a knotd secondary serves it signed, and delv validates it there', async () => {
    knot = await startKnot({ address: SECONDARY, config: `${zonehostPrimary(server)}zone:\n  - domain: ${ZONE}\n    master: zonehost\n    acl: notify_from_zonehost\n    storage: "{dir}"\n` });
    await eventually(`the secondary to serve the zone\n${knot.log()}`, async () => (await kdigAt(knot as Knot, `www.${ZONE}`, 'A')).answer.length === 1);
    expect(await delv(`www.${ZONE}`, 'A', { host: SECONDARY, port: 53 })).toMatch(/^; fully validated/m);
    expect(await delv(`nothere.${ZONE}`, 'A', { host: SECONDARY, port: 53 })).toMatch(/negative response, fully validated/);
  });

  needsDig.it('signs a bounded amount however many random names are asked with DO: signatures are cached', async () => {
    const made = async () => Number(/^zonehost_dnssec_signatures_made (\d+)$/m.exec(await (await fetch(`${server.base}/metrics`)).text())?.[1]);
    const before = await made();
    const socket = createSocket('udp4');
    const answers: Buffer[] = [];
    socket.on('message', (m) => answers.push(m));
    await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
    const N = 3000;
    // In windows of 100, each waited for (a second at most), so a busy machine drops few datagrams.
    for (let i = 0; i < N; i++) {
      const name = `${randomBytes(6).toString('hex')}${i % 3 === 0 ? '.wild' : i % 3 === 1 ? '.www' : ''}.${ZONE}`;
      const msg = dnsPacket.encode({ type: 'query', id: i & 0xffff, questions: [{ type: 'A', class: 'IN', name }], additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: dnsPacket.DNSSEC_OK } as dnsPacket.Answer] });
      socket.send(msg, server.dnsAddress?.port, '127.0.0.1');
      if (i % 100 === 99) await eventually('a window of answers', async () => answers.length >= i + 1, 1000).catch(() => undefined);
    }
    await eventually(`the answers (${answers.length} of ${N})`, async () => answers.length >= N * 0.9, 10_000);
    socket.close();
    // Every answer signed: NSEC3 proofs (NXDOMAIN) or a wildcard expansion, each with RRSIGs.
    expect(answers.every((a) => (dnsPacket.decode(a).authorities ?? []).some((r) => r.type === 'RRSIG') || (dnsPacket.decode(a).answers ?? []).some((r) => r.type === 'RRSIG'))).toBe(true);
    // At most one signature per name of the chain and per RRset, whatever was asked.
    expect((await made()) - before).toBeLessThan(60);
  });

  needsDigDelv.it('still validates after 100 random changes through both APIs', async () => {
    let seed = 17;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    const made: number[] = [];
    for (let i = 0; i < 100; i++) {
      const choice = rand(3);
      if (choice === 0 || made.length === 0) {
        const { body } = await v1('POST', `/domains/${domainId}/A`, { name: `r${rand(40)}.x${rand(5)}`, address: `192.0.2.${rand(250) + 1}` });
        if (body?.id) made.push(body.id);
      } else if (choice === 1) {
        await createRecord(server.base, apiKey, domainId, { Type: 'TXT', Name: `t${rand(30)}`, Target: `change ${i}` });
      } else {
        const id = made.splice(rand(made.length), 1)[0];
        await v1('DELETE', `/domains/${domainId}/A/${id}`);
      }
    }
    for (const [, name, type, verdict] of CASES) expect(await delv(name, type)).toMatch(verdict);
    expect(await delv(`r1.x1.${ZONE}`, 'A')).toMatch(/fully validated/);
  });
});
