/**
 * A reporter beside vitest's default one: at the end of the run, one summary of the tests skipped for a
 * reason the guards of test/support/peers.ts recorded (a missing program and its Debian package, no
 * DATABASE_URL, …), with how many tests and files each reason skipped.
 */
import { relative } from 'node:path';
import type { Reporter, TestCase, TestModule, TestSuite } from 'vitest/node';

/** The meta key under which a skipped test or suite keeps its reasons (one per missing program). */
export const SKIP_REASONS = 'skipReasons';

/** The reasons recorded on the test or on the nearest suite above it that has some. */
function reasonsOf(test: TestCase): string[] {
  for (let task: TestCase | TestSuite | TestModule = test; task.type !== 'module'; task = task.parent) {
    const reasons = task.meta()[SKIP_REASONS as never] as string[] | undefined;
    if (reasons) return reasons;
  }
  return [];
}

export default class SkipSummary implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const byReason = new Map<string, { tests: number; files: Set<string> }>();
    for (const module of modules) {
      for (const test of module.children.allTests('skipped')) {
        for (const reason of reasonsOf(test)) {
          const entry = byReason.get(reason) ?? { tests: 0, files: new Set() };
          entry.tests += 1;
          entry.files.add(relative(process.cwd(), module.moduleId));
          byReason.set(reason, entry);
        }
      }
    }
    if (byReason.size === 0) return;
    const lines = [...byReason].sort(([a], [b]) => a.localeCompare(b)).map(([reason, { tests, files }]) => `  ${reason}: ${tests} test(s) in ${files.size} file(s)`);
    const hint = 'npm run peers installs every missing program; ZONEHOST_REQUIRE_PEERS=1 fails instead of skipping';
    process.stdout.write(`\nSkipped, and why (${hint}):\n${lines.join('\n')}\n`);
  }
}
