/**
 * Scale (issue 8, item 4): a store of 100,000 domains with 10 A records each (1,000,000 records), loaded
 * straight through the store layer, then served by `zonehost serve` as a child process: start-up to the
 * first right DNS answer and to every zone in memory (/metrics), resident memory then (/proc of the child),
 * one domain's records listed through interfaces A and B, and UDP query latency, each next to the same on a
 * store holding one such domain.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { DomainData } from '../../src/model/domain.js';
import { DOMAIN_DEFAULTS } from '../../src/model/domain.js';
import { checkRecord, fromV1, recordTypeOrThrow } from '../../src/model/records/index.js';
import { openStore } from '../../src/store/open.js';
import type { StoreOps } from '../../src/store/store.js';
import { freePort, haveProgram, postgresSchema, spawnKnot, table, tempDir, type BenchOptions } from '../support.js';
import { addUser, apiKey, percentile, resolver, serve, v1, v3, type Resolver } from '../propagation/zonehost.js';
import { FLOORS, NATIVE_MODULE, startFloor } from '../dns/index.js';

const RECORDS_PER_DOMAIN = 10;
const DOMAINS_PER_TRANSACTION = 500;
const TARGETS = 'first DNS answer within 5 s of start, under 1 GiB resident; list and query within 2× of the empty store; against knotd (issue 28): query p50 and p99 within 1.2×, resident memory within 1.5×';

/** The warm-up pass's names: h(r+5) where the measured passes ask h(r) of the same zone. */
const WARM_UP_SHIFT = 5;

/**
 * Sockets the latency passes take turns with, one query in flight in all: the kernel spreads a server's
 * SO_REUSEPORT sockets (zonehost's DNS threads, knotd's UDP workers) over clients by address and port, so one
 * socket would measure whichever thread it happened to land on, and runs of the suite would differ by that.
 */
const SOCKETS = 8;

const zoneName = (i: number) => `z${i}.scale.example`;
const address = (i: number) => `192.0.2.${i % 250}`;

interface Loaded {
  /** Seconds to insert everything. */
  seconds: number;
  /** The domain the list and query measurements use (the last one loaded). */
  probe: { id: number; zone: string };
  domains: number;
}

/** Inserts `domains` domains of RECORDS_PER_DOMAIN A records for the user "bench", `parallel` transactions at a time. */
async function load(db: string, domains: number, parallel: number, log: (line: string) => void): Promise<Loaded> {
  const store = await openStore(db);
  try {
    const account = await store.accountByName('bench');
    if (!account) throw new Error('no user bench');
    const started = performance.now();
    const now = Date.now();
    const serial = Math.floor(now / 1000);
    const ids: number[] = [];
    const batch = async (tx: StoreOps, from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const zone = zoneName(i);
        const d: DomainData = { ...DOMAIN_DEFAULTS, domain: zone, kind: 'master', soaEmail: `hostmaster@${zone}` };
        const { id } = await tx.insertDomain(account.id, d, serial, now);
        ids[i] = id;
        for (let r = 0; r < RECORDS_PER_DOMAIN; r++) {
          const rec = fromV1(recordTypeOrThrow('A'), { name: `h${r}`, address: address(i + r) });
          checkRecord(rec, { zone }).throwIfAny();
          await tx.insertRecord(id, rec, now);
        }
      }
    };
    let next = 0;
    let done = 0;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < domains) {
          const from = next;
          const to = Math.min(domains, from + DOMAINS_PER_TRANSACTION);
          next = to;
          await store.transaction((tx) => batch(tx, from, to));
          done += to - from;
          if (done % 10_000 === 0) log(`    ${done} domains loaded (${((performance.now() - started) / 1000).toFixed(0)} s)`);
        }
      }),
    );
    return { seconds: (performance.now() - started) / 1000, probe: { id: ids[domains - 1] as number, zone: zoneName(domains - 1) }, domains };
  } finally {
    await store.close();
  }
}

/** Resident and peak resident memory of a process, MiB. */
function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 };
}

/** Median ms of `n` runs of `fn` (after two unmeasured ones). */
async function median(n: number, fn: () => Promise<unknown>): Promise<number> {
  await fn();
  await fn();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return percentile(times, 50);
}

interface Served {
  startSeconds: number;
  loadedSeconds: number;
  rss: number;
  hwm: number;
  listA: number;
  listB: number;
  queryP50: number;
  queryP99: number;
  /** The same names asked again (zonehost answers them from its encoded-answer cache). */
  againP50: number;
  againP99: number;
}

