/**
 * DNS UPDATE throughput (issue 16): signed updates per second from 1 and 10 clients, each sending one
 * TSIG-signed (hmac-sha256) UPDATE over UDP and waiting for its answer before the next, against zonehost
 * (`zonehost serve`, the built CLI) and against knotd as the primary of the same zone with the same key,
 * in alternating rounds of the same run. Every message adds a record (A or TXT) at a name of its own or
 * deletes the record the previous one added, so the zone keeps its size. Answers are checked: NOERROR,
 * signed with the key over our request's MAC; anything else is counted as an error and reported loudly.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { tsigSecret, type TsigSecret } from '../../src/dns/wire/tsig.js';
import { RCODE } from '../../src/dns/wire/message.js';
import { Services, type Actor } from '../../src/services/index.js';
import { openStore } from '../../src/store/open.js';
import { forEachStore, freePort, haveProgram, startKnotd, table, tempDir, waitFor, type BenchOptions, type Child } from '../support.js';
import { PASSWORD, percentile, resolver, serve } from '../propagation/zonehost.js';
import { UpdateClient, type Change } from './client.js';

const ZONE = 'update.example';
const KEY_NAME = 'bench-update.key';
/** Records in the zone before the load (added by UPDATE to both servers), SEED_BATCH a message. */
const SEED = 200;
const SEED_BATCH = 50;
const LOADS = [1, 10] as const;

interface Server {
  name: string;
  port: number;
  stop(): Promise<void>;
}

interface LoadResult {
  seconds: number;
  ok: number;
  /** Errors by kind: an rcode's name, "timeout" (no answer within 2 s), "bad TSIG". */
  errors: Map<string, number>;
  latencies: number[];
}

const RCODE_NAMES = new Map<number, string>(Object.entries(RCODE).map(([name, code]) => [code, name]));
const TSIG_NAMES = new Map<number, string>([[16, 'BADSIG'], [17, 'BADKEY'], [18, 'BADTIME'], [22, 'BADTRUNC']]);
const rcodeName = (rcode: number) => TSIG_NAMES.get(rcode) ?? RCODE_NAMES.get(rcode) ?? `rcode ${rcode}`;

/** Answers SOA queries for ZONE yet? */
async function serving(port: number, child: Child): Promise<void> {
  const r = resolver('127.0.0.1', port);
  try {
    await waitFor(() => `${ZONE} SOA on port ${port} (${child.output()})`, async () => {
      if (child.proc.exitCode !== null) throw new Error(`exited: ${child.output()}`);
      return (await r.query(ZONE, 'SOA', 300)) !== null;
    });
  } finally {
    r.close();
  }
}

/** The user "bench", the zone and the TSIG key, made through the services (there is no API for keys yet); then `zonehost serve`. */
async function startZonehost(db: string, secret: string): Promise<Server> {
  const store = await openStore(db);
  try {
    const services = new Services(store);
    const account = await services.accounts.createUser('bench', PASSWORD);
    const actor: Actor = { accountId: account.id, userId: account.id, role: 'owner', username: 'bench', keyLabel: 'bench', iface: 'cli', remoteAddr: '' };
    const domain = await services.domains.create(actor, { domain: ZONE, kind: 'master', soaEmail: `hostmaster@${ZONE}` });
    await services.tsigKeys.create(actor, { name: KEY_NAME, algorithm: 'hmac-sha256', secret, domains: [domain.id], update: true });
  } finally {
    await store.close();
  }
  const zh = await serve(db);
  try {
    await serving(zh.dnsPort, zh.child);
  } catch (e) {
    await zh.stop();
    throw e;
  }
  return { name: 'zonehost', port: zh.dnsPort, stop: zh.stop };
}

