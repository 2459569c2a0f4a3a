/**
 * Zone mirrors of signed zones, served as received: a knotd primary signs two zones itself (ECDSA P-256; one
 * with NSEC3 — no extra iterations, a salt — one with NSEC) and zonehost mirrors them. delv, anchored on the
 * DS of knotd's key, validates every kind of answer from zonehost: positive, CNAME, wildcard expansion and
 * wildcard NODATA, NODATA, NXDOMAIN, empty non-terminal, DS at a secure delegation and its absence at an
 * insecure one, DNSKEY. Answers without DO are those of the master; zonehost signs nothing; the mirror's AXFR
 * carries every record as received. A third zone, NSEC3 with opt-out and extra iterations, leaves its insecure
 * delegation out of the chain: the mirror proves it with the closest provable encloser, as knotd does, and
 * delv gives the mirror's answers the verdicts it gives the master's.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { dnskeyRdata, dsDigest, keyTag } from '../../src/model/dnssec.js';
import { eventually, kdigAt, startKnot, transfer, type Knot } from '../support/knot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { data } from '../v3/support.js';
import { kdig } from './support.js';
import { delv as validator } from '../support/dnssec.js';
import { peers } from '../support/peers.js';

// Every test reads the mirrors of zones a knotd primary signs, started and checked with kdig before them all.
const needsKnot = peers('knotd', 'knotc', 'kdig');
const needsKnotDelv = peers('knotd', 'knotc', 'kdig', 'delv');
const needsKnotLdns = peers('knotd', 'knotc', 'kdig', 'ldns-verify-zone');

const run = promisify(execFile);

// Addresses of this file's own: alias.test.ts binds a knotd on 127.0.36.2:53 while other files run.
const PRIMARY = '127.0.43.2';
/** Where zonehost passes its mirrors on to (their axfr list). */
const SECONDARY = '127.0.43.1';
const NSEC3_ZONE = 'hashed.test';
const NSEC_ZONE = 'ordered.test';
/** NSEC3 with opt-out and extra iterations: its chain leaves out the insecure delegation. */
const OPT_OUT_ZONE = 'optout.test';

const zoneFile = (zone: string) => `$ORIGIN ${zone}.
$TTL 3600
@        SOA   ns.${zone}. admin.${zone}. 1 3600 600 86400 300
@        NS    ns.${zone}.
@        MX    10 mail.${zone}.
ns       A     192.0.2.53
mail     A     192.0.2.25
www  120 A     192.0.2.80
www      AAAA  2001:db8::80
alias    CNAME www.${zone}.
*.wild   A     192.0.2.42
deep.a.ent TXT "below an empty non-terminal"
sub      NS    ns.sub.${zone}.
ns.sub   A     192.0.2.54
secure   NS    ns.elsewhere.example.
secure   DS    12345 13 2 ${'AB'.repeat(32)}
`;

let server: TestServer;
let key: string;
let knot: Knot;
let dir: string;
const mirrors = new Map<string, number>();

/** delv's verdict on `name` `type` from zonehost, anchored on the DS of the primary's key for `zone`. */
async function delv(zone: string, name: string, type: string, at = { host: '127.0.0.1', port: server.dnsAddress?.port as number }): Promise<string> {
  const keys = await kdigAt(knot, zone, 'DNSKEY');
  const ksk = keys.answer.find((r) => r.type === 'DNSKEY' && r.data.startsWith('257 '));
  if (!ksk) throw new Error(`no key-signing key for ${zone}:\n${keys.raw}`);
  const [flags, , algorithm, ...b64] = ksk.data.split(/\s+/);
  const rdata = dnskeyRdata(Number(flags), Number(algorithm), Buffer.from(b64.join(''), 'base64'));
  return validator(zone, [`${keyTag(rdata)} ${algorithm} 2 ${dsDigest(zone, rdata)}`], at, name, type);
}