/**
 * Polls `dns` from now on for the last name loaded until it answers rightly; resolves with the time of
 * that answer (performance.now()).
 */
function firstRightAnswer(dns: Resolver, domains: number): Promise<number> {
  const host = `h${RECORDS_PER_DOMAIN - 1}.${zoneName(domains - 1)}`;
  const expected = address(domains - 1 + RECORDS_PER_DOMAIN - 1);
  const deadline = performance.now() + 600_000;
  return (async () => {
    while (performance.now() < deadline) {
      if ((await dns.query(host, 'A', 200))?.includes(expected)) return performance.now();
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`no DNS answer for ${host} within 600 s`);
  })();
}

/**
 * p50 and p99 ms of queries for names spread over every loaded zone, one in flight, each answer checked.
 * With one domain the 10 names repeat, so nearly every answer comes from zonehost's encoded-answer cache;
 * with 100,000 none does until the names are asked again, which the suite therefore measures as well.
 * `shift` picks another name in each zone (queryLatency(…, 5) asks none of the names queryLatency(…) does).
 * The q-th query goes out on socket q modulo their number, so a name asked again goes to the same thread.
 */
async function queryLatency(sockets: readonly Resolver[], domains: number, quick: boolean, shift = 0, echo = false): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  const queries = quick ? 500 : 5000;
  for (let q = 0; q < queries; q++) {
    const i = (q * 7919) % domains;
    const r = (q + shift) % RECORDS_PER_DOMAIN;
    const name = `h${r}.${zoneName(i)}`;
    const socket = sockets[q % sockets.length] as Resolver;
    const t = performance.now();
    // The floor sends each query back as it came: any reply will do.
    if (echo) {
      if (!(await socket.ask(name, 'A', 1000))) throw new Error(`no echo for ${name}`);
    } else {
      const answers = await socket.query(name, 'A', 1000);
      if (!answers?.includes(address(i + r))) throw new Error(`wrong DNS answer for ${name}: ${answers}`);
    }
    times.push(performance.now() - t);
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

/** Starts `zonehost serve` on the loaded store and measures it; stops it again. */
async function measureServed(db: string, loaded: Loaded, quick: boolean): Promise<Served> {
  const dnsPort = await freePort();
  const sockets = Array.from({ length: SOCKETS }, () => resolver('127.0.0.1', dnsPort));
  const dns = sockets[0] as Resolver;
  const started = performance.now();
  // DNS is polled from the moment of spawning: the first right answer for the last zone loaded.
  const firstAnswer = firstRightAnswer(dns, loaded.domains);
  const zh = await serve(db, dnsPort);
  try {
    const answeredAt = await firstAnswer;
    // Zones not loaded yet are answered by loading them first; the steady state starts once all are in.
    let loadedAt = 0;
    while (!loadedAt) {
      const text = await (await fetch(`${zh.url}/metrics`)).text();
      if (/^zonehost_dns_zones_loading 0$/m.test(text)) loadedAt = performance.now();
      else await new Promise((r) => setTimeout(r, 20));
    }
    const mem = memory(zh.child.proc.pid as number);
    const key = await apiKey(zh.url);
    const runs = quick ? 20 : 100;
    const listA = await median(runs, async () => {
      const rows = (await v3(zh.url, { api_action: 'domain.resource.list', api_key: key, DomainID: loaded.probe.id })) as unknown[];
      if (rows.length !== RECORDS_PER_DOMAIN) throw new Error(`interface A listed ${rows.length} records`);
    });
    const listB = await median(runs, async () => {
      const rows = (await v1(zh.url, key, 'GET', `/domains/${loaded.probe.id}/records`)) as unknown[];
      if (rows.length !== RECORDS_PER_DOMAIN) throw new Error(`interface B listed ${rows.length} records`);
    });
    // Unmeasured first asks of other names: the code that builds an answer is compiled by the JIT as it runs
    // its first thousands of times, and those pauses are not what a query costs (knotd gets the same pass).
    await queryLatency(sockets, loaded.domains, quick, WARM_UP_SHIFT);
    const latency = await queryLatency(sockets, loaded.domains, quick);
    const again = await queryLatency(sockets, loaded.domains, quick);
    return {
      startSeconds: (answeredAt - started) / 1000,
      loadedSeconds: (loadedAt - started) / 1000,
      rss: mem.rss,
      hwm: memory(zh.child.proc.pid as number).hwm,
      listA,
      listB,
      queryP50: latency.p50,
      queryP99: latency.p99,
      againP50: again.p50,
      againP99: again.p99,
    };
  } finally {
    for (const socket of sockets) socket.close();
    await zh.stop();
  }
}

interface KnotServed {
  startSeconds: number;
  rss: number;
  queryP50: number;
  queryP99: number;
}

/**
 * The reference in the same run: knotd serving the same names and addresses as one zone ("scale.example",
 * whose subdomains zonehost serves as separate zones), measured as zonehost is.
 */
async function measureKnot(domains: number, quick: boolean): Promise<KnotServed> {
  const dir = tempDir('zonehost-scaleknot-');
  try {
    const lines = ['scale.example. 3600 IN SOA ns1.scale.example. hostmaster.scale.example. 1 14400 14400 1209600 300', 'scale.example. 3600 IN NS ns1.scale.example.'];
    for (let i = 0; i < domains; i++) {
      for (let r = 0; r < RECORDS_PER_DOMAIN; r++) lines.push(`h${r}.${zoneName(i)}. 3600 IN A ${address(i + r)}`);
    }
    const zoneFile = lines.join('\n') + '\n';
    lines.length = 0;
    const started = performance.now();
    const { child, port } = await spawnKnot(dir.path, 'scale.example', zoneFile);
    const sockets = Array.from({ length: SOCKETS }, () => resolver('127.0.0.1', port));
    const dns = sockets[0] as Resolver;
    try {
      const answeredAt = await firstRightAnswer(dns, domains);
      const mem = memory(child.proc.pid as number);
      await queryLatency(sockets, domains, quick, WARM_UP_SHIFT);
      const latency = await queryLatency(sockets, domains, quick);
      return { startSeconds: (answeredAt - started) / 1000, rss: mem.rss, queryP50: latency.p50, queryP99: latency.p99 };
    } finally {
      for (const socket of sockets) socket.close();
      await child.stop();
    }
  } finally {
    dir.remove();
  }
}

/**
 * The least a round trip to a Node.js process costs here: the batched floor (bench/dns/udp-floor-batched.mjs:
 * one thread sending each query back through native/udp-batch, no DNS work) asked as zonehost and knotd are.
 * With one query in flight the time is mostly the two processes being woken, which the scheduler decides.
 */
async function measureFloor(domains: number, quick: boolean): Promise<{ p50: number; p99: number }> {
  const floor = await startFloor(FLOORS.batched);
  const sockets = Array.from({ length: SOCKETS }, () => resolver('127.0.0.1', floor.port));
  try {
    await queryLatency(sockets, domains, quick, WARM_UP_SHIFT, true);
    return await queryLatency(sockets, domains, quick, 0, true);
  } finally {
    for (const socket of sockets) socket.close();
    await floor.stop();
  }
}

interface Backend {
  name: string;
  /** A fresh empty database URL, or why there is none. */
  fresh(label: string): Promise<{ db: string; drop: () => Promise<void> } | { skipped: string }>;
  parallel: number;
}

export async function scaleBenchmark(opts: BenchOptions, log: (line: string) => void): Promise<string> {
  const domains = opts.quick ? 1_000 : 100_000;
  const dir = tempDir('zonehost-scalebench-');
  const backends: Backend[] = [
    { name: 'SQLite', parallel: 1, fresh: async (label) => ({ db: `sqlite:${join(dir.path, `${label}.db`)}`, drop: async () => {} }) },
    {
      // Only when asked for: loading a million rows one statement at a time takes long on PostgreSQL.
      name: 'PostgreSQL',
      // Transactions on separate pooled connections overlap their round trips.
      parallel: 4,
      fresh: async (label) => {
        if (!process.env.DATABASE_URL) return { skipped: 'DATABASE_URL is not set' };
        const pg = await postgresSchema(`bench_scale_${label}`);
        return 'skipped' in pg ? pg : { db: pg.url, drop: pg.drop };
      },
    },
  ];
  const rows: string[][] = [];
  const knotRows: string[][] = [];
  /** zonehost on SQLite with every domain loaded: what knotd is set beside. */
  let sqliteLoaded: Served | undefined;
  const f = (x: number, digits = 2) => x.toFixed(digits);
  const notes: string[] = [];
  try {
    for (const backend of backends) {
      const results: Record<string, { loaded: Loaded; served: Served }> = {};
      for (const [label, n] of [['empty', 1], ['loaded', domains]] as const) {
        const store = await backend.fresh(label);
        if ('skipped' in store) {
          notes.push(`${backend.name}: skipped, ${store.skipped}`);
          break;
        }
        try {
          log(`  ${backend.name}, ${label}: loading ${n} domains, ${n * RECORDS_PER_DOMAIN} records`);
          addUser(store.db);
          const loaded = await load(store.db, n, backend.parallel, log);
          log(`  ${backend.name}, ${label}: loaded in ${loaded.seconds.toFixed(1)} s; serving`);
          results[label] = { loaded, served: await measureServed(store.db, loaded, opts.quick) };
        } finally {
          await store.drop();
        }
      }
      const [empty, loaded] = [results.empty, results.loaded];
      if (!empty || !loaded) continue;
      if (backend.name === 'SQLite') sqliteLoaded = loaded.served;
      const row = (what: string, pick: (s: Served) => number, digits = 2) => [
        backend.name, what, f(pick(loaded.served), digits), f(pick(empty.served), digits), f(pick(loaded.served) / pick(empty.served)),
      ];
      rows.push(
        [backend.name, `load (store layer, ${backend.parallel} transaction${backend.parallel > 1 ? 's' : ''} at a time), s`, f(loaded.loaded.seconds, 1), f(empty.loaded.seconds, 3), '-'],
        row('start to first DNS answer, s', (s) => s.startSeconds),
        row('start to every zone in memory, s', (s) => s.loadedSeconds),
        row('resident with every zone in memory, MiB', (s) => s.rss, 0),
        row('peak resident, MiB', (s) => s.hwm, 0),
        row(`list ${RECORDS_PER_DOMAIN} records, interface A, ms (median)`, (s) => s.listA),
        row(`list ${RECORDS_PER_DOMAIN} records, interface B, ms (median)`, (s) => s.listB),
        row('DNS query p50, ms', (s) => s.queryP50, 3),
        row('DNS query p99, ms', (s) => s.queryP99, 3),
        row('DNS query asked again p50, ms', (s) => s.againP50, 3),
        row('DNS query asked again p99, ms', (s) => s.againP99, 3),
      );
    }
    if (haveProgram('knotd')) {
      log(`  knotd: ${domains * RECORDS_PER_DOMAIN} records in one zone`);
      const knot = await measureKnot(domains, opts.quick);
      const floor = existsSync(NATIVE_MODULE) ? await measureFloor(domains, opts.quick) : undefined;
      if (!floor) notes.push(`batched floor: skipped, the native module is not built (${NATIVE_MODULE} missing: npm run build:native)`);
      // The ratios are zonehost / knotd and floor / knotd.
      const ref = (what: string, pick: (s: KnotServed) => number, digits: number, floorValue?: number) => {
        const [ours, theirs] = [sqliteLoaded ? pick(sqliteLoaded) : undefined, pick(knot)];
        const floorCells = floorValue === undefined ? ['-', '-'] : [f(floorValue, digits), f(floorValue / theirs)];
        knotRows.push([what, ours === undefined ? '-' : f(ours, digits), f(theirs, digits), ours === undefined ? '-' : f(ours / theirs), ...floorCells]);
      };
      ref('start to first DNS answer, s', (s) => s.startSeconds, 2);
      ref('resident, MiB', (s) => s.rss, 0);
      ref('DNS query p50, ms', (s) => s.queryP50, 3, floor?.p50);
      ref('DNS query p99, ms', (s) => s.queryP99, 3, floor?.p99);
    } else notes.push('knotd reference: skipped, knotd is missing (Debian package knot)');
  } finally {
    dir.remove();
  }
  return [
    `Scale: ${domains.toLocaleString('en')} domains × ${RECORDS_PER_DOMAIN} A records (${(domains * RECORDS_PER_DOMAIN).toLocaleString('en')}) vs. one such domain ("empty"); loaded straight through the store layer (no journal), served by \`zonehost serve\` as a child (memory from its /proc); queries over UDP from this process, one in flight, spread over every zone, from ${SOCKETS} sockets taking turns (spread over the servers' threads as many clients are)`,
    table(['store', 'measure', 'loaded', 'empty', 'loaded/empty'], rows),
    ...(knotRows.length ? [`Reference, same run: knotd serving the same ${(domains * RECORDS_PER_DOMAIN).toLocaleString('en')} names as one zone, from a zone file (its memory from /proc once it answers)`, table(['measure', 'zonehost (SQLite)', 'knotd', 'zonehost/knotd', 'Node.js batched floor', 'floor/knotd'], knotRows), `Node.js batched floor: one thread sending each query back through native/udp-batch, no DNS work (bench/dns/udp-floor-batched.mjs), asked the same way: the least a round trip to a Node.js process takes here`] : []),
    `targets: ${TARGETS}`,
    ...notes,
  ].join('\n');
}
