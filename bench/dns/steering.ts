/**
 * What steering costs the DNS query rate (issue 32, target ≤ 10 %): one zonehost serving two zones of the same
 * names and records, one plain and one where every name's records carry subnets and weights, measured with
 * dnsperf in alternation, each round's pair from the same source ports (so the same spread over the DNS threads). Steered answers are cached per variant, the variant chosen per query for its client by
 * whichever thread answers (docs/dns.md "Steering"), so this is the price of that choice against a plain cache
 * hit. `npm run bench -- steering`.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, haveProgram, runCommand, startChild, table, tempDir, waitFor, ZONEHOST_BIN, type BenchOptions } from '../support.js';
import { dnsperf, LOADS, type PerfResult } from './index.js';

const run = promisify(execFile);
const PLAIN = 'plain.example';
const STEERED = 'steered.example';
const SEED_CONCURRENCY = 16;
/** dnsperf's first source port (below Linux's ephemeral range, so nothing else holds it). */
const SOURCE_PORTS = 21000;

/** A round's figures, with zonehost's CPU time per query answered (µs; NaN where /proc cannot say). */
type Measured = PerfResult & { cpu: number };

/** The CPU time (user + system, every thread) process `pid` has used so far, in ms; NaN without Linux's /proc. */
function cpuMs(pid: number | undefined): number {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in clock ticks (100 Hz).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** Each name's records: one for 127.0.0.0/8 (where dnsperf asks from), one for 10.0.0.0/8, one for the others; weights on two. */
const RECORDS = [
  { address: '192.0.2.1', steering: { subnets: ['127.0.0.0/8'], weight: 3 } },
  { address: '192.0.2.2', steering: { subnets: ['127.0.0.0/8'], weight: 1 } },
  { address: '192.0.2.3', steering: { subnets: ['10.0.0.0/8'] } },
  { address: '192.0.2.4', steering: { weight: 1 } },
];

async function answers(port: number, zone: string): Promise<boolean> {
  try {
    const { stdout } = await run('dig', ['-p', String(port), '@127.0.0.1', '+time=1', '+tries=1', '+short', zone, 'SOA'], { timeout: 5000 });
    return stdout.trim() !== '';
  } catch {
    return false;
  }
}

export async function steeringBenchmark(opts: BenchOptions, log: (line: string) => void): Promise<string> {
  const missing = ['dnsperf', 'dig'].filter((p) => !haveProgram(p));
  if (missing.length) return `Steering: skipped, missing ${missing.join(', ')} (Debian packages dnsperf, dnsutils)`;
  const names = opts.quick ? 100 : 1000;
  const seconds = opts.quick ? 3 : 15;
  const rounds = opts.quick ? 1 : 3;
  const dir = tempDir('zonehost-steerbench-');
  const db = `sqlite:${join(dir.path, 'bench.db')}`;
  const password = 'bench password';
  runCommand(process.execPath, [ZONEHOST_BIN, 'user', 'add', 'bench', '--db', db], `${password}\n`);
  const [http, port] = [await freePort(), await freePort()];
  const child = startChild(process.execPath, [
    ...(process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROF] : []), ZONEHOST_BIN, 'serve', '--db', db, '--http', `127.0.0.1:${http}`, '--dns', `127.0.0.1:${port}`, '--log-level', 'warn', '--rate-limit-address', '0', '--rate-limit-key', '0', '--rrl-rate', '0',
  ]);
  const runs = new Map<string, Measured[]>();
  try {
    const base = `http://127.0.0.1:${http}`;
    // A machine loaded by others may take long to start it.
    await waitFor(() => `zonehost (${child.output()})`, () => fetch(`${base}/healthz`).then((r) => r.ok, () => false), 120_000);
    const key = ((await (await fetch(`${base}/v1/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench', password }) })).json()) as { key: string }).key;
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${base}/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: number };
    };
    for (const zone of [PLAIN, STEERED]) {
      const { id } = await post('/domains', { domain: zone, soa: `hostmaster@${zone}` });
      const all = Array.from({ length: names }, (_, i) => RECORDS.map((r) => ({ name: `r${i}`, address: r.address, ...(zone === STEERED ? { steering: r.steering } : {}) }))).flat();
      log(`  seeding ${all.length} records into ${zone}`);
      for (let i = 0; i < all.length; i += SEED_CONCURRENCY) await Promise.all(all.slice(i, i + SEED_CONCURRENCY).map((r) => post(`/domains/${id}/A`, r)));
      await waitFor(`zonehost serving ${zone}`, () => answers(port, zone));
    }
    const files = new Map([PLAIN, STEERED].map((zone) => {
      const path = join(dir.path, `${zone}.txt`);
      writeFileSync(path, Array.from({ length: 20_000 }, (_, i) => `r${(i * 7919) % names}.${zone} A`).join('\n') + '\n');
      return [zone, path];
    }));
    for (const [l, load] of LOADS.entries()) {
      for (let round = 0; round < rounds; round++) {
        // The kernel hands each dnsperf socket to one of the DNS threads by a hash of its addresses
        // (SO_REUSEPORT): from the same source ports, the plain and the steered run of a round get the same
        // spread over the threads, which otherwise alone moves a round's rate by a third. Each round its own ports.
        const sourcePort = SOURCE_PORTS + 100 * (rounds * l + round);
        for (const zone of [PLAIN, STEERED]) {
          const cpuBefore = cpuMs(child.proc.pid);
          const perf = await dnsperf(port, files.get(zone) as string, seconds, load, ['-x', String(sourcePort)]);
          const used = cpuMs(child.proc.pid) - cpuBefore;
          const r = { ...perf, cpu: Number.isNaN(used) ? NaN : (used * 1000) / (perf.qps * seconds) };
          log(`  ${zone}, ${load.name}, round ${round + 1}: ${r.qps.toFixed(0)} qps, ${r.cpu.toFixed(1)} µs of zonehost CPU per query`);
          runs.set(`${zone}/${load.name}`, [...(runs.get(`${zone}/${load.name}`) ?? []), r]);
        }
      }
    }
  } finally {
    await child.stop();
    dir.remove();
  }
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const rows = LOADS.map((load) => {
    const [plain, steered] = [runs.get(`${PLAIN}/${load.name}`) ?? [], runs.get(`${STEERED}/${load.name}`) ?? []];
    // Each round's steered run against the plain one of the same round (same source ports), then the median.
    const paired = (of: (p: Measured, s: Measured) => number) => mid(plain.map((p, i) => of(p, steered[i] as Measured)));
    const cost = paired((p, s) => 1 - s.qps / p.qps);
    const cpuCost = paired((p, s) => s.cpu / p.cpu - 1);
    const medianOf = (rs: Measured[]) => rs.slice().sort((a, b) => a.qps - b.qps)[Math.floor(rs.length / 2)] as Measured;
    const [p, s] = [medianOf(plain), medianOf(steered)];
    return [load.name, p.qps.toFixed(0), p.latency, s.qps.toFixed(0), s.latency, `${(100 * cost).toFixed(1)} %`, mid(plain.map((r) => r.cpu)).toFixed(1), mid(steered.map((r) => r.cpu)).toFixed(1), Number.isNaN(cpuCost) ? 'n/a' : `${(100 * cpuCost).toFixed(1)} %`];
  });
  return [
    `Steering: dnsperf for ${seconds} s per load over UDP (${rounds} round${rounds > 1 ? 's' : ''}, plain then steered from the same source ports; cost: the median of the rounds' own) against one zonehost (default DNS threads, --rrl-rate 0) serving two zones of ${names} names with ${RECORDS.length} A records each: plain, and with subnets and weights on every record (each answer one record, chosen per query for 127.0.0.1)`,
    table(['load', 'plain qps', 'avg latency s', 'steered qps', 'avg latency s', 'cost', 'plain CPU µs/q', 'steered CPU µs/q', 'CPU cost'], rows),
    'target: cost ≤ 10 % (issue 32). CPU µs/q: zonehost\'s CPU time (all threads) per query answered, from /proc (Linux), which a machine loaded by others disturbs far less than the query rate',
  ].join('\n');
}