const signaturesMade = async () => Number(/^zonehost_dnssec_signatures_made (\d+)$/m.exec(await (await fetch(`${server.base}/metrics`)).text())?.[1]);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zonehost-dnssec-mirror-'));
  server = await startTestServer();
  ({ key } = await server.user('mirror'));
  const policy = (id: string, nsec3: string) => `  - id: ${id}
    algorithm: ecdsap256sha256
    single-type-signing: on
    ${nsec3}
`;
  const zone = (name: string, policyId: string) => `  - domain: ${name}
    file: "{dir}/${name}.zone"
    notify: zonehost
    acl: xfr
    zonefile-sync: -1
    dnssec-signing: on
    dnssec-policy: ${policyId}
`;
  knot = await startKnot({
    address: PRIMARY,
    files: Object.fromEntries([NSEC3_ZONE, NSEC_ZONE, OPT_OUT_ZONE].map((z) => [`${z}.zone`, zoneFile(z)])),
    config: `remote:
  - id: zonehost
    address: 127.0.0.1@${server.dnsAddress?.port}
    via: {address}
acl:
  - id: xfr
    address: 127.0.0.0/8
    action: transfer
policy:
${policy('hashed', 'nsec3: on\n    nsec3-iterations: 0\n    nsec3-salt-length: 8')}${policy('ordered', 'nsec3: off')}${policy('optout', 'nsec3: on\n    nsec3-opt-out: on\n    nsec3-iterations: 3\n    nsec3-salt-length: 4')}zone:
${zone(NSEC3_ZONE, 'hashed')}${zone(NSEC_ZONE, 'ordered')}${zone(OPT_OUT_ZONE, 'optout')}`,
  });
  for (const z of [NSEC3_ZONE, NSEC_ZONE, OPT_OUT_ZONE]) {
    await eventually(`${z} signed by the primary\n${knot.log()}`, async () => (await kdigAt(knot, z, 'DNSKEY', '+dnssec')).answer.some((r) => r.type === 'RRSIG'));
    const created = await data(server.base, { api_action: 'domain.create', api_key: key, Domain: z, Type: 'slave', master_ips: PRIMARY, axfr_ips: SECONDARY });
    mirrors.set(z, created.DomainID);
  }
  for (const [z, id] of mirrors) {
    await eventually(`the mirror of ${z} pulled\n${knot.log()}`, async () => {
      const state = await server.services.mirrors.stateOf(id);
      if (state.lastError) throw new Error(state.lastError);
      return state.serial !== null;
    });
  }
});

