/**
 * `npm run bench [-- --quick] [-- SUITE…]`: runs the benchmark suites (all by default), each of which
 * starts what it needs on loopback, stops it again, and prints our figures next to the reference's from
 * the same run. `--quick` is a short smoke run (CI); figures are reported, never asserted.
 */
import { cpus, totalmem } from 'node:os';
import { apiBenchmark } from './api/index.js';
import { catalogBenchmark } from './catalog/index.js';
import { dnsBenchmark } from './dns/index.js';
import { dnssecBenchmark } from './dnssec/index.js';
import { importBenchmark } from './import/index.js';
import { propagationBenchmark } from './propagation/index.js';
import { rrlBenchmark } from './rrl/index.js';
import { scaleBenchmark } from './scale/index.js';
import { steeringBenchmark } from './dns/steering.js';
import { updateBenchmark } from './update/index.js';
import type { BenchOptions } from './support.js';

type Suite = (opts: BenchOptions, log: (line: string) => void) => Promise<string>;

const SUITES: Record<string, Suite> = {
  api: apiBenchmark,
  catalog: catalogBenchmark,
  dns: dnsBenchmark,
  dnssec: dnssecBenchmark,
  import: importBenchmark,
  propagation: propagationBenchmark,
  rrl: rrlBenchmark,
  scale: scaleBenchmark,
  steering: steeringBenchmark,
  update: updateBenchmark,
};

const args = process.argv.slice(2);
const unknown = args.filter((a) => a.startsWith('-') && a !== '--quick');
const chosen = args.filter((a) => !a.startsWith('-'));
const wrong = chosen.filter((name) => !(name in SUITES));
if (unknown.length || wrong.length) {
  process.stderr.write(`usage: npm run bench -- [--quick] [${Object.keys(SUITES).join('|')}]…\n`);
  process.exit(2);
}
const opts: BenchOptions = { quick: args.includes('--quick') };
const log = (line: string) => process.stderr.write(`${line}\n`);

const cpu = cpus()[0]?.model ?? 'unknown CPU';
process.stdout.write(`zonehost benchmarks${opts.quick ? ' (quick)' : ''}: ${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}\n\n`);
for (const name of chosen.length ? chosen : Object.keys(SUITES)) {
  log(`${name}:`);
  const report = await (SUITES[name] as Suite)(opts, log);
  process.stdout.write(`${report}\n\n`);
}
