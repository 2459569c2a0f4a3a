/**
 * Response rate limiting (issue 29): the flood an amplification attack sends, against zonehost (its defaults:
 * --rrl-rate 200, --rrl-slip 2, one thread per core) and against knotd with mod-rrl at the same rate and slip
 * (its default workers), in the same run. One address (127.0.0.2) sends copies of one query at 1,000 a second
 * from several source ports (so the kernel spreads them over the threads), while an address of another network
 * (127.0.1.3) asks the same question 20 times a second. Counted: full answers, slipped (TC) ones, no reply, the
 * full answers in the flood's last second (the steady rate), and the other network's answers; and when the last
 * reply came (a loaded machine answers a flood later than it was sent, and the rate applies to that time).
 * Beside them, what the limiter costs a query on its own: RateLimiter.verdict timed in this process.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import dnsPacket from 'dns-packet';
import { DEFAULT_RRL, RateLimiter, rrlTable } from '../../src/dns/server/rrl.js';
import { flood, type FloodCount } from '../../test/support/flood.js';
import { addUser, apiKey, resolver, serve, v3 } from '../propagation/zonehost.js';
import { freePort, haveProgram, sleep, startKnotd, table, tempDir, waitFor, type BenchOptions } from '../support.js';

const ZONE = 'rrl.example';
const NAME = `www.${ZONE}`;
const RATE = 200;
const SLIP = 2;
const PER_SECOND = 1000;
const INNOCENT_PER_SECOND = 20;
/** Source ports of the flood. */
const SOCKETS = 8;

interface Round {
  attack: FloodCount;
  innocent: FloodCount;
}

const query = dnsPacket.encode({ type: 'query', id: 1, flags: 0, questions: [{ name: NAME, type: 'A', class: 'IN' }] });

/** The flood and, at the same time, the other network's questions, against `port`. */
async function round(port: number, seconds: number): Promise<Round> {
  const [attack, innocent] = await Promise.all([
    flood({ port, from: '127.0.0.2', query, perSecond: PER_SECOND, seconds, sockets: SOCKETS }),
    flood({ port, from: '127.0.1.3', query, perSecond: INNOCENT_PER_SECOND, seconds }),
  ]);
  return { attack, innocent };
}

/**
 * Nanoseconds per RateLimiter.verdict (the median of 5 rounds of a million), over `classes` answer classes and
 * 64 IPv4 networks in batches of 64, none limited (a rate no class reaches): what counting costs every answer.
 */
function limiterCost(classes: number): number {
  const table = rrlTable({ ...DEFAULT_RRL, rate: 1_000_000 });
  if (!table) throw new Error('RRL is off');
  const limiter = new RateLimiter(table, () => undefined);
  const from = { bytes: new Uint8Array(16 * 64), at: 0, receivedAt: Date.now(), address: () => '' };
  for (let i = 0; i < 64; i++) from.bytes.set([0xff, 0xff, 10, i, 0, 1], 16 * i + 10);
  const N = 1_000_000;
  const times: number[] = [];
  for (let round = 0; round < 5; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < N; i++) {
      from.at = 16 * (i & 63);
      // A batch of 64 reads the clock once.
      if (from.at === 0) from.receivedAt = Date.now();
      limiter.verdict(Math.imul(i, 0x9e3779b1) % classes, from, false);
    }
    times.push(Number(process.hrtime.bigint() - start) / N);
  }
  return [...times].sort((a, b) => a - b)[2] as number;
}

