/**
 * DNSSEC online signing (issue 17): zonehost (`zonehost serve`, the built CLI, signing turned on through
 * interface B with ECDSAP256SHA256, NSEC3 with RFC 9276's parameters) against knotd signing the same zone
 * (automatic signing, a CSK of the same algorithm, NSEC3 with 0 iterations, no salt, no opt-out), in the
 * same run:
 *
 * - signed query rate: dnsperf with DO over a mix of existing names, NXDOMAIN, NODATA, wildcard expansions
 *   and referrals, in alternating rounds;
 * - the first answer that needs a fresh signature, after each of N record changes through interface B (after
 *   unmeasured ones that let V8 finish optimizing the write path), client side (on a thread of its own), one
 *   query at a time, beside knotd's first answer after each of N changes by UPDATE; and
 *   SignatureCache.sign in this process, ECDSA and Ed25519;
 * - signing a 100,000-record zone: zonehost's first signed AXFR after turning signing on, knotd's signing
 *   on load and `knotc -b zone-sign`.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { addUser, apiKey, percentile, serve, v1, type Zonehost } from '../propagation/zonehost.js';
import { freePort, haveProgram, startKnotd, table, tempDir, type BenchOptions, type Child } from '../support.js';
import { DoClient, ThreadedDoClient, shape, type Answer } from './probe.js';
import { signCost } from './sign-cost.js';
import { MIX, loadZone, queryFile, sampleQuery, zoneRecords, type QueryKind } from './zone.js';
import { dnsperf, LOADS, type Load, type PerfResult } from '../dns/index.js';
import { UpdateClient } from '../update/client.js';
import { tsigSecret } from '../../src/dns/wire/tsig.js';

const run = promisify(execFile);

const ZONE = 'signed.example';
const BIG = 'big.example';
const ALGORITHM = 'ECDSAP256SHA256';

/** The key knotd takes record changes with (the fresh-signature reference rows). */
const UPDATE_KEY = { name: 'bench-update.key', algorithm: 'hmac-sha256' as const, secret: randomBytes(32).toString('base64') };

const KNOT_POLICY = `key:
  - id: ${UPDATE_KEY.name}
    algorithm: ${UPDATE_KEY.algorithm}
    secret: ${UPDATE_KEY.secret}
policy:
  - id: bench
    algorithm: ecdsap256sha256
    single-type-signing: on
    nsec3: on
    nsec3-iterations: 0
    nsec3-salt-length: 0
    nsec3-opt-out: off
acl:
  - id: transfer
    address: 127.0.0.1
    action: transfer
  - id: update
    key: ${UPDATE_KEY.name}
    action: update
`;

/** dnsperf with the DO bit: every query asks for signatures. */
const signedPerf = (port: number, queries: string, seconds: number, load: Load) => dnsperf(port, queries, seconds, load, ['-D']);

/**
 * A zone as `port` transfers it: its records as master-file lines (one SOA) and the count of each type. One try:
 * dig's retry after a connection closed would otherwise be timed as part of the first transfer.
 */
async function axfr(port: number, zone: string): Promise<{ text: string; types: Map<string, number>; ms: number }> {
  const t = performance.now();
  const { stdout } = await run('dig', ['-p', String(port), '@127.0.0.1', '+onesoa', '+noall', '+answer', '+time=60', '+tries=1', zone, 'AXFR'], { timeout: 600_000, maxBuffer: 1024 * 1024 * 1024 });
  const ms = performance.now() - t;
  const lines = stdout.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(';'));
  if (lines.length < 2 || !/\sSOA\s/.test(lines[0] ?? '')) throw new Error(`AXFR of ${zone} from port ${port} failed:\n${stdout.slice(0, 2000)}`);
  const types = new Map<string, number>();
  for (const l of lines) {
    const type = l.split(/\s+/)[3] ?? '?';
    types.set(type, (types.get(type) ?? 0) + 1);
  }
  return { text: lines.join('\n') + '\n', types, ms };
}

