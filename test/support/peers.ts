/**
 * The guards of tests that need a peer (test/support/peer-table.ts: the programs and their Debian packages):
 * they skip what needs a missing one. Under ZONEHOST_REQUIRE_PEERS=1 (.ci/run) a
 * missing peer fails the test file instead, so CI never skips silently. Every skip keeps its reasons in the
 * task's meta (SKIP_REASONS), which test/support/skip-summary.ts counts and prints once at the end of the run.
 */
import { describe, it, type TestFunction, type TestOptions } from 'vitest';
import { getCurrentSuite } from 'vitest/suite';
import { installed, missingReason, type Program } from './peer-table.js';
import { SKIP_REASONS } from './skip-summary.js';

type SuiteArgs = [fn: () => void] | [options: TestOptions, fn: () => void];
type TestArgs = [fn: TestFunction] | [fn: TestFunction, timeout: number] | [options: TestOptions, fn: TestFunction];

/** describe and it that run as usual, or — with a reason — are skipped and keep the reason for the summary. */
export interface Guard {
  /** Why the guarded tests are skipped, or null when they run. */
  reason: string | null;
  describe(name: string, ...args: SuiteArgs): void;
  it(name: string, ...args: TestArgs): void;
}

/** A guard skipping for `reasons` (none: nothing skipped). */
function skipFor(reasons: string[]): Guard {
  const reason = reasons.length === 0 ? null : reasons.join('; ');
  return {
    reason,
    describe(name, ...args) {
      if (reason === null) return void describe(name, ...(args as [TestOptions, () => void]));
      const body = args[args.length - 1] as () => void;
      // A skipped suite's body still runs, to collect its tests as skipped: it marks the suite on the way.
      describe.skip(name, () => {
        const suite = getCurrentSuite().suite;
        if (suite) Object.assign(suite.meta, { [SKIP_REASONS]: reasons });
        body();
      });
    },
    it(name, ...args) {
      if (reason === null) return void it(name, ...(args as [TestOptions, TestFunction]));
      getCurrentSuite().task(name, { skip: true, meta: { [SKIP_REASONS]: reasons } });
    },
  };
}

/**
 * The guard of tests that run `programs`: skipped when one is missing, failing instead when
 * ZONEHOST_REQUIRE_PEERS=1 (thrown while the file is collected, so the whole file fails naming them).
 */
export function peers(...programs: Program[]): Guard {
  return requiring(programs.filter((p) => !installed(p)).map(missingReason));
}

/**
 * The guard of tests that need something else a machine may lack (the native UDP module, built by npm ci
 * where g++ is installed): `missing` says what and why, or is null. Required like a peer under
 * ZONEHOST_REQUIRE_PEERS=1.
 */
export function needs(missing: string | null): Guard {
  return requiring(missing === null ? [] : [missing]);
}

/**
 * The guard of tests that need something no Debian package brings and CI therefore cannot install (ISC's
 * genreport, built from its source): skipped with `missing` as the reason, even under ZONEHOST_REQUIRE_PEERS=1.
 * Use only where other tests cover the same ground with what CI has.
 */
export function optional(missing: string | null): Guard {
  return skipFor(missing === null ? [] : [missing]);
}

function requiring(reasons: string[]): Guard {
  if (reasons.length > 0 && process.env.ZONEHOST_REQUIRE_PEERS === '1') {
    throw new Error(`ZONEHOST_REQUIRE_PEERS=1, and ${reasons.join(', ')}: npm run peers installs every peer, npm ci builds the native module`);
  }
  return skipFor(reasons);
}
