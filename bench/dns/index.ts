/**
 * DNS query throughput (issue 4): dnsperf against our server and against knotd serving the same zone,
 * exported from ours by AXFR, in the same run on the same machine. Prints both rates and their ratio, and
 * beside them two floors: Node.js processes that send every query straight back, doing no DNS work, one
 * thread each: through dgram, one system call per packet (udp-floor.mjs: what one thread got before issue 28),
 * and through the native module's batches (udp-floor-batched.mjs: the most one thread answers on zonehost's
 * path now).
 *
 * zonehost runs as a user runs it, with its defaults for DNS (--dns-threads one per core, --udp-batch 64), as
 * knotd runs with its default workers, except one: dnsperf asks from one address far faster than any client
 * would, so response rate limiting is off (--rrl-rate 0); a second zonehost on the same database counts every
 * answer without limiting any (--rrl-rate 1000000), which is what RRL costs. The other flags lift only the HTTP
 * rate limits and the record limit, which the seeding through interface A would hit. Then the same over DNS
 * over TLS (issue 29): zonehost's --dot against dnsdist terminating TLS in front of the same knotd, the set-up
 * an operator would otherwise build.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DEFAULT_UDP_BATCH, RECV_BUFFER_BYTES } from '../../src/dns/server/udp.js';
import { cpuCost } from './cpu-cost.js';
import { resolver } from '../propagation/zonehost.js';
import { freePort, haveProgram, ROOT, runCommand, spawnKnot, startChild, table, tempDir, waitFor, ZONEHOST_BIN, type BenchOptions, type Child } from '../support.js';

/** The DoT port's certificate and key, made for the run (dnsperf does not check it). */
interface Certificate {
  cert: string;
  key: string;
}

const run = promisify(execFile);

const ZONE = 'bench.example';
const SEED_CONCURRENCY = 16;

interface Server {
  name: string;
  port: number;
  /** The process answering (for its CPU time), where it is ours. */
  pid?: number;
  stop(): Promise<void>;
}

export interface PerfResult {
  qps: number;
  lost: string;
  latency: string;
}

/** Answers over UDP yet? (dig exits 0 with an answer; never spawnSync while our own children serve.) */
async function answers(port: number): Promise<boolean> {
  try {
    const { stdout } = await run('dig', ['-p', String(port), '@127.0.0.1', '+time=1', '+tries=1', '+short', ZONE, 'SOA'], { timeout: 5000 });
    return stdout.trim() !== '';
  } catch {
    return false;
  }
}

