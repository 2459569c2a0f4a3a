/**
 * ISC's EDNS compliance tests (DNS-Compliance-Testing's genreport, the tests behind ednscomp.isc.org): run for
 * real when the program is here (on PATH or named by GENREPORT; no Debian package brings it, so CI skips it),
 * and each of its tests as the dig command it stands for (genreport -D lists them), checked the way genreport
 * checks the answer: rcode, the flags only QUERY defines, OPT's version and flags, the options answered.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { optional, peers } from '../support/peers.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createDomain, createRecord, dig, type DigAnswer } from './support.js';

const run = promisify(execFile);
const needsDig = peers('dig');

const GENREPORT = process.env.GENREPORT ?? 'genreport';
const genreportMissing = spawnSync(GENREPORT, ['-L'], { stdio: 'ignore' }).error
  ? `genreport (ISC's DNS-Compliance-Testing) is not installed: build it from its source and put it on PATH or in GENREPORT; the dig checks here cover its tests`
  : null;

const ZONE = 'compliance.example';
const NSID = 'ns1.compliance.test';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ nsid: NSID });
  const { key } = await server.user('isc');
  const id = await createDomain(server.base, key, ZONE);
  await createRecord(server.base, key, id, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
});
afterAll(() => server.close());

describe('genreport, when installed', () => {
  optional(genreportMissing).it('passes every full, common and type test, with a cookie and our NSID where asked for', async () => {
    const port = String(server.dnsAddress?.port);
    const report = async (...flags: string[]) => {
      const child = run(GENREPORT, ['-P', port, ...flags], { timeout: 60_000 });
      child.child.stdin?.end(`${ZONE} ns1.zonehost.test 127.0.0.1\n`);
      const { stdout } = await child;
      return Object.fromEntries([...stdout.matchAll(/ ([\w@-]+)=(\S+)/g)].map((m) => [m[1] as string, m[2] as string]));
    };
    const full = await report('-f', '-c');
    const types = await report('-t');
    expect(Object.keys(full).length).toBeGreaterThan(30);
    expect(Object.keys(types).length).toBeGreaterThan(60);
    expect(Object.entries({ ...full, ...types }).filter(([, r]) => r !== 'ok' && !r.startsWith('ok,'))).toEqual([]);
    expect([full.ednscookie, full.ednsnsid, full.optlist, full.bind11]).toEqual(['ok,cookie', 'ok,nsid', 'ok,nsid,cookie', 'ok,cookie']);
  }, 120_000);
});

/** The answer's EDNS version, flags and MBZ bits as dig prints them (`; EDNS: version: 0, flags: do; udp: 1232`). */
const edns = (a: DigAnswer) => a.edns?.replace(/^; EDNS: /, '').replace(/; udp: \d+$/, '') ?? null;