/** Polls until `name` SOA is answered with an RRSIG (signed); resolves with performance.now() of that answer. */
async function signedAnswer(port: number, name: string, child: Child | null, timeoutMs = 600_000): Promise<number> {
  const client = await DoClient.open(port);
  const deadline = performance.now() + timeoutMs;
  try {
    while (performance.now() < deadline) {
      if (child && child.proc.exitCode !== null) throw new Error(`knotd exited: ${child.output()}`);
      const a = await client.query(name, 'SOA', { timeoutMs: 200 });
      if (a?.answer.includes('RRSIG')) return performance.now();
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`${name} not signed on port ${port} in time${child ? `: ${child.output()}` : ''}`);
  } finally {
    client.close();
  }
}

/** knotd signing `zones` (given as master files) with the policy, its KASP db and state in `dir`. */
async function startKnotSigner(dir: string, zones: Record<string, string>): Promise<{ child: Child; port: number; conf: string }> {
  const port = await freePort();
  for (const [zone, text] of Object.entries(zones)) writeFileSync(join(dir, `${zone}.zone`), text);
  const child = startKnotd(
    dir,
    `127.0.0.1@${port}`,
    `${KNOT_POLICY}template:
  - id: default
    storage: "${dir}"
    zonefile-sync: -1
    journal-content: none
zone:
${Object.keys(zones).map((z) => `  - domain: ${z}\n    file: "${z}.zone"\n    dnssec-signing: on\n    dnssec-policy: bench\n    acl: [transfer, update]\n`).join('')}`,
  );
  return { child, port, conf: join(dir, 'knot.conf') };
}

/** What each kind of query is answered with, checked: the signatures and proofs each must carry. */
const EXPECTED: Record<QueryKind, (a: Answer) => boolean> = {
  existing: (a) => a.rcode === 'NOERROR' && a.answer.length >= 2 && a.answer.includes('RRSIG'),
  NXDOMAIN: (a) => a.rcode === 'NXDOMAIN' && a.authority.filter((t) => t === 'NSEC3').length >= 2 && a.authority.includes('RRSIG'),
  NODATA: (a) => a.rcode === 'NOERROR' && a.answer.length === 0 && a.authority.includes('NSEC3') && a.authority.includes('RRSIG'),
  wildcard: (a) => a.rcode === 'NOERROR' && a.answer.includes('RRSIG') && a.authority.includes('NSEC3'),
  referral: (a) => a.rcode === 'NOERROR' && a.authority.includes('NS') && a.authority.includes('NSEC3'),
};

async function shapes(ports: { zonehost: number; knot: number }, names: number): Promise<{ rows: string[][]; wrong: string[] }> {
  const clients = { zonehost: await DoClient.open(ports.zonehost), knot: await DoClient.open(ports.knot) };
  const rows: string[][] = [];
  const wrong: string[] = [];
  try {
    for (const { kind } of MIX) {
      const [name, type] = sampleQuery(ZONE, names, kind, 3);
      const [ours, theirs] = [await clients.zonehost.query(name, type), await clients.knot.query(name, type)];
      rows.push([kind, `${name} ${type}`, shape(ours), shape(theirs)]);
      if (!ours || !EXPECTED[kind](ours)) wrong.push(`zonehost ${kind} (${name} ${type}): ${shape(ours)}`);
      if (!theirs || !EXPECTED[kind](theirs)) wrong.push(`knotd ${kind} (${name} ${type}): ${shape(theirs)}`);
    }
  } finally {
    clients.zonehost.close();
    clients.knot.close();
  }
  return { rows, wrong };
}

interface Fresh {
  mode: string;
  samples: number[];
  errors: number;
}

/**
 * `n` changes through interface B per mode, taking turns: each adds an A record at a name of its own
 * (h<k>, k = 7i + `first` modulo `names`: passes with another `first` never share a name), so the A RRset
 * there is new and needs a new RRSIG, then times one DO query for it.
 */