/** knotd (default workers) as the primary of ZONE, updates allowed with the same key, its journal in `dir`. */
async function startKnot(dir: string, secret: string): Promise<Server> {
  const port = await freePort();
  writeFileSync(
    join(dir, `${ZONE}.zone`),
    `$ORIGIN ${ZONE}.
$TTL 3600
@ SOA ns1.${ZONE}. hostmaster.${ZONE}. 1 10800 3600 604800 3600
@ NS ns1.${ZONE}.
ns1 A 192.0.2.53
`,
  );
  const child = startKnotd(
    dir,
    `127.0.0.1@${port}`,
    `key:
  - id: ${KEY_NAME}
    algorithm: hmac-sha256
    secret: ${secret}
acl:
  - id: update
    key: ${KEY_NAME}
    action: update
template:
  - id: default
    storage: "${dir}"
    zonefile-sync: -1
zone:
  - domain: ${ZONE}
    file: "${ZONE}.zone"
    acl: update
`,
  );
  try {
    await serving(port, child);
  } catch (e) {
    await child.stop();
    throw e;
  }
  return { name: 'knotd', port, stop: () => child.stop() };
}

const address = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

/** The same SEED records on both servers, by UPDATE. */
async function seed(server: Server, key: TsigSecret): Promise<void> {
  const client = await UpdateClient.open('127.0.0.1', server.port, key, 5000);
  try {
    for (let i = 0; i < SEED; i += SEED_BATCH) {
      const changes: Change[] = [];
      for (let j = i; j < Math.min(SEED, i + SEED_BATCH); j++) changes.push({ op: 'add', name: `s${j}.${ZONE}`, type: j % 2 ? 'TXT' : 'A', data: j % 2 ? `seed ${j}` : address(j) });
      const o = await client.send(ZONE, changes);
      if (o.rcode !== RCODE.NOERROR || o.badSignature) throw new Error(`${server.name}: seeding answered ${o.rcode === null ? 'nothing' : rcodeName(o.rcode)}${o.badSignature ? ', badly signed' : ''}`);
    }
  } finally {
    client.close();
  }
}

/**
 * `clients` clients for `seconds`, each one UPDATE in flight: add a record at a fresh name, then delete it,
 * alternating A and TXT. `names` numbers the names, so no name is used twice on a server.
 */
async function load(server: Server, key: TsigSecret, clients: number, seconds: number, names: { next: number }): Promise<LoadResult> {
  const sockets = await Promise.all(Array.from({ length: clients }, () => UpdateClient.open('127.0.0.1', server.port, key)));
  const result: LoadResult = { seconds: 0, ok: 0, errors: new Map(), latencies: [] };
  const error = (kind: string) => result.errors.set(kind, (result.errors.get(kind) ?? 0) + 1);
  const start = performance.now();
  const deadline = start + seconds * 1000;
  try {
    await Promise.all(
      sockets.map(async (client) => {
        while (performance.now() < deadline) {
          const n = names.next++;
          const record: Omit<Change, 'op'> = n % 2 ? { name: `t${n}.${ZONE}`, type: 'TXT', data: `token ${n}` } : { name: `a${n}.${ZONE}`, type: 'A', data: address(n) };
          for (const op of ['add', 'delete'] as const) {
            if (op === 'delete' && performance.now() >= deadline) break;
            const o = await client.send(ZONE, [{ op, ...record }]);
            if (o.rcode === null) {
              error('timeout');
              continue;
            }
            result.latencies.push(o.ms);
            if (o.badSignature) error('bad TSIG');
            else if (o.rcode !== RCODE.NOERROR) error(rcodeName(o.rcode));
            else result.ok++;
          }
        }
      }),
    );
  } finally {
    result.seconds = (performance.now() - start) / 1000;
    for (const s of sockets) s.close();
  }
  return result;
}

const rate = (r: LoadResult) => r.ok / r.seconds;
const errorText = (r: LoadResult) => [...r.errors].map(([k, n]) => `${n} ${k}`).join(', ');

interface Case {
  store: string;
  clients: number;
  zonehost: LoadResult;
  knot: LoadResult;
}

