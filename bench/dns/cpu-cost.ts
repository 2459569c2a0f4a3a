/**
 * What response rate limiting and DNS cookies cost a query, as the server's CPU time per query at a fixed rate
 * rather than as a difference of two saturated rates: rounds of dnsperf at full speed spread by ±15 % on this
 * 2-core machine (dnsperf shares the cores), more than the few per cent to be resolved, while the CPU time a
 * process spends on a fixed number of queries moves much less. Read from every thread's
 * /proc/PID/task/TID/schedstat (nanoseconds on a CPU), so it is Linux only, like the batched path. Every query
 * carries EDNS (a cookie needs it), so the cookie rows differ from the base by the cookie alone; every run
 * asks from the same source port, so SO_REUSEPORT hands it to the same DNS thread each time (the servers run
 * one DNS thread each: bench/dns/index.ts says why).
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { freePort, table } from '../support.js';

const run = promisify(execFile);

/** Queries a second offered: well below what any variant answers, so none saturates. */
export const FIXED_RATE = 30_000;
/** A client cookie (RFC 7873): the server answers each such query with a server cookie it computes. */
const CLIENT_COOKIE = '10:0102030405060708';

export interface CostVariant {
  name: string;
  port: number;
  pid: number;
  /** Sends a client cookie with every query. */
  cookie?: boolean;
}

/** Nanoseconds the process has spent on a CPU, all threads together. */
function cpuNanoseconds(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return total;
}

/** One fixed-rate run from `sourcePort`: the queries answered and the server's CPU microseconds per query. */
async function measure(v: CostVariant, queries: string, seconds: number, sourcePort: number): Promise<{ answered: number; usPerQuery: number }> {
  const before = cpuNanoseconds(v.pid);
  const args = ['-e', ...(v.cookie ? ['-E', CLIENT_COOKIE] : []), '-x', String(sourcePort), '-s', '127.0.0.1', '-p', String(v.port), '-d', queries, '-l', String(seconds), '-t', '2', '-c', '1', '-T', '1', '-q', '20', '-Q', String(FIXED_RATE)];
  const { stdout } = await run('dnsperf', args, { timeout: (seconds + 30) * 1000 });
  const cpu = cpuNanoseconds(v.pid) - before;
  const answered = Number(/Queries completed:\s+(\d+)/.exec(stdout)?.[1] ?? NaN);
  if (!(answered > 0)) throw new Error(`dnsperf output not understood:\n${stdout}`);
  return { answered, usPerQuery: cpu / answered / 1000 };
}

/** Alternating rounds over the variants; the first is the base the others' costs are relative to. */
export async function cpuCost(variants: readonly CostVariant[], queries: string, seconds: number, rounds: number, log: (line: string) => void): Promise<string> {
  const sourcePort = await freePort();
  const runs = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const v of variants) {
      const r = await measure(v, queries, seconds, sourcePort);
      log(`  CPU per query, ${v.name}, round ${round + 1}: ${r.usPerQuery.toFixed(2)} µs (${r.answered} answered)`);
      runs.get(v.name)?.push(r.usPerQuery);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const base = runs.get(variants[0]?.name ?? '') ?? [];
  const rows = variants.map((v, i) => {
    const own = runs.get(v.name) ?? [];
    // Each round's cost against the base's run of the same round (the machine as it was then), then the median:
    // a busy moment moves both runs of a round, and the median of the rounds' own costs leaves it out.
    const costs = own.map((us, r) => 100 * (us / (base[r] ?? NaN) - 1));
    const cost = i === 0 ? 'base' : `${median(costs).toFixed(1)} % (${costs.map((c) => c.toFixed(1)).join(', ')})`;
    return [v.name, median(own).toFixed(2), own.map((x) => x.toFixed(2)).join(', '), cost];
  });
  return [
    `RRL and cookies, server CPU time per query: dnsperf -e (EDNS) at a fixed ${FIXED_RATE} q/s, 1 client from one source port, ${seconds} s per round, ${rounds} alternating round${rounds > 1 ? 's' : ''}; CPU time of every thread of the server process (/proc/PID/task/*/schedstat) / queries answered; cost: the median of each round's against the base's run of that round`,
    table(['zonehost', 'CPU µs per query (median)', 'rounds', 'cost (rounds)'], rows),
    'target: cost ≤ 5 % (issue 29: the cost of RRL and cookies on the UDP rate)',
  ].join('\n');
}
