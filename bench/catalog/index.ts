/**
 * Catalog zone (issue 20): the time from an API call to the first right answer from a knotd that provisions
 * its zones from our catalog (`catalog-role: interpret`): N domains created through interface A one at a
 * time, each until knotd answers its SOA with authority, then the same N deleted one at a time, each until
 * knotd refuses it (or answers NXDOMAIN). The catalog grows to N members and shrinks again. This process
 * polls knotd over UDP, one query in flight. One unmeasured domain goes first.
 *
 * knotd answers every ordinary query for a catalog zone itself with REFUSED over UDP (Knot 3.2
 * process_query.c: "Allow normal queries to catalog only if not UDP and if allowed by ACL"), so its
 * catalog is never polled: a member being served is what shows the catalog arrived.
 */
import { performance } from 'node:perf_hooks';
import { RCODE } from '../../src/dns/wire/message.js';
import { forEachStore, haveProgram, sleep, startKnotd, table, tempDir, waitFor, type BenchOptions, type Child } from '../support.js';
import { addUser, apiKey, percentile, resolver, serve, v3, type Reply, type Resolver } from '../propagation/zonehost.js';
import { knotCatalogConfig } from '../../test/support/knot-catalog.js';

const CATALOG = 'catalog.zonehost.invalid';
/** The consumer's address: NOTIFY goes to port 53 of the --catalog-axfr addresses; no test or other suite uses this one. */
const CONSUMER = '127.0.42.1';
/** A change not seen within this long counts as missed (and is left out of the percentiles). */
const GIVE_UP_MS = 10_000;
const TARGET_MS = 1000;
/** Pause between polls: keeps the poller from taking a core from knotd and zonehost; bounds the error of each figure. */
const POLL_MS = 1;

/** knotd reading our catalog, configured as the tests' consumer is; members get a template with zonehost as their primary. */
function startConsumer(dir: string, primaryPort: number): Child {
  return startKnotd(dir, `${CONSUMER}@53`, knotCatalogConfig(CATALOG, `127.0.0.1@${primaryPort}`, CONSUMER, dir));
}

/** knotd serves `zone`: NOERROR with AA and the zone's SOA. */
const serving = (zone: string) => (r: Reply | null) =>
  r !== null && r.rcode === RCODE.NOERROR && r.aa && r.answers.some((a) => a.type === 'SOA' && a.name.toLowerCase() === zone);
/** knotd no longer has `zone`: REFUSED (not a zone of its own) or NXDOMAIN. */
const gone = (r: Reply | null) => r !== null && (r.rcode === RCODE.REFUSED || r.rcode === RCODE.NXDOMAIN);

/** Milliseconds from `start` until `right` holds for knotd's answer to `zone` SOA, or null when it gave up. */
async function until(r: Resolver, zone: string, right: (reply: Reply | null) => boolean, start: number): Promise<number | null> {
  while (performance.now() - start < GIVE_UP_MS) {
    if (right(await r.ask(zone, 'SOA', 500))) return performance.now() - start;
    await sleep(POLL_MS);
  }
  return null;
}

interface Samples {
  created: number[];
  deleted: number[];
  missed: { created: number; deleted: number };
}

async function measure(db: string, domains: number, log: (line: string) => void): Promise<Samples> {
  addUser(db);
  const zh = await serve(db, undefined, ['--catalog', CATALOG, '--catalog-axfr', CONSUMER]);
  const dir = tempDir('zonehost-catalogbench-');
  const consumer = resolver(CONSUMER, 53);
  let knot: Child | undefined;
  try {
    const key = await apiKey(zh.url);
    const create = async (zone: string) =>
      (await v3(zh.url, { api_action: 'domain.create', api_key: key, Domain: zone, Type: 'master', SOA_Email: `hostmaster@${zone}` })).DomainID as number;
    const remove = (id: number) => v3(zh.url, { api_action: 'domain.delete', api_key: key, DomainID: id });

    knot = startConsumer(dir.path, zh.dnsPort);
    const k = knot;
    /** knotd's answer to `zone` SOA, once it has not exited. */
    const ask = async (zone: string) => {
      if (k.proc.exitCode !== null) throw new Error(`knotd exited: ${k.output()}`);
      return consumer.ask(zone, 'SOA', 300);
    };
    // Any answer (REFUSED for the catalog, see above) shows knotd listens.
    await waitFor(() => `knotd to answer on ${CONSUMER}@53 (${k.output()})`, async () => (await ask(CATALOG)) !== null);
    // Not measured: the catalog's first transfer, and knotd's first catalog change after its start-up. A
    // consumer that never follows is a broken run, not a missed sample.
    const warm = 'warm.catalog.example';
    const warmId = await create(warm);
    await waitFor(() => `knotd to serve ${warm} from the catalog (${k.output()})`, async () => serving(warm)(await ask(warm)));

    const s: Samples = { created: [], deleted: [], missed: { created: 0, deleted: 0 } };
    const ids: [string, number][] = [];
    for (let i = 0; i < domains; i++) {
      const zone = `d${i}.catalog.example`;
      const start = performance.now();
      ids.push([zone, await create(zone)]);
      const ms = await until(consumer, zone, serving(zone), start);
      if (ms === null) s.missed.created++;
      else s.created.push(ms);
    }
    for (const [zone, id] of ids) {
      const start = performance.now();
      await remove(id);
      const ms = await until(consumer, zone, gone, start);
      if (ms === null) s.missed.deleted++;
      else s.deleted.push(ms);
    }
    await remove(warmId);
    log(`  ${domains} domains: created p50 ${percentile(s.created, 50).toFixed(1)} ms, deleted p50 ${percentile(s.deleted, 50).toFixed(1)} ms`);
    return s;
  } finally {
    consumer.close();
    await knot?.stop();
    await zh.stop();
    dir.remove();
  }
}

export async function catalogBenchmark(opts: BenchOptions, log: (line: string) => void): Promise<string> {
  if (!haveProgram('knotd')) return 'Catalog: skipped, knotd is missing (Debian package knot)';
  const domains = opts.quick ? 10 : 200;
  const rows: string[][] = [];
  const notes: string[] = [];
  await forEachStore('catalog', log, notes, async (backend, db) => {
    const s = await measure(db, domains, log);
    const ms = (xs: number[], p: number) => (xs.length ? percentile(xs, p).toFixed(1) : '-');
    const pair = (a: number, b: number) => (a + b ? `${a}/${b}` : '0');
    const over = (xs: number[]) => xs.filter((x) => x >= TARGET_MS).length;
    rows.push([backend, String(domains), ms(s.created, 50), ms(s.created, 99), ms(s.deleted, 50), ms(s.deleted, 99), pair(over(s.created), over(s.deleted)), pair(s.missed.created, s.missed.deleted)]);
  });
  return [
    `Catalog zone: ms from an interface A call (domain.create, domain.delete) being sent until a knotd consumer (${CONSUMER}@53, catalog-role: interpret, fed by our NOTIFY) answers the member's SOA with authority (created) or refuses it (deleted); polled over UDP every ${POLL_MS} ms, one domain at a time, the catalog growing to that many members and shrinking again`,
    table(['store', 'domains', 'created p50', 'created p99', 'deleted p50', 'deleted p99', `≥ ${TARGET_MS} ms created/deleted`, 'missed created/deleted'], rows),
    `target: p99 < ${TARGET_MS} ms with knotd, created and deleted (a change not seen within ${GIVE_UP_MS / 1000} s counts as missed)`,
    ...notes,
  ].join('\n');
}