/** Starts zonehost on SQLite and fills one zone through interface A. */
async function startZonehost(dir: string, records: number, log: (line: string) => void): Promise<Server & { db: string }> {
  const db = `sqlite:${join(dir, 'bench.db')}`;
  const password = 'bench password';
  runCommand(process.execPath, [ZONEHOST_BIN, 'user', 'add', 'bench', '--db', db], `${password}\n`);
  const [http, port] = [await freePort(), await freePort()];
  const child: Child = startChild(process.execPath, [
    ...(process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROF] : []), ZONEHOST_BIN, 'serve', '--db', db, '--http', `127.0.0.1:${http}`, '--dns', `127.0.0.1:${port}`, '--log-level', 'warn',
    '--rate-limit-address', '0', '--rate-limit-key', '0', '--max-records', '100000000', '--rrl-rate', '0',
  ]);
  const url = `http://127.0.0.1:${http}/api/`;
  try {
    await waitFor(() => `zonehost (${child.output()})`, () => answersHttp(`http://127.0.0.1:${http}/healthz`));
    const v3 = async (args: Record<string, string | number>): Promise<any> => {
      const res = await fetch(url, { method: 'POST', body: new URLSearchParams(Object.entries(args).map(([k, v]): [string, string] => [k, String(v)])) });
      const envelope = (await res.json()) as { ERRORARRAY: { ERRORMESSAGE: string }[]; DATA: any };
      if (envelope.ERRORARRAY.length) throw new Error(`${args.api_action}: ${envelope.ERRORARRAY[0]?.ERRORMESSAGE}`);
      return envelope.DATA;
    };
    const key = (await v3({ api_action: 'user.getapikey', username: 'bench', password })).API_KEY as string;
    const id = (await v3({ api_action: 'domain.create', api_key: key, Domain: ZONE, Type: 'master', SOA_Email: `hostmaster@${ZONE}`, axfr_ips: '127.0.0.1' })).DomainID as number;
    const fixed: Record<string, string | number>[] = [
      { Type: 'MX', Name: '', Target: `mail.${ZONE}`, Priority: 10 },
      { Type: 'A', Name: 'mail', Target: '192.0.2.25' },
      { Type: 'TXT', Name: 'txt', Target: 'v=spf1 -all' },
      { Type: 'CNAME', Name: 'www', Target: `r0.${ZONE}` },
      { Type: 'A', Name: '*.wild', Target: '192.0.2.99' },
    ];
    const all = [...fixed, ...Array.from({ length: records }, (_, i) => ({ Type: 'A', Name: `r${i}`, Target: `192.0.2.${i % 250}` }))];
    log(`  seeding ${all.length} records through interface A`);
    for (let i = 0; i < all.length; i += SEED_CONCURRENCY) {
      await Promise.all(all.slice(i, i + SEED_CONCURRENCY).map((r) => v3({ api_action: 'domain.resource.create', api_key: key, DomainID: id, ...r })));
    }
    await waitFor('zonehost DNS', () => answers(port));
  } catch (e) {
    await child.stop();
    throw e;
  }
  return { name: 'zonehost', port, pid: child.proc.pid, db, stop: () => child.stop() };
}

/** Answers over TLS yet? */
async function answersTls(port: number): Promise<boolean> {
  try {
    const { stdout } = await run('dig', ['-p', String(port), '@127.0.0.1', '+tls', '+time=1', '+tries=1', '+short', ZONE, 'SOA'], { timeout: 5000 });
    return stdout.trim() !== '';
  } catch {
    return false;
  }
}

/** A DNS-only zonehost called `name` over the database `startZonehost` filled, with `flags` (--rrl-rate, --dns-threads). */
async function startDnsOnly(db: string, name: string, flags: string[]): Promise<Server> {
  const dns = await freePort();
  const child = startChild(process.execPath, [ZONEHOST_BIN, 'serve', '--db', db, '--no-http', '--dns', `127.0.0.1:${dns}`, '--log-level', 'warn', ...flags]);
  try {
    await waitFor(() => `${name} (${child.output()})`, () => answers(dns));
  } catch (e) {
    await child.stop();
    throw e;
  }
  return { name, port: dns, pid: child.proc.pid, stop: () => child.stop() };
}

/** Counts every answer in the rate limiter's table and limits none: what RRL costs. */
const RRL_COUNTING = ['--rrl-rate', '1000000'];

/** A DNS-only zonehost over the database `startZonehost` filled, serving DNS over TLS (--dot) too. */
async function startZonehostDot(db: string, tls: Certificate): Promise<Server> {
  const [dns, dot] = [await freePort(), await freePort()];
  const child = startChild(process.execPath, [
    ZONEHOST_BIN, 'serve', '--db', db, '--no-http', '--dns', `127.0.0.1:${dns}`, '--dot', `127.0.0.1:${dot}`, '--tls-cert', tls.cert, '--tls-key', tls.key, '--log-level', 'warn',
  ]);
  try {
    await waitFor(() => `zonehost --dot (${child.output()})`, () => answersTls(dot));
  } catch (e) {
    await child.stop();
    throw e;
  }
  return { name: 'zonehost', port: dot, stop: () => child.stop() };
}

/**
 * Queries dnsdist handles at once per connection, from clients and to knotd. Its default, 0, handles a connection's
 * queries one at a time, in order: a third of zonehost's rate with the pipelining dnsperf does (a run on
 * 2026-11-27, bench/README.md), where RFC 7858 3.3 asks servers to answer pipelined queries concurrently; an
 * operator putting it in front of knotd for DNS over TLS would set it.
 */
