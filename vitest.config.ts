import { defineConfig } from 'vitest/config';

/**
 * The DNS tests of what travels over UDP (serving, EDNS and truncation, hostile packets, transfers and their
 * NOTIFY, UPDATE, threads, cookies, rate limiting, the paths themselves), run a second time on Node.js's dgram path: the first run
 * takes the batched path (the native module, --udp-batch 64) wherever it is built.
 */
const OVER_UDP = ['serving', 'robustness', 'udp-paths', 'threads', 'transfer', 'update-hostile', 'tsig', 'cookies', 'rrl'].map((name) => `test/dns/${name}.test.ts`);

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests start servers and real DNS peers; keep them from fighting over the two cores.
    fileParallelism: true,
    maxWorkers: 2,
    // Each worker process runs file after file without loading every module anew: the suite's test files start
    // servers of their own and share no state through modules, and loading (Fastify, the store, the whole of src
    // through vite-node) per file was a third of the suite's time.
    isolate: false,
    minWorkers: 1,
    // After the default report, one summary of what was skipped for a missing program (test/support/peers.ts).
    reporters: ['default', './test/support/skip-summary.ts'],
    projects: [
      { extends: true, test: { name: 'zonehost', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'dns over dgram', include: OVER_UDP, env: { ZONEHOST_UDP_BATCH: '0' } } },
    ],
  },
});
