import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests start servers and real DNS peers; keep them from fighting over the two cores.
    fileParallelism: true,
    maxWorkers: 2,
    minWorkers: 1,
    // After the default report, one summary of what was skipped for a missing program (test/support/peers.ts).
    reporters: ['default', './test/support/skip-summary.ts'],
  },
});
