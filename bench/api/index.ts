/**
 * API throughput and latency (issue 8, item 1): record create, record list (1000-record zone) and domain
 * list (101 zones) at 10 connections, through interfaces A and B and the PowerDNS door (the same RRset PATCH,
 * zone GET and zone list PowerDNS gets; issue 31) on SQLite and on PostgreSQL, against PowerDNS
 * Authoritative's HTTP API doing the same. Only successful
 * operations count towards requests/s; failures are counted on their own.
 *
 * All systems run at once, and each operation is measured in rounds that take turns between them, with
 * the median reported: load from elsewhere on the machine then falls on every system alike instead of
 * on whichever happened to run at the time.
 */
import { postgresSchema, table, tempDir, type BenchOptions } from '../support.js';
import { load, type Measure } from './load.js';
import { PDNS_DOOR, startPowerDns, startZonehost, type Case, type Operation, type System } from './systems.js';

export const CONNECTIONS = 10;
const OPERATIONS: Operation[] = ['domain list', 'record list', 'record create'];

interface Target {
  /** Column: SQLite, PostgreSQL or PowerDNS. */
  system: string;
  url: string;
  c: Case;
  rounds: Measure[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

/** Medians of the rounds; failures are added up. */
function summary(rounds: Measure[]): Measure {
  return { rps: median(rounds.map((m) => m.rps)), p50: median(rounds.map((m) => m.p50)), p99: median(rounds.map((m) => m.p99)), failed: rounds.reduce((n, m) => n + m.failed, 0) };
}

const measure = (t: Target, seconds: number): Promise<Measure> => load(t.url, t.c.request, { connections: CONNECTIONS, seconds, ok: t.c.ok });

const fmt = (m: Measure | undefined) => (m ? [m.rps.toFixed(0), String(m.p50), String(m.p99), String(m.failed)] : ['-', '-', '-', '-']);
const ratio = (ours: Measure | undefined, ref: Measure | undefined) => (ours && ref && ref.rps > 0 ? `${(ours.rps / ref.rps).toFixed(2)}` : '-');

export async function apiBenchmark(opts: BenchOptions, log: (line: string) => void): Promise<string> {
  const rounds = opts.quick ? 1 : 5;
  const seconds = opts.quick ? 2 : 3;
  const skipped: string[] = [];
  const systems: { name: string; system: System }[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];
  try {
    const start = async (name: string, how: () => Promise<System>) => {
      log(`  ${name}: starting and seeding`);
      const system = await how();
      cleanups.push(() => system.stop());
      for (const note of system.notes) log(`  ${name}: ${note}`);
      systems.push({ name, system });
    };
    const sqliteDir = tempDir('zonehost-bench-');
    cleanups.push(() => sqliteDir.remove());
    await start('SQLite', () => startZonehost(`sqlite:${sqliteDir.path}/bench.db`));
    const schema = await postgresSchema('bench');
    if ('skipped' in schema) skipped.push(`zonehost on PostgreSQL: ${schema.skipped}`);
    else {
      cleanups.push(() => schema.drop());
      await start('PostgreSQL', () => startZonehost(schema.url));
    }
    const reference = await startPowerDns().catch((e: Error) => ({ skipped: e.message }));
    if ('skipped' in reference) skipped.push(`PowerDNS: ${reference.skipped}`);
    else await start('PowerDNS', async () => reference);

    const results = new Map<string, Measure>();
    for (const operation of OPERATIONS) {
      const targets: Target[] = systems.flatMap(({ name, system }) =>
        system.cases.filter((c) => c.operation === operation).map((c) => ({ system: name, url: system.url, c, rounds: [] })),
      );
      // Settles connections, caches and the JIT before anything is measured.
      if (!opts.quick) for (const t of targets) await measure(t, 2);
      for (let r = 0; r < rounds; r++) {
        // A different system goes first in each round.
        for (let i = 0; i < targets.length; i++) {
          const t = targets[(i + r) % targets.length] as Target;
          t.rounds.push(await measure(t, seconds));
        }
      }
      for (const t of targets) {
        const m = summary(t.rounds);
        results.set(`${t.system}/${operation}/${t.c.via}`, m);
        log(`  ${t.system}: ${operation} via ${t.c.via}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, ${m.failed} failed`);
      }
    }

    const rows: string[][] = [];
    for (const operation of [...OPERATIONS].reverse()) {
      const ref = results.get(`PowerDNS/${operation}/HTTP API`);
      for (const via of ['A', 'B', PDNS_DOOR]) {
        const [s, p] = [results.get(`SQLite/${operation}/${via}`), results.get(`PostgreSQL/${operation}/${via}`)];
        if (s || p) rows.push([operation, via, ...fmt(s), ...fmt(p), ...fmt(ref), ratio(s, ref), ratio(p, ref)]);
      }
    }
    const header = ['operation', 'via', 'SQLite req/s', 'p50 ms', 'p99 ms', 'failed', 'PostgreSQL req/s', 'p50 ms', 'p99 ms', 'failed', 'PowerDNS req/s', 'p50 ms', 'p99 ms', 'failed', 'SQLite/PDNS', 'PG/PDNS'];
    return [
      `API: ${CONNECTIONS} connections; ${rounds === 1 ? `one ${seconds} s run per case` : `median of ${rounds} rounds of ${seconds} s per case, the systems taking turns`}; req/s counts successful operations only (an interface B list follows its pages of 500); record list = 1000-record zone, domain list = 101 zones; failed = over all rounds`,
      table(header, rows),
      ...skipped.map((s) => `skipped: ${s}`),
    ].join('\n');
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}