afterAll(async () => {
  await knot?.stop();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const CASES: [string, string, string, RegExp][] = [
  ['a positive answer', 'www', 'A', /^; fully validated/m],
  ['the apex DNSKEY set', '', 'DNSKEY', /^; fully validated/m],
  ['an MX answer', '', 'MX', /^; fully validated/m],
  ['a CNAME to an answer', 'alias', 'A', /^; fully validated/m],
  ['a wildcard expansion', 'anything.wild', 'A', /^; fully validated/m],
  ['NODATA at a wildcard', 'anything.wild', 'TXT', /negative response, fully validated/],
  ['NODATA', 'www', 'TXT', /negative response, fully validated/],
  ['NXDOMAIN', 'nothere', 'A', /negative response, fully validated/],
  ['NXDOMAIN below an existing name', 'x.y.www', 'A', /negative response, fully validated/],
  ['an empty non-terminal', 'a.ent', 'A', /negative response, fully validated/],
  ['the DS of a secure delegation', 'secure', 'DS', /^; fully validated/m],
  ['no DS at an insecure delegation', 'sub', 'DS', /negative response, fully validated/],
];

const fqdn = (label: string, zone: string) => (label ? `${label}.${zone}` : zone);

for (const [zone, chain] of [
  [NSEC3_ZONE, 'NSEC3'],
  [NSEC_ZONE, 'NSEC'],
] as const) {
  describe(`a mirror of a zone its master signed with ${chain}`, () => {
    needsKnotDelv.it('is taken whole, signatures and chain included', async () => {
      const state = await server.services.mirrors.stateOf(mirrors.get(zone) as number);
      expect(state.lastError).toBeNull();
      const signed = await kdig(server, fqdn('www', zone), 'A', '+dnssec');
      expect(signed.answer.map((r) => r.type)).toEqual(['A', 'RRSIG']);
      // The primary's own signature, not one of ours.
      expect(signed.answer[1]?.data).toBe((await kdigAt(knot, fqdn('www', zone), 'A', '+dnssec')).answer.find((r) => r.type === 'RRSIG')?.data);
      expect(await delv(zone, fqdn('www', zone), 'A', { host: PRIMARY, port: 53 })).toMatch(/^; fully validated/m);
    });

    for (const [what, label, type, verdict] of CASES) {
      needsKnotDelv.it(`validates with delv: ${what}`, async () => {
        expect(await delv(zone, fqdn(label, zone), type)).toMatch(verdict);
      });
    }

    needsKnot.it(`proves NXDOMAIN with the master's ${chain} records, and a referral with the proof of no DS`, async () => {
      const nx = await kdig(server, fqdn('nothere', zone), 'A', '+dnssec');
      expect(nx.status).toBe('NXDOMAIN');
      const proofs = nx.authority.filter((r) => r.type === chain);
      // As many as the master sends: one record may prove several names (knotd's salt is random).
      expect(proofs.length).toBeGreaterThanOrEqual(1);
      const master = await kdigAt(knot, fqdn('nothere', zone), 'A', '+dnssec');
      expect(proofs.map((r) => `${r.name} ${r.data}`).sort()).toEqual(master.authority.filter((r) => r.type === chain).map((r) => `${r.name} ${r.data}`).sort());
      const referral = await kdig(server, fqdn('host.sub', zone), 'A', '+dnssec');
      expect(referral.flags).not.toContain('aa');
      expect(referral.authority.map((r) => r.type)).toEqual(['NS', chain, 'RRSIG']);
      const secure = await kdig(server, fqdn('host.secure', zone), 'A', '+dnssec');
      expect(secure.authority.map((r) => r.type)).toEqual(['NS', 'DS', 'RRSIG']);
    });

    needsKnot.it('answers queries without DO as the master does, with no DNSSEC records unless asked for by type', async () => {
      for (const [label, type] of [
        ['www', 'A'],
        ['', 'MX'],
        ['alias', 'A'],
        ['anything.wild', 'A'],
        ['www', 'TXT'],
        ['nothere', 'A'],
        ['a.ent', 'A'],
        ['host.sub', 'A'],
      ] as const) {
        const ours = await kdig(server, fqdn(label, zone), type);
        const theirs = await kdigAt(knot, fqdn(label, zone), type);
        const shape = (a: typeof ours) => ({ status: a.status, answer: a.answer.map((r) => `${r.name} ${r.ttl} ${r.type} ${r.data}`), authority: a.authority.map((r) => `${r.name} ${r.type} ${r.data}`) });
        expect(shape(ours), `${label} ${type}`).toEqual(shape(theirs));
        expect([...ours.answer, ...ours.authority].filter((r) => ['RRSIG', 'NSEC', 'NSEC3'].includes(r.type))).toEqual([]);
      }
      expect((await kdig(server, fqdn('www', zone), 'RRSIG')).answer.map((r) => r.data.split(' ')[0]).sort()).toEqual(chain === 'NSEC' ? ['A', 'AAAA', 'NSEC'] : ['A', 'AAAA']);
    });

    needsKnotLdns.it('passes its copy on by AXFR as received', async () => {
      const ours = await transfer(server, SECONDARY, zone, 'AXFR');
      expect(ours.status).toBe('NOERROR');
      const theirs = await run('kdig', ['-p', '53', `@${PRIMARY}`, '+time=3', zone, 'AXFR'], { timeout: 20_000 });
      const records = (text: string) =>
        text
          .split('\n')
          .filter((l) => l.trim() !== '' && !l.startsWith(';'))
          .map((l) => {
            const [name = '', ttl, , type = '', ...rest] = l.split(/\s+/);
            return `${name.toLowerCase()} ${ttl} ${type} ${rest.join(' ')}`;
          });
      expect(new Set(records(ours.raw))).toEqual(new Set(records(theirs.stdout)));
      const file = join(dir, `${zone}.axfr`);
      // The closing SOA left out: a zone file holds one.
      writeFileSync(file, `${ours.raw.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(';')).slice(0, -1).join('\n')}\n`);
      const ldns = await run('ldns-verify-zone', [file]).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
      expect(`${ldns.stdout}${ldns.stderr}`).toMatch(/Zone is verified and complete/);
    });
  });
}

describe('a mirror of a zone signed with opt-out NSEC3 and extra iterations', () => {
  needsKnot.it('has no NSEC3 record for the insecure delegation', async () => {
    const param = await kdig(server, OPT_OUT_ZONE, 'NSEC3PARAM');
    expect(param.answer.map((r) => r.data.split(' ').slice(0, 3).join(' '))).toEqual(['1 0 3']);
    const axfr = await transfer(server, SECONDARY, OPT_OUT_ZONE, 'AXFR');
    expect(axfr.records.filter((r) => / NSEC3 1 1 3 /.test(r)).length).toBeGreaterThan(0);
  });

  // Opt-out makes some answers insecure by design (a wildcard whose next closer name falls in an opt-out
  // span, RFC 5155 9.2): delv's verdict from the mirror must be the one it gives the master, never bogus.
  const verdict = (out: string) => out.split('\n')[0] ?? '';
  for (const [what, label, type] of CASES) {
    needsKnotDelv.it(`gets delv's verdict the master gets: ${what}`, async () => {
      const ours = await delv(OPT_OUT_ZONE, fqdn(label, OPT_OUT_ZONE), type);
      expect(verdict(ours)).toBe(verdict(await delv(OPT_OUT_ZONE, fqdn(label, OPT_OUT_ZONE), type, { host: PRIMARY, port: 53 })));
      expect(verdict(ours)).toMatch(/^; (fully validated|negative response, fully validated|unsigned answer)$/);
    });
  }

  needsKnotDelv.it('proves the insecure delegation with the closest provable encloser (RFC 5155 7.2.7), as the master does', async () => {
    for (const [name, type] of [
      [`sub.${OPT_OUT_ZONE}`, 'DS'],
      [`host.sub.${OPT_OUT_ZONE}`, 'A'],
    ] as const) {
      const ours = await kdig(server, name, type, '+dnssec');
      const theirs = await kdigAt(knot, name, type, '+dnssec');
      const proof = (a: typeof ours) => a.authority.filter((r) => r.type === 'NSEC3').map((r) => `${r.name} ${r.data}`).sort();
      // One record when the apex's NSEC3 record also covers the delegation's hash (knotd's salt is random).
      expect(proof(ours).length, `${name} ${type}`).toBeGreaterThanOrEqual(1);
      expect(proof(ours), `${name} ${type}`).toEqual(proof(theirs));
    }
    expect(await delv(OPT_OUT_ZONE, `sub.${OPT_OUT_ZONE}`, 'DS')).toMatch(/^; negative response, fully validated/);
  });
});

needsKnot.it('signs nothing of its own for mirrors', async () => {
  expect(await signaturesMade()).toBe(0);
});