/** Both servers on one store, the loads measured in alternating rounds; each figure is the round with the median rate. */
async function measure(store: string, db: string, opts: BenchOptions, log: (line: string) => void): Promise<Case[]> {
  const secret = randomBytes(32).toString('base64');
  const key = tsigSecret({ name: KEY_NAME, algorithm: 'hmac-sha256', secret });
  const seconds = opts.quick ? 2 : 10;
  const rounds = opts.quick ? 1 : 3;
  const dir = tempDir('zonehost-updatebench-knot-');
  const servers: Server[] = [];
  try {
    servers.push(await startZonehost(db, secret));
    servers.push(await startKnot(dir.path, secret));
    const names = new Map(servers.map((s) => [s, { next: 0 }]));
    for (const s of servers) await seed(s, key);
    if (!opts.quick) for (const s of servers) await load(s, key, 10, 2, names.get(s) as { next: number }); // warm-up
    const cases: Case[] = [];
    for (const clients of LOADS) {
      const runs = new Map<Server, LoadResult[]>(servers.map((s) => [s, []]));
      for (let round = 0; round < rounds; round++) {
        for (const s of servers) {
          const r = await load(s, key, clients, seconds, names.get(s) as { next: number });
          log(`  ${store}, ${s.name}, ${clients} client${clients > 1 ? 's' : ''}, round ${round + 1}: ${rate(r).toFixed(0)} updates/s, p50 ${percentile(r.latencies, 50).toFixed(2)} ms, p99 ${percentile(r.latencies, 99).toFixed(2)} ms${r.errors.size ? `, ERRORS: ${errorText(r)}` : ''}`);
          runs.get(s)?.push(r);
        }
      }
      const median = (rs: LoadResult[]) => [...rs].sort((a, b) => rate(a) - rate(b))[Math.floor(rs.length / 2)] as LoadResult;
      cases.push({ store, clients, zonehost: median(runs.get(servers[0] as Server) ?? []), knot: median(runs.get(servers[1] as Server) ?? []) });
    }
    return cases;
  } finally {
    for (const s of servers.reverse()) await s.stop();
    dir.remove();
  }
}

export async function updateBenchmark(opts: BenchOptions, log: (line: string) => void): Promise<string> {
  if (!haveProgram('knotd')) return 'UPDATE: skipped, knotd is missing (Debian package knot)';
  const cases: Case[] = [];
  const notes: string[] = [];
  await forEachStore('update', log, notes, async (store, db) => {
    cases.push(...(await measure(store, db, opts, log)));
  });
  const ms = (r: LoadResult) => `${percentile(r.latencies, 50).toFixed(2)} / ${percentile(r.latencies, 99).toFixed(2)}`;
  const rows = cases.map((c) => [c.store, `${c.clients}`, rate(c.zonehost).toFixed(0), ms(c.zonehost), rate(c.knot).toFixed(0), ms(c.knot), (rate(c.zonehost) / rate(c.knot)).toFixed(2), [errorText(c.zonehost), errorText(c.knot)].map((e) => e || '0').join(' / ')]);
  // Errors are loud: a wrong rcode or a bad signature from zonehost is a failure of the run, not a figure.
  const failed = cases.flatMap((c) => [
    ...(c.zonehost.errors.size ? [`zonehost (${c.store}, ${c.clients} clients): ${errorText(c.zonehost)}`] : []),
    ...(c.knot.errors.size ? [`knotd (${c.store}, ${c.clients} clients): ${errorText(c.knot)}`] : []),
  ]);
  if (cases.some((c) => [...c.zonehost.errors.keys()].some((k) => k !== 'timeout'))) process.exitCode = 1;
  const seconds = opts.quick ? 2 : 10;
  const rounds = opts.quick ? 1 : 3;
  return [
    `UPDATE: TSIG-signed (hmac-sha256) DNS UPDATEs over UDP, each client one in flight (add an A or TXT record at a new name, then delete it), ${seconds} s per load (median of ${rounds} alternating round${rounds > 1 ? 's' : ''}), a zone of ${SEED} records; knotd is the primary of the same zone with the same key (journal only, zonefile-sync -1, default workers); updates/s counts NOERROR answers with a good TSIG`,
    table(['store', 'clients', 'zonehost upd/s', 'p50 / p99 ms', 'knotd upd/s', 'p50 / p99 ms', 'zonehost/knotd', 'errors zonehost / knotd'], rows),
    'target: zonehost/knotd ≥ 1',
    ...failed.map((f) => `!!! ERRORS: ${f}`),
    ...notes,
  ].join('\n');
}