const DNSDIST_IN_FLIGHT = 100;

/** dnsdist terminating TLS on a free port (queries handled concurrently, DNSDIST_IN_FLIGHT) and passing them to knotd on `knotPort`. */
async function startDnsdist(dir: string, knotPort: number, tls: Certificate): Promise<Server> {
  const [plain, dot, console] = [await freePort(), await freePort(), await freePort()];
  const conf = join(dir, 'dnsdist.conf');
  writeFileSync(
    conf,
    `setLocal('127.0.0.1:${plain}')
addTLSLocal('127.0.0.1:${dot}', '${tls.cert}', '${tls.key}', { maxInFlight = ${DNSDIST_IN_FLIGHT} })
newServer({ address = '127.0.0.1:${knotPort}', maxInFlight = ${DNSDIST_IN_FLIGHT} })
setSecurityPollSuffix('')
controlSocket('127.0.0.1:${console}')
`,
  );
  const child = startChild('dnsdist', ['--supervised', '--disable-syslog', '-C', conf]);
  try {
    await waitFor(() => `dnsdist (${child.output()})`, () => answersTls(dot));
  } catch (e) {
    await child.stop();
    throw e;
  }
  return { name: 'dnsdist+knotd', port: dot, stop: () => child.stop() };
}

/** A self-signed certificate for the run. */
function certificate(dir: string): Certificate {
  const tls = { cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
  runCommand('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=localhost', '-keyout', tls.key, '-out', tls.cert]);
  return tls;
}

async function answersHttp(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

/** The zone as our server transfers it, as a zone file (the closing SOA of the AXFR dropped). */
async function exportZone(port: number): Promise<string> {
  const { stdout } = await run('dig', ['-p', String(port), '@127.0.0.1', '+noall', '+answer', ZONE, 'AXFR'], { timeout: 60_000, maxBuffer: 256 * 1024 * 1024 });
  const lines = stdout.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(';'));
  if (lines.length < 3 || !/\sSOA\s/.test(lines[0] ?? '')) throw new Error(`AXFR from zonehost failed:\n${stdout.slice(0, 2000)}`);
  return lines.slice(0, -1).join('\n') + '\n';
}

/** knotd with its default worker counts, serving the exported zone. */
async function startKnot(dir: string, zoneFile: string): Promise<Server> {
  const { child, port } = await spawnKnot(dir, ZONE, zoneFile);
  try {
    await waitFor(() => `knotd (${child.output()})`, () => answers(port));
  } catch (e) {
    await child.stop();
    throw e;
  }
  return { name: 'knotd', port, stop: () => child.stop() };
}

/** The native module the batched floor echoes through, as zonehost loads it (src/dns/server/udp-batch.ts). */
export const NATIVE_MODULE = join(ROOT, 'native/udp-batch/build/Release/udp_batch.node');

/** The floors: each a Node.js process echoing every query, one thread, no DNS work (bench/scale times the batched one's round trip too). */
export const FLOORS = {
  dgram: { name: 'Node.js floor, dgram', script: 'udp-floor.mjs', args: [] as string[] },
  batched: { name: 'Node.js floor, batched', script: 'udp-floor-batched.mjs', args: [String(DEFAULT_UDP_BATCH), String(RECV_BUFFER_BYTES)] },
};

/** A floor on a port of its own. */
export async function startFloor(floor: (typeof FLOORS)[keyof typeof FLOORS]): Promise<Server> {
  const port = await freePort();
  const child = startChild(process.execPath, [fileURLToPath(new URL(`./${floor.script}`, import.meta.url)), String(port), ...floor.args]);
  const client = resolver('127.0.0.1', port);
  try {
    // It answers with no records, so any reply will do.
    await waitFor(() => `${floor.name} (${child.output()})`, async () => (await client.ask(ZONE, 'SOA', 1000)) !== null);
  } catch (e) {
    await child.stop();
    throw e;
  } finally {
    client.close();
  }
  return { name: floor.name, port, stop: () => child.stop() };
}