export async function rrlBenchmark(opts: BenchOptions, log: (line: string) => void): Promise<string> {
  const missing = ['knotd'].filter((p) => !haveProgram(p));
  if (missing.length) return `RRL: skipped, missing ${missing.join(', ')} (Debian package knot)`;
  const seconds = opts.quick ? 3 : 10;
  const rounds = opts.quick ? 1 : 3;
  const dir = tempDir('zonehost-rrlbench-');
  const results = new Map<string, Round[]>();
  try {
    const db = `sqlite:${join(dir.path, 'bench.db')}`;
    addUser(db);
    // RRL as it comes (serve() turns it off for the other suites): the defaults, said out loud.
    const zh = await serve(db, undefined, ['--rrl-rate', String(RATE), '--rrl-slip', String(SLIP)]);
    const knotPort = await freePort();
    writeFileSync(join(dir.path, `${ZONE}.zone`), `$ORIGIN ${ZONE}.\n$TTL 300\n@ SOA ns1 hostmaster 1 3600 600 86400 300\n@ NS ns1\nns1 A 192.0.2.53\nwww A 192.0.2.1\n`);
    const knot = startKnotd(dir.path, `127.0.0.1@${knotPort}`, `mod-rrl:
  - id: flood
    rate-limit: ${RATE}
    slip: ${SLIP}
template:
  - id: default
    storage: "${dir.path}"
    global-module: mod-rrl/flood
zone:
  - domain: ${ZONE}
    file: "${ZONE}.zone"
`);
    try {
      const key = await apiKey(zh.url);
      const id = (await v3(zh.url, { api_action: 'domain.create', api_key: key, Domain: ZONE, Type: 'master', SOA_Email: `hostmaster@${ZONE}` })).DomainID as number;
      await v3(zh.url, { api_action: 'domain.resource.create', api_key: key, DomainID: id, Type: 'A', Name: 'www', Target: '192.0.2.1' });
      const servers = [
        { name: 'zonehost', port: zh.dnsPort },
        { name: 'knotd mod-rrl', port: knotPort },
      ];
      for (const s of servers) {
        const r = resolver('127.0.0.1', s.port);
        await waitFor(`${s.name} to answer`, async () => ((await r.query(NAME, 'A', 500)) ?? []).length > 0);
      }
      for (let i = 0; i < rounds; i++) {
        for (const s of servers) {
          // Every bucket drained first (knotd's hold four seconds of the rate).
          await sleep(6000);
          const r = await round(s.port, seconds);
          log(`  ${s.name}, round ${i + 1}: ${r.attack.answered} answered, ${r.attack.truncated} slipped of ${r.attack.sent}; other network ${r.innocent.answered} of ${r.innocent.sent}`);
          results.set(s.name, [...(results.get(s.name) ?? []), r]);
        }
      }
    } finally {
      await knot.stop();
      await zh.stop();
    }
  } finally {
    dir.remove();
  }
  const cost = [1, 4096].map((classes) => `${limiterCost(classes).toFixed(0)} ns over ${classes} class${classes > 1 ? 'es' : ''}`).join(', ');
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const rows = [...results].map(([name, rs]) => {
    const m = (f: (r: Round) => number) => String(median(rs.map(f)));
    return [
      name,
      m((r) => r.attack.sent),
      m((r) => r.attack.answered),
      m((r) => r.attack.truncated),
      m((r) => r.attack.sent - r.attack.answered - r.attack.truncated),
      m((r) => r.attack.answeredBySecond[0] ?? 0),
      m((r) => r.attack.answeredBySecond.at(-2) ?? 0),
      (median(rs.map((r) => r.attack.spanMs)) / 1000).toFixed(1),
      `${m((r) => r.innocent.answered)} of ${m((r) => r.innocent.sent)}`,
    ];
  });
  return [
    `RRL: one address (127.0.0.2, ${SOCKETS} source ports) sends one query ${PER_SECOND} times a second for ${seconds} s while 127.0.1.3 asks it ${INNOCENT_PER_SECOND} times a second; rate ${RATE}, slip ${SLIP} on both (zonehost's defaults, knotd's mod-rrl; median of ${rounds} alternating round${rounds > 1 ? 's' : ''})`,
    table(['server', 'sent', 'answered', 'slipped (TC)', 'no reply', 'answered in 1st s', 'answered in last full s', 'last reply after s', 'other network answered'], rows),
    `zonehost's limiter on its own (RateLimiter.verdict, 64 networks, median of 5 × 1,000,000 calls): ${cost} per answer`,
  ].join('\n');
}
