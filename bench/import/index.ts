/**
 * Zone import (issue 18): a 10,000-record zone of mixed types into an empty domain, through interface B as a
 * master file (`PUT /v1/domains/{id}/zonefile`) and as bulk-change creates (`POST /v1/domains/{id}/changes`),
 * on SQLite and on PostgreSQL, against PowerDNS Authoritative (SQLite backend) creating the same zone from
 * the same text through its API (`POST /api/v1/servers/localhost/zones` with its `zone` field).
 *
 * Every system runs at once; each round imports into a fresh domain (zone) on every system, a different
 * system first each round, and the median of the rounds is reported. Only the one request is timed (from
 * sending it to its whole answer read); making the empty domain before and checking the result after are
 * not.
 */
import { performance } from 'node:perf_hooks';
import { spawnPowerDns, type PowerDns } from '../api/systems.js';
import { addUser, apiKey, serve, v1, type Zonehost } from '../propagation/zonehost.js';
import { postgresSchema, table, tempDir, type BenchOptions } from '../support.js';
import { createChanges, importRecords, masterFile, NAMESERVERS, typeCounts } from './zone.js';

export const RECORDS = 10_000;

interface Target {
  /** Table row: system and how. */
  system: string;
  via: string;
  /** Makes the empty domain (zone) `zone` and imports the records into it; resolves to the import's milliseconds. */
  run(zone: string): Promise<number>;
  times: number[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

/** Times one request, its whole answer read; throws on an unexpected status. */
async function timed(url: string, init: RequestInit, expect: number): Promise<{ ms: number; body: string }> {
  const start = performance.now();
  const res = await fetch(url, init);
  const body = await res.text();
  const ms = performance.now() - start;
  if (res.status !== expect) throw new Error(`${init.method} ${url}: HTTP ${res.status} ${body.slice(0, 500)}`);
  return { ms, body };
}

/** zonehost's two ways of importing, both into fresh domains of the running server `zh`. */
function zonehostTargets(system: string, zh: Zonehost, key: string): Target[] {
  const bearer = { authorization: `Bearer ${key}` };
  const newDomain = async (zone: string) => ((await v1(zh.url, key, 'POST', '/domains', { domain: zone, soa: `hostmaster@${zone}` })) as { id: number }).id;
  return [
    {
      system,
      via: 'PUT zonefile',
      times: [],
      async run(zone) {
        const text = masterFile(zone, importRecords(zone, RECORDS));
        const id = await newDomain(zone);
        const { ms, body } = await timed(`${zh.url}/v1/domains/${id}/zonefile`, { method: 'PUT', headers: { ...bearer, 'content-type': 'text/dns' }, body: text }, 200);
        const added = (JSON.parse(body) as { added: unknown[] }).added.length;
        if (added !== RECORDS) throw new Error(`${system} PUT zonefile added ${added} records, expected ${RECORDS}`);
        return ms;
      },
    },
    {
      system,
      via: 'POST changes',
      times: [],
      async run(zone) {
        const json = JSON.stringify(createChanges(importRecords(zone, RECORDS)));
        const id = await newDomain(zone);
        const { ms, body } = await timed(`${zh.url}/v1/domains/${id}/changes`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: json }, 200);
        const made = (JSON.parse(body) as { changes: unknown[] }).changes.length;
        if (made !== RECORDS) throw new Error(`${system} POST changes made ${made} records, expected ${RECORDS}`);
        return ms;
      },
    },
  ];
}

/** PowerDNS creating the zone from the same master file (kind Native, its `zone` field). */
function powerDnsTarget(pdns: PowerDns): Target {
  return {
    system: 'PowerDNS',
    via: 'POST zones {zone}',
    times: [],
    async run(zone) {
      const json = JSON.stringify({ name: `${zone}.`, kind: 'Native', zone: masterFile(zone, importRecords(zone, RECORDS)) });
      const { ms } = await timed(`${pdns.url}/api/v1/servers/localhost/zones`, { method: 'POST', headers: pdns.headers, body: json }, 201);
      const res = await fetch(`${pdns.url}/api/v1/servers/localhost/zones/${zone}.`, { headers: pdns.headers });
      const got = (await res.json()) as { rrsets: { type: string; records: unknown[] }[] };
      const records = got.rrsets.filter((r) => r.type !== 'SOA' && r.type !== 'NS').reduce((n, r) => n + r.records.length, 0);
      if (records !== RECORDS) throw new Error(`PowerDNS holds ${records} records of ${zone} after the create, expected ${RECORDS}`);
      return ms;
    },
  };
}

/** The pause before each timed import. */
const SETTLE_MS = 1000;

export async function importBenchmark(opts: BenchOptions, log: (line: string) => void): Promise<string> {
  const rounds = opts.quick ? 1 : 3;
  const skipped: string[] = [];
  const targets: Target[] = [];
  const cleanups: (() => Promise<void> | void)[] = [];
  try {
    const startZonehost = async (system: string, db: string) => {
      log(`  ${system}: starting zonehost`);
      addUser(db);
      const zh = await serve(db);
      cleanups.push(() => zh.stop());
      targets.push(...zonehostTargets(system, zh, await apiKey(zh.url)));
    };
    const dir = tempDir('zonehost-bench-import-');
    cleanups.push(() => dir.remove());
    await startZonehost('SQLite', `sqlite:${dir.path}/bench.db`);
    const schema = await postgresSchema('bench_import');
    if ('skipped' in schema) skipped.push(`zonehost on PostgreSQL: ${schema.skipped}`);
    else {
      cleanups.push(() => schema.drop());
      await startZonehost('PostgreSQL', schema.url);
    }
    log('  PowerDNS: starting');
    const pdns = await spawnPowerDns().catch((e: Error) => ({ skipped: e.message }));
    if ('skipped' in pdns) skipped.push(`PowerDNS: ${pdns.skipped}`);
    else {
      cleanups.push(() => pdns.stop());
      targets.push(powerDnsTarget(pdns));
    }

    // One unmeasured import each first: connections, the JIT, the databases' first pages.
    for (const [i, t] of targets.entries()) await t.run(`warm-${i}.import.example`);
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < targets.length; i++) {
        const k = (i + r) % targets.length;
        const t = targets[k] as Target;
        // What the last import set going after its answer (zonehost rebuilds the zone 100 ms after a write) ends
        // before the next one is timed, whichever system that is.
        await new Promise((done) => setTimeout(done, SETTLE_MS));
        const ms = await t.run(`r${r}-${k}.import.example`);
        t.times.push(ms);
        log(`  round ${r + 1}: ${t.system} ${t.via}: ${ms.toFixed(0)} ms`);
      }
    }

    const ref = targets.find((t) => t.system === 'PowerDNS');
    const refMs = ref ? median(ref.times) : undefined;
    const rows = targets.map((t) => {
      const ms = median(t.times);
      return [
        t.system,
        t.via,
        ms.toFixed(0),
        Math.min(...t.times).toFixed(0),
        Math.max(...t.times).toFixed(0),
        ((RECORDS / ms) * 1000).toFixed(0),
        refMs && t !== ref ? (ms / refMs).toFixed(2) : '-',
      ];
    });
    const sample = importRecords('x.example', RECORDS);
    return [
      `import: ${RECORDS} records (${typeCounts(sample)}; plus the SOA and the apex NS ${NAMESERVERS.join(', ')}) into an empty domain, one request each; ` +
        `${rounds === 1 ? 'one round' : `median of ${rounds} rounds`}, a fresh domain each round, the systems taking turns, after one unmeasured import each`,
      table(['system', 'via', 'median ms', 'min ms', 'max ms', 'records/s', 'ms / PowerDNS'], rows),
      ...skipped.map((s) => `skipped: ${s}`),
    ].join('\n');
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }
}