/** The query mix: mostly existing names, some NXDOMAIN, apex MX, TXT, a CNAME and wildcard names. */
function queryFile(dir: string, records: number): string {
  const lines: string[] = [];
  for (let i = 0; i < 20_000; i++) {
    const pick = i % 20;
    if (pick < 13) lines.push(`r${(i * 7919) % records}.${ZONE} A`);
    else if (pick < 15) lines.push(`nx${i}.${ZONE} A`);
    else if (pick < 17) lines.push(`${ZONE} MX`);
    else if (pick === 17) lines.push(`txt.${ZONE} TXT`);
    else if (pick === 18) lines.push(`www.${ZONE} A`);
    else lines.push(`h${i}.wild.${ZONE} A`);
  }
  const path = join(dir, 'queries.txt');
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

/** The loads measured: a latency-bound one and a saturating one. */
export const LOADS = [
  { name: '1 client, 20 in flight', args: ['-c', '1', '-T', '1', '-q', '20'] },
  { name: '4 clients, 200 in flight', args: ['-c', '4', '-T', '2', '-q', '200'] },
] as const;
export type Load = (typeof LOADS)[number];

/** One dnsperf run against 127.0.0.1:`port`; `extra` flags such as `-D` (the DO bit) go first. */
export async function dnsperf(port: number, queries: string, seconds: number, load: Load, extra: readonly string[] = []): Promise<PerfResult> {
  const { stdout } = await run('dnsperf', [...extra, '-s', '127.0.0.1', '-p', String(port), '-d', queries, '-l', String(seconds), '-t', '2', ...load.args], {
    timeout: (seconds + 30) * 1000,
  });
  const qps = Number(/Queries per second:\s+([\d.]+)/.exec(stdout)?.[1] ?? NaN);
  if (!Number.isFinite(qps)) throw new Error(`dnsperf output not understood:\n${stdout}`);
  return {
    qps,
    lost: /Queries lost:\s+(\d+ \([\d.]+%\))/.exec(stdout)?.[1] ?? '-',
    latency: /Average Latency \(s\):\s+([\d.]+)/.exec(stdout)?.[1] ?? '-',
  };
}

export async function dnsBenchmark(opts: BenchOptions, log: (line: string) => void): Promise<string> {
  const missing = ['dnsperf', 'knotd', 'dig'].filter((p) => !haveProgram(p));
  if (missing.length) return `DNS: skipped, missing ${missing.join(', ')} (Debian packages dnsperf, knot, dnsutils)`;
  const records = opts.quick ? 200 : 2000;
  const seconds = opts.quick ? 3 : 10;
  const dir = tempDir('zonehost-dnsbench-');
  // The servers and floors run side by side and are measured in alternation, so a busy moment on the machine
  // hits each; each figure is the median of the rounds. Five rounds: the kernel spreads dnsperf's sockets over
  // each server's threads anew every run (SO_REUSEPORT), which alone moves a round by a third; with three, one
  // server's median could be an even spread and the other's an uneven one.
  const rounds = opts.quick ? 1 : 5;
  const dotRounds = Math.min(rounds, 3);
  const runs = new Map<string, PerfResult[]>();
  const measure = async (server: Server, load: Load, round: number, key: string, extra: readonly string[] = []) => {
    const r = await dnsperf(server.port, queries, seconds, load, extra);
    log(`  ${key}, ${load.name}, round ${round + 1}: ${r.qps.toFixed(0)} qps`);
    runs.set(`${key}/${load.name}`, [...(runs.get(`${key}/${load.name}`) ?? []), r]);
  };
  const dotMissing = ['dnsdist', 'openssl'].filter((p) => !haveProgram(p));
  let queries = '';
  let costs = '';
  try {
    queries = queryFile(dir.path, records);
    const ours = await startZonehost(dir.path, records, log);
    try {
      const counting = await startDnsOnly(ours.db, 'zonehost, RRL counting', RRL_COUNTING);
      const knot = await startKnot(dir.path, await exportZone(ours.port));
      const servers = [ours, counting, knot];
      try {
        servers.push(await startFloor(FLOORS.dgram));
        if (existsSync(NATIVE_MODULE)) servers.push(await startFloor(FLOORS.batched));
        for (const server of servers) if (!opts.quick) await dnsperf(server.port, queries, 3, LOADS[0]); // warm-up
        for (const load of LOADS) {
          for (let round = 0; round < rounds; round++) {
            for (const server of servers) await measure(server, load, round, server.name);
          }
        }
        // RRL's and cookies' cost as CPU time per query at a fixed rate (cpu-cost.ts says why not as a rate), on
        // one DNS thread each: one source port lands on one thread, the main one in one process and a worker in
        // the other as it happens, and their paths differ by more than the cost to be shown.
        const one = ['--dns-threads', '1'];
        const [base, rrl] = [await startDnsOnly(ours.db, 'zonehost, one thread', ['--rrl-rate', '0', ...one]), await startDnsOnly(ours.db, 'zonehost, one thread, RRL counting', [...RRL_COUNTING, ...one])];
        try {
          costs = await cpuCost(
            [
              { name: 'RRL off (--rrl-rate 0), EDNS', port: base.port, pid: base.pid as number },
              { name: 'RRL counting every answer (--rrl-rate 1000000), EDNS', port: rrl.port, pid: rrl.pid as number },
              { name: 'RRL off, a client cookie in every query', port: base.port, pid: base.pid as number, cookie: true },
              { name: 'RRL counting, a client cookie in every query', port: rrl.port, pid: rrl.pid as number, cookie: true },
            ],
            queries, opts.quick ? 2 : 6, rounds, log,
          );
        } finally {
          await base.stop();
          await rrl.stop();
        }
        // DNS over TLS: a DNS-only zonehost over the same database with --dot, and dnsdist in front of the same knotd.
        if (dotMissing.length === 0) {
          const tls = certificate(dir.path);
          const oursTls = await startZonehostDot(ours.db, tls);
          try {
            const dnsdist = await startDnsdist(dir.path, knot.port, tls);
            try {
              for (const server of [oursTls, dnsdist]) if (!opts.quick) await dnsperf(server.port, queries, 3, LOADS[0], ['-m', 'dot']); // warm-up
              for (const load of LOADS) {
                for (let round = 0; round < dotRounds; round++) {
                  for (const server of [oursTls, dnsdist]) await measure(server, load, round, `DoT ${server.name}`, ['-m', 'dot']);
                }
              }
            } finally {
              await dnsdist.stop();
            }
          } finally {
            await oursTls.stop();
          }
        }
      } finally {
        for (const server of servers.slice(1)) await server.stop();
      }
    } finally {
      await ours.stop();
    }
  } finally {
    dir.remove();
  }
  const results = new Map([...runs].map(([key, rs]) => [key, [...rs].sort((a, b) => a.qps - b.qps)[Math.floor(rs.length / 2)] as PerfResult]));
  const all = (name: string, load: Load) => (runs.get(`${name}/${load.name}`) ?? []).map((r) => r.qps.toFixed(0)).join(', ') || '-';
  const rows = LOADS.map((load) => {
    const [ours, counting, knot, dgram, batched] = ['zonehost', 'zonehost, RRL counting', 'knotd', FLOORS.dgram.name, FLOORS.batched.name].map((name) => results.get(`${name}/${load.name}`));
    const cells = (r: PerfResult | undefined) => (r ? [r.qps.toFixed(0), r.lost, r.latency] : ['-', '-', '-']);
    const ratio = (a: PerfResult | undefined, b: PerfResult | undefined) => (a && b ? (a.qps / b.qps).toFixed(2) : '-');
    const floor = (r: PerfResult | undefined) => [r ? r.qps.toFixed(0) : '-', ratio(r, knot)];
    const cost = ours && counting ? `${(100 * (1 - counting.qps / ours.qps)).toFixed(1)} %` : '-';
    return [load.name, ...cells(ours), ...cells(knot), ratio(ours, knot), ...floor(dgram), ...floor(batched), counting ? counting.qps.toFixed(0) : '-', cost];
  });
  const roundRows = LOADS.map((load) => [load.name, ...['zonehost', 'knotd', FLOORS.dgram.name, FLOORS.batched.name].map((name) => all(name, load))]);
  const dotRows = LOADS.map((load) => {
    const [ours, dnsdist] = [results.get(`DoT zonehost/${load.name}`), results.get(`DoT dnsdist+knotd/${load.name}`)];
    const cells = (r: PerfResult | undefined) => (r ? [r.qps.toFixed(0), r.lost, r.latency] : ['-', '-', '-']);
    return [load.name, ...cells(ours), ...cells(dnsdist), ours && dnsdist ? (ours.qps / dnsdist.qps).toFixed(2) : '-'];
  });
  const dot = dotMissing.length
    ? [`DNS over TLS: skipped, missing ${dotMissing.join(', ')} (Debian packages dnsdist, openssl)`]
    : [
        `DNS over TLS: dnsperf -m dot, the same loads and queries, median of ${dotRounds} round${dotRounds > 1 ? 's' : ''} (each client one TLS connection, its queries pipelined); zonehost --dot (a DNS-only node over the same database) against dnsdist ${dnsdistVersion()} (maxInFlight ${DNSDIST_IN_FLIGHT} from clients and to knotd, no cache) terminating TLS in front of the same knotd`,
        table(['load', 'zonehost qps', 'lost', 'avg latency s', 'dnsdist+knotd qps', 'lost', 'avg latency s', 'zonehost/dnsdist'], dotRows),
      ];
  return [
    `DNS: dnsperf for ${seconds} s per load over UDP (median of ${rounds} alternating round${rounds > 1 ? 's' : ''}), ${records + 5}-record zone (answers, NXDOMAIN, MX with additional, TXT, CNAME, wildcard); zonehost with its default DNS threads and UDP batch, knotd serving the zone exported from ours by AXFR with its default workers`,
    table(['load', 'zonehost qps', 'lost', 'avg latency s', 'knotd qps', 'lost', 'avg latency s', 'zonehost/knotd', 'dgram floor qps', 'floor/knotd', 'batched floor qps', 'floor/knotd', 'zonehost RRL qps', 'RRL cost'], rows),
    "target: zonehost/knotd ≥ 1 (issue 28: at least knotd's rate, with 1 client and with 4)",
    'rounds (qps):',
    table(['load', 'zonehost', 'knotd', 'dgram floor', 'batched floor'], roundRows),
    `Node.js floors: one Node.js thread sending every query straight back, no DNS work; dgram: one system call per packet (bench/dns/udp-floor.mjs), batched: native/udp-batch, ${DEFAULT_UDP_BATCH} per recvmmsg/sendmmsg (bench/dns/udp-floor-batched.mjs)`,
    ...(existsSync(NATIVE_MODULE) ? [] : [`batched floor: skipped, the native module is not built (${NATIVE_MODULE} missing: npm run build:native)`]),
    'zonehost runs with --rrl-rate 0 (dnsperf is one address asking far faster than any client); "zonehost RRL" is a second, DNS-only zonehost on the same database with --rrl-rate 1000000: every answer counted in the shared table, none limited; RRL cost = 1 - its rate / zonehost\'s',
    '',
    ...(costs ? [costs, ''] : []),
    ...dot,
  ].join('\n');
}

/** dnsdist's version, as it prints it. */
function dnsdistVersion(): string {
  try {
    return /dnsdist (\S+)/.exec(spawnSync('dnsdist', ['--version'], { encoding: 'utf8' }).stdout)?.[1] ?? '';
  } catch {
    return '';
  }
}