/** Each genreport test: its dig command (without the server and zone) and what genreport accepts. */
const TESTS: [name: string, args: string[], check: (a: DigAnswer) => void][] = [
  ['dns', ['+noedns', '+noad', '+norec', 'SOA'], (a) => expect([a.status, a.flags, a.edns]).toEqual(['NOERROR', ['qr', 'aa'], null])],
  ['aa', ['+noedns', '+noad', '+norec', '+aaflag', 'SOA'], (a) => expect([a.status, a.flags]).toEqual(['NOERROR', ['qr', 'aa']])],
  ['ad', ['+noedns', '+adflag', '+norec', 'SOA'], (a) => expect([a.status, a.flags]).toEqual(['NOERROR', ['qr', 'aa']])],
  ['cd', ['+noedns', '+noad', '+norec', '+cdflag', 'SOA'], (a) => expect([a.status, a.flags]).toEqual(['NOERROR', ['qr', 'aa', 'cd']])],
  ['ra', ['+noedns', '+noad', '+norec', '+raflag', 'SOA'], (a) => expect([a.status, a.flags]).toEqual(['NOERROR', ['qr', 'aa']])],
  ['rd', ['+noedns', '+noad', '+rec', 'SOA'], (a) => expect([a.status, a.flags]).toEqual(['NOERROR', ['qr', 'aa', 'rd']])],
  ['tc', ['+noedns', '+noad', '+norec', '+tcflag', 'SOA'], (a) => expect([a.status, a.flags]).toEqual(['NOERROR', ['qr', 'aa']])],
  ['zflag', ['+noedns', '+noad', '+norec', '+zflag', 'SOA'], (a) => expect([a.status, a.flags, /MBZ/.test(a.raw)]).toEqual(['NOERROR', ['qr', 'aa'], false])],
  ['opcode', ['+noedns', '+noad', '+norec', '+header-only', '+opcode=15'], (a) => expect([a.status, a.flags, /QUERY: 0, ANSWER: 0, AUTHORITY: 0, ADDITIONAL: 0/.test(a.raw)]).toEqual(['NOTIMP', ['qr'], true])],
  ['opcodeflg', ['+noedns', '+header-only', '+opcode=15', '+tcflag', '+rec', '+raflag', '+cdflag', '+adflag', '+aaflag', '+zflag'], (a) => expect([a.status, a.flags]).toEqual(['NOTIMP', ['qr']])],
  ['type666', ['+noedns', '+noad', '+norec', 'TYPE666'], (a) => expect([a.status, a.flags, a.answer]).toEqual(['NOERROR', ['qr', 'aa'], []])],
  ['tcp', ['+noedns', '+noad', '+norec', '+tcp', 'SOA'], (a) => expect([a.status, a.answer.length]).toEqual(['NOERROR', 1])],
  ['edns', ['+edns=0', '+nocookie', '+noad', '+norec', 'SOA'], (a) => expect([a.status, edns(a)]).toEqual(['NOERROR', 'version: 0, flags:'])],
  ['edns1', ['+edns=1', '+noednsneg', '+nocookie', '+noad', '+norec', 'SOA'], (a) => expect([a.status, edns(a), a.answer]).toEqual(['BADVERS', 'version: 0, flags:', []])],
  ['edns@512', ['+edns=0', '+nocookie', '+noad', '+norec', '+dnssec', '+ignore', '+bufsize=512', 'DNSKEY'], (a) => expect([a.status, /MSG SIZE {2}rcvd: (\d+)/.exec(a.raw)?.[1] !== undefined && Number(/MSG SIZE {2}rcvd: (\d+)/.exec(a.raw)?.[1]) <= 512]).toEqual(['NOERROR', true])],
  ['ednsopt', ['+edns=0', '+nocookie', '+noad', '+norec', '+ednsopt=100', 'SOA'], (a) => expect([a.status, /OPT=100/.test(a.raw)]).toEqual(['NOERROR', false])],
  ['edns1opt', ['+edns=1', '+noednsneg', '+nocookie', '+noad', '+norec', '+ednsopt=100', 'SOA'], (a) => expect([a.status, edns(a), /OPT=100/.test(a.raw)]).toEqual(['BADVERS', 'version: 0, flags:', false])],
  ['do', ['+edns=0', '+nocookie', '+noad', '+norec', '+dnssec', 'SOA'], (a) => expect([a.status, edns(a)]).toEqual(['NOERROR', 'version: 0, flags: do'])],
  ['edns1do', ['+edns=1', '+noednsneg', '+nocookie', '+noad', '+norec', '+dnssec', 'SOA'], (a) => expect([a.status, edns(a)]).toEqual(['BADVERS', 'version: 0, flags: do'])],
  ['ednsflags', ['+edns=0', '+nocookie', '+noad', '+norec', '+ednsflags=0x0080', 'SOA'], (a) => expect([a.status, edns(a)]).toEqual(['NOERROR', 'version: 0, flags:'])],
  ['optlist', ['+edns=0', '+noad', '+norec', '+nsid', '+subnet=0.0.0.0/0', '+expire', '+cookie=0102030405060708', 'SOA'], (a) => {
    expect(a.status).toBe('NOERROR');
    expect(a.raw).toContain(`("${NSID}")`);
    expect(a.raw).toMatch(/; COOKIE: 0102030405060708[0-9a-f]{32} \(good\)/);
  }],
  ['ednsnsid', ['+edns=0', '+nocookie', '+noad', '+norec', '+nsid', 'SOA'], (a) => expect([a.status, a.raw.includes(`("${NSID}")`)]).toEqual(['NOERROR', true])],
  ['ednscookie', ['+edns=0', '+noad', '+norec', '+cookie=0102030405060708', 'SOA'], (a) => expect([a.status, /; COOKIE: 0102030405060708[0-9a-f]{32} \(good\)/.test(a.raw)]).toEqual(['NOERROR', true])],
  ['ednsexpire', ['+edns=0', '+nocookie', '+noad', '+norec', '+expire', 'SOA'], (a) => expect(a.status).toBe('NOERROR')],
  ['ednssubnet', ['+edns=0', '+nocookie', '+noad', '+norec', '+subnet=0.0.0.0/0', 'SOA'], (a) => expect(a.status).toBe('NOERROR')],
  ['edns1nsid', ['+edns=1', '+noednsneg', '+nocookie', '+noad', '+norec', '+nsid', 'SOA'], (a) => expect(a.status).toBe('BADVERS')],
  ['edns1cookie', ['+edns=1', '+noednsneg', '+noad', '+norec', '+cookie=0102030405060708', 'SOA'], (a) => expect([a.status, /; COOKIE: 0102030405060708[0-9a-f]{32}/.test(a.raw)]).toEqual(['BADVERS', true])],
  ['edns1expire', ['+edns=1', '+noednsneg', '+nocookie', '+noad', '+norec', '+expire', 'SOA'], (a) => expect(a.status).toBe('BADVERS')],
  ['edns1subnet', ['+edns=1', '+noednsneg', '+nocookie', '+noad', '+norec', '+subnet=0.0.0.0/0', 'SOA'], (a) => expect(a.status).toBe('BADVERS')],
  ['ednstcp', ['+edns=0', '+nocookie', '+noad', '+norec', '+dnssec', '+bufsize=512', '+tcp', 'DNSKEY'], (a) => expect([a.status, edns(a)]).toEqual(['NOERROR', 'version: 0, flags: do'])],
  ['bind11', ['+edns=0', '+cookie=0102030405060708', '+noad', '+norec', '+dnssec', 'SOA'], (a) => expect([a.status, /; COOKIE: 0102030405060708[0-9a-f]{32} \(good\)/.test(a.raw)]).toEqual(['NOERROR', true])],
  ['dig11', ['+edns=0', '+cookie=0102030405060708', '+adflag', '+rec', 'SOA'], (a) => expect([a.status, a.flags, /; COOKIE: 0102030405060708/.test(a.raw)]).toEqual(['NOERROR', ['qr', 'aa', 'rd'], true])],
];

describe("genreport's tests as dig commands", () => {
  for (const [name, args, check] of TESTS) {
    needsDig.it(`${name}: dig ${args.join(' ')}`, async () => {
      // genreport asks the zone's apex; +header-only sends no question.
      check(await dig(server, ...args, ...(args.includes('+header-only') ? [] : [ZONE]), '+nobadcookie'));
    });
  }
});