async function freshSignatures(zh: Zonehost, key: string, id: number, names: number, n: number, first: number, log: (line: string) => void): Promise<Fresh[]> {
  const client = await ThreadedDoClient.open(zh.dnsPort);
  const modes: Fresh[] = [
    { mode: 'DO query at once after the write (new zone version + fresh RRSIG)', samples: [], errors: 0 },
    { mode: 'query without DO at once after the write (new zone version, no signing)', samples: [], errors: 0 },
    { mode: 'DO query once the new zone version is in (fresh RRSIG only)', samples: [], errors: 0 },
    { mode: 'the same DO query again (cached answer)', samples: [], errors: 0 },
  ];
  try {
    for (let i = 0; i < n * 3; i++) {
      const k = (i * 7 + first) % names;
      const name = `h${k}.${ZONE}`;
      await v1(zh.url, key, 'POST', `/domains/${id}/A`, { name: `h${k}`, address: `198.51.100.${(i % 250) + 1}` });
      const mode = i % 3;
      if (mode === 2) {
        // A plain query for another name waits for the zone's new version and signs nothing.
        const ready = await client.query(ZONE, 'SOA', { dnssec: false });
        if (!ready) throw new Error('no answer to SOA after a change');
      }
      const dnssec = mode !== 1;
      const a = await client.query(name, 'A', { dnssec });
      const ok = a && a.rcode === 'NOERROR' && a.answer.filter((t) => t === 'A').length >= 2 && a.answer.includes('RRSIG') === dnssec;
      if (!ok) modes[mode]!.errors++;
      else modes[mode]!.samples.push(a.ms);
      if (mode === 2) {
        const again = await client.query(name, 'A');
        if (again?.answer.includes('RRSIG')) modes[3]!.samples.push(again.ms);
        else modes[3]!.errors++;
      }
      if ((i + 1) % 500 === 0) log(`    ${i + 1} changes`);
    }
  } finally {
    await client.close();
  }
  return modes;
}

/**
 * The same pattern against knotd, the reference: each change by a TSIG-signed DNS UPDATE (knotd signs the
 * changed RRset as it applies the update, before it answers), then, as in zonehost's third and fourth rows,
 * a query without DO for the SOA, one DO query for the name and the same again. Its answers need no signing
 * once the update is answered, so its figures are what this machine adds to any answer: the floor.
 */
async function freshSignaturesKnot(port: number, names: number, n: number): Promise<Fresh[]> {
  const client = await ThreadedDoClient.open(port);
  const updates = await UpdateClient.open('127.0.0.1', port, tsigSecret(UPDATE_KEY), 5000);
  const modes: Fresh[] = [
    { mode: 'knotd: DO query once the update is answered (signed as knotd applied it)', samples: [], errors: 0 },
    { mode: 'knotd: the same DO query again', samples: [], errors: 0 },
  ];
  try {
    for (let i = 0; i < n; i++) {
      const k = (i * 7 + 2) % names;
      const name = `h${k}.${ZONE}`;
      const o = await updates.send(ZONE, [{ op: 'add', name, type: 'A', data: `203.0.113.${(i % 250) + 1}` }]);
      if (o.rcode !== 0 || o.badSignature) throw new Error(`knotd answered an UPDATE with rcode ${o.rcode}${o.badSignature ? ', badly signed' : ''}`);
      if (!(await client.query(ZONE, 'SOA', { dnssec: false }))) throw new Error('knotd: no answer to SOA after a change');
      for (const mode of modes) {
        const a = await client.query(name, 'A');
        if (a && a.rcode === 'NOERROR' && a.answer.filter((t) => t === 'A').length >= 2 && a.answer.includes('RRSIG')) mode.samples.push(a.ms);
        else mode.errors++;
      }
    }
  } finally {
    await client.close();
    updates.close();
  }
  return modes;
}

