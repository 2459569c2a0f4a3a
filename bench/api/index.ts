/**
 * API throughput and latency (issue 8, item 1): record create, record list (1000-record zone) and domain
 * list (101 zones) at 10 connections, through interfaces A and B on SQLite and on PostgreSQL, against
 * PowerDNS Authoritative's HTTP API doing the same (RRset PATCH, zone GET, zone list). Only successful
 * responses count towards requests/s; failures are counted on their own.
 */
import { postgresSchema, table, tempDir, type BenchOptions } from '../support.js';
import { load, type Measure } from './load.js';
import { startPowerDns, startZonehost, type Case, type Operation, type System } from './systems.js';

export const CONNECTIONS = 10;

/** Measurements by "operation/via". */
type Results = Map<string, Measure>;

const caseKey = (operation: Operation, via: string) => `${operation}/${via}`;

const measure = (url: string, c: Case, seconds: number): Promise<Measure> => load(url, c.request, { connections: CONNECTIONS, seconds, ok: c.ok });

async function runSystem(name: string, start: () => Promise<System>, opts: BenchOptions, log: (line: string) => void): Promise<Results> {
  const seconds = opts.quick ? 2 : 10;
  const results: Results = new Map();
  log(`  ${name}: starting and seeding`);
  const system = await start();
  try {
    for (const note of system.notes) log(`  ${name}: ${note}`);
    for (const c of system.cases) {
      // Settles connections, caches and the JIT before the measured run.
      if (!opts.quick) await measure(system.url, c, 2);
      const m = await measure(system.url, c, seconds);
      results.set(caseKey(c.operation, c.via), m);
      log(`  ${name}: ${c.operation} via ${c.via}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, ${m.failed} failed`);
    }
  } finally {
    await system.stop();
  }
  return results;
}

const fmt = (m: Measure | undefined) => (m ? [m.rps.toFixed(0), String(m.p50), String(m.p99), String(m.failed)] : ['-', '-', '-', '-']);
const ratio = (ours: Measure | undefined, ref: Measure | undefined) => (ours && ref && ref.rps > 0 ? `${(ours.rps / ref.rps).toFixed(2)}` : '-');

export async function apiBenchmark(opts: BenchOptions, log: (line: string) => void): Promise<string> {
  const skipped: string[] = [];
  const sqliteDir = tempDir('zonehost-bench-');
  let sqlite: Results;
  try {
    sqlite = await runSystem('zonehost on SQLite', () => startZonehost(`sqlite:${sqliteDir.path}/bench.db`), opts, log);
  } finally {
    sqliteDir.remove();
  }
  let postgres: Results = new Map();
  const schema = await postgresSchema('bench');
  if ('skipped' in schema) skipped.push(`zonehost on PostgreSQL: ${schema.skipped}`);
  else {
    try {
      postgres = await runSystem('zonehost on PostgreSQL', () => startZonehost(schema.url), opts, log);
    } finally {
      await schema.drop();
    }
  }
  let pdns: Results = new Map();
  const reference = await startPowerDns().catch((e: Error) => ({ skipped: e.message }));
  if ('skipped' in reference) skipped.push(`PowerDNS: ${reference.skipped}`);
  else pdns = await runSystem('PowerDNS', async () => reference, opts, log);

  const rows: string[][] = [];
  for (const operation of ['record create', 'record list', 'domain list'] as const) {
    for (const via of ['A', 'B']) {
      const [s, p] = [sqlite.get(caseKey(operation, via)), postgres.get(caseKey(operation, via))];
      if (!s && !p) continue;
      const ref = pdns.get(caseKey(operation, 'HTTP API'));
      rows.push([operation, via, ...fmt(s), ...fmt(p), ...fmt(ref), ratio(s, ref), ratio(p, ref)]);
    }
  }
  const header = ['operation', 'via', 'SQLite req/s', 'p50 ms', 'p99 ms', 'failed', 'PostgreSQL req/s', 'p50 ms', 'p99 ms', 'failed', 'PowerDNS req/s', 'p50 ms', 'p99 ms', 'failed', 'SQLite/PDNS', 'PG/PDNS'];
  return [
    `API: ${CONNECTIONS} connections, ${opts.quick ? 2 : 10} s per case; req/s counts successful operations only (an interface B list follows its pages of 500); record list = 1000-record zone, domain list = 101 zones`,
    table(header, rows),
    ...skipped.map((s) => `skipped: ${s}`),
  ].join('\n');
}