const fmt = (ms: number) => ms.toFixed(3);
const secs = (ms: number) => (ms / 1000).toFixed(2);

export async function dnssecBenchmark(opts: BenchOptions, log: (line: string) => void): Promise<string> {
  const missing = ['dnsperf', 'knotd', 'knotc', 'dig'].filter((p) => !haveProgram(p));
  if (missing.length) return `DNSSEC: skipped, missing ${missing.join(', ')} (Debian packages dnsperf, knot, dnsutils)`;
  const names = opts.quick ? 1000 : 10_000;
  const bigRecords = opts.quick ? 10_000 : 100_000;
  const seconds = opts.quick ? 3 : 15;
  const rounds = opts.quick ? 1 : 3;
  const changes = opts.quick ? 20 : 500;
  // Unmeasured changes first, as for a server that has been running: V8 is still optimizing the write path's
  // functions during the first thousands of writes, on background threads that take a core from answering.
  const warmChanges = opts.quick ? 10 : 1000;
  const out: string[] = [];
  const dir = tempDir('zonehost-dnssecbench-');
  const knotDir = tempDir('zonehost-dnssecbench-knot-');
  const bigKnotDir = tempDir('zonehost-dnssecbench-knotbig-');
  const stops: (() => Promise<void>)[] = [];
  try {
    // In this process, before any server runs.
    log('  SignatureCache.sign in process');
    const costs = signCost(opts.quick ? 500 : 5000);

    const db = `sqlite:${join(dir.path, 'dnssec.db')}`;
    addUser(db);
    const small = zoneRecords(ZONE, Math.round(names * 1.85) + 6);
    const big = zoneRecords(BIG, bigRecords);
    log(`  loading ${ZONE} (${small.records.length} records, ${small.names} names) and ${BIG} (${big.records.length} records) through the store`);
    const smallId = await loadZone(db, ZONE, small.records);
    const bigId = await loadZone(db, BIG, big.records);
    const zh = await serve(db);
    stops.push(zh.stop);
    const key = await apiKey(zh.url);
    // Both zones as zonehost serves them unsigned: knotd signs exactly these.
    const smallFile = (await axfr(zh.dnsPort, ZONE)).text;
    const bigUnsigned = await axfr(zh.dnsPort, BIG);

    // 1. Signed query rate.
    await v1(zh.url, key, 'PUT', `/domains/${smallId}/dnssec`, { enabled: true, algorithm: ALGORITHM });
    await signedAnswer(zh.dnsPort, ZONE, null);
    const knot = await startKnotSigner(knotDir.path, { [ZONE]: smallFile });
    stops.push(() => knot.child.stop());
    await signedAnswer(knot.port, ZONE, knot.child, 120_000);
    const { rows: shapeRows, wrong } = await shapes({ zonehost: zh.dnsPort, knot: knot.port }, small.names);
    if (wrong.length) throw new Error(`answers without the signatures or proofs they need:\n${wrong.join('\n')}`);
    const queries = queryFile(dir.path, ZONE, small.names, 20_000);
    const servers = [
      { name: 'zonehost', port: zh.dnsPort },
      { name: 'knotd', port: knot.port },
    ];
    // The warm-up asks every query of the file at least once (zonehost signs on demand, knotd in advance).
    for (const s of servers) await signedPerf(s.port, queries, opts.quick ? 1 : 3, LOADS[0]);
    const runs = new Map<string, PerfResult[]>();
    for (const load of LOADS) {
      for (let round = 0; round < rounds; round++) {
        for (const s of servers) {
          const r = await signedPerf(s.port, queries, seconds, load);
          log(`  ${s.name}, ${load.name}, round ${round + 1}: ${r.qps.toFixed(0)} qps (lost ${r.lost})`);
          runs.set(`${s.name}/${load.name}`, [...(runs.get(`${s.name}/${load.name}`) ?? []), r]);
        }
      }
    }
    const median = (rs: PerfResult[] | undefined) => (rs?.length ? ([...rs].sort((a, b) => a.qps - b.qps)[Math.floor(rs.length / 2)] as PerfResult) : undefined);
    const qpsRows = LOADS.map((load) => {
      const [ours, theirs] = [median(runs.get(`zonehost/${load.name}`)), median(runs.get(`knotd/${load.name}`))];
      const all = (s: string) => (runs.get(`${s}/${load.name}`) ?? []).map((r) => r.qps.toFixed(0)).join(', ');
      const cells = (r: PerfResult | undefined) => (r ? [r.qps.toFixed(0), r.lost, r.latency] : ['-', '-', '-']);
      return [load.name, ...cells(ours), ...cells(theirs), ours && theirs ? (ours.qps / theirs.qps).toFixed(2) : '-', `${all('zonehost')} / ${all('knotd')}`];
    });
    out.push(
      `DNSSEC, signed query rate: dnsperf -D (DO) for ${seconds} s per load over UDP (median of ${rounds} alternating round${rounds > 1 ? 's' : ''}, after a warm-up pass), ${ZONE}: ${small.records.length} records at ${small.names} names (A, AAAA, TXT, MX), a wildcard, a delegation; ${ALGORITHM}, NSEC3 (SHA-1, 0 iterations, no salt, no opt-out); knotd signs the zone exported from ours by AXFR (automatic signing, CSK, same NSEC3 parameters, default workers)`,
      `query mix: ${MIX.map((m) => `${m.kind} ${(m.share * 5).toFixed(0)} %`).join(', ')}`,
      table(['load', 'zonehost qps', 'lost', 'avg latency s', 'knotd qps', 'lost', 'avg latency s', 'zonehost/knotd', 'rounds zonehost / knotd'], qpsRows),
      'target: zonehost/knotd ≥ 1 (issue 28: at least knotd\'s rate, with 1 client and with 4)',
      '',
      'answers (one of each kind, rcode answer | authority):',
      table(['kind', 'query', 'zonehost', 'knotd'], shapeRows),
      '',
    );

    // 2. Fresh signatures.
    log(`  ${warmChanges * 3} changes through interface B to warm up, then ${changes * 3}, the first answer after each`);
    const warm = (await freshSignatures(zh, key, smallId, small.names, warmChanges, 3, log))[2]!;
    const fresh = await freshSignatures(zh, key, smallId, small.names, changes, 1, log);
    fresh.push({ ...warm, mode: `the third row during the ${warmChanges * 3} changes before (warming up, not the measure)` });
    log(`  ${changes} changes to knotd's copy by UPDATE, the first answer after each`);
    fresh.push(...(await freshSignaturesKnot(knot.port, small.names, changes)));
    await knot.child.stop();
    out.push(
      `DNSSEC, first answer needing a fresh signature: ${changes} changes per row through interface B (POST /v1/domains/{id}/A: one more A record at a name, so its A RRset needs a new RRSIG), then one query over UDP for that name, timed in the client on a thread of its own (ms); ${ZONE} as above. ` +
        `knotd's rows: ${changes} changes to its signed copy by TSIG-signed UPDATE, which knotd signs before it answers, then the same queries as zonehost's third and fourth rows (the machine's floor for one query)`,
      table(['after a change', 'p50 ms', 'p99 ms', 'max ms', 'errors'], fresh.map((f) => [f.mode, fmt(percentile(f.samples, 50)), fmt(percentile(f.samples, 99)), fmt(Math.max(...f.samples)), String(f.errors)])),
      'target: fresh-signature p99 < 2 ms',
      '',
      `SignatureCache.sign in this process (node:perf_hooks, ${opts.quick ? 500 : 5000} calls each, one A record per RRset; ms):`,
      table(
        ['algorithm', 'new RRset p50 / p99 / mean', 'node:crypto sign alone p50 / p99 / mean', 'cached RRset p50 / p99 / mean'],
        costs.map((c) => [c.algorithm, ...[c.miss, c.crypto, c.hit].map((s) => `${fmt(s.p50)} / ${fmt(s.p99)} / ${fmt(s.mean)}`)]),
      ),
      '',
    );
    if (fresh.some((f) => f.errors)) process.exitCode = 1;

    // 3. Signing a 100,000-record zone. A failure here (the transfer cut off) leaves the figures above standing.
    try {
      log(`  ${BIG}: zonehost signing on, AXFR`);
      let t = performance.now();
      await v1(zh.url, key, 'PUT', `/domains/${bigId}/dnssec`, { enabled: true, algorithm: ALGORITHM });
      const putMs = performance.now() - t;
      const first = await axfr(zh.dnsPort, BIG);
      const totalMs = performance.now() - t;
      const second = await axfr(zh.dnsPort, BIG);
      await zh.stop();
      log(`  ${BIG}: knotd signing on load, then knotc -b zone-sign`);
      t = performance.now();
      const bigKnot = await startKnotSigner(bigKnotDir.path, { [BIG]: bigUnsigned.text });
      stops.push(() => bigKnot.child.stop());
      const loadedAt = await signedAnswer(bigKnot.port, BIG, bigKnot.child);
      const knotLoadMs = loadedAt - t;
      t = performance.now();
      await run('knotc', ['-c', bigKnot.conf, '-b', '-t', '3600', 'zone-sign', BIG], { timeout: 3_600_000 });
      const resignMs = performance.now() - t;
      const knotAxfr = await axfr(bigKnot.port, BIG);
      await bigKnot.child.stop();
      const count = (m: Map<string, number>, type: string) => String(m.get(type) ?? 0);
      const total = (m: Map<string, number>) => String([...m.values()].reduce((a, b) => a + b, 0));
      out.push(
        `DNSSEC, signing a ${big.records.length.toLocaleString('en')}-record zone (${BIG}, ${bigUnsigned.types.size} types, ${total(bigUnsigned.types)} records with the SOA and apex NS), ${ALGORITHM}, NSEC3; seconds (zonehost signs in its one thread, knotd with its default signing-threads: 1)`,
        table(
          ['server', 'what', 's', 'records / RRSIG / NSEC3 transferred'],
          [
            ['zonehost', 'PUT …/dnssec {"enabled": true} answered', secs(putMs), ''],
            ['zonehost', 'then the first AXFR (dig), every RRset and the NSEC3 chain signed', secs(first.ms), `${total(first.types)} / ${count(first.types, 'RRSIG')} / ${count(first.types, 'NSEC3')}`],
            ['zonehost', 'PUT to the end of the first signed AXFR', secs(totalMs), ''],
            ['zonehost', 'a second AXFR (signatures cached)', secs(second.ms), ''],
            ['zonehost', 'the unsigned AXFR (before signing on)', secs(bigUnsigned.ms), `${total(bigUnsigned.types)} / 0 / 0`],
            ['knotd', 'start to the first signed answer (load, keys, sign)', secs(knotLoadMs), ''],
            ['knotd', 'knotc -b zone-sign (full re-sign)', secs(resignMs), `${total(knotAxfr.types)} / ${count(knotAxfr.types, 'RRSIG')} / ${count(knotAxfr.types, 'NSEC3')}`],
          ],
        ),
        `zonehost (first AXFR) / knotd (zone-sign): ${(first.ms / resignMs).toFixed(2)}`,
      );
    } catch (e) {
      out.push(`DNSSEC, signing a ${big.records.length.toLocaleString('en')}-record zone: failed: ${(e as Error).message.split('\n').slice(0, 3).join(' ')}`);
      process.exitCode = 1;
    }
    return out.join('\n');
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    dir.remove();
    knotDir.remove();
    bigKnotDir.remove();
  }
}
