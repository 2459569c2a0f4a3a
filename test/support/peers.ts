/**
 * The programs outside Node.js that tests drive (the "peers": DNS servers and clients, validators, ACME
 * clients, a browser), each with the Debian package that brings it — `npm run peers` (.ci/peers) installs
 * them all — and the guards that skip what needs a missing one. Under ZONEHOST_REQUIRE_PEERS=1 (.ci/run) a
 * missing peer fails the test file instead, so CI never skips silently. Every skip keeps its reasons in the
 * task's meta (SKIP_REASONS), which test/support/skip-summary.ts counts and prints once at the end of the run.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, it, type TestFunction, type TestOptions } from 'vitest';
import { getCurrentSuite } from 'vitest/suite';
import { SKIP_REASONS } from './skip-summary.js';

/** Debian's interpreter, where the python3-* packages install their modules (a pyenv python3 may come first in PATH). */
export const PYTHON = '/usr/bin/python3';

interface Peer {
  /** The Debian package that installs it (listed in .ci/peers). */
  package: string;
  /** Found when this Python module imports under PYTHON; else when `file` exists; else when on PATH. */
  python?: string;
  file?: string;
}

/** Program (or Python module, or backend) → the package that brings it and how to find it. */
export const PEERS = {
  knotd: { package: 'knot' },
  knotc: { package: 'knot' },
  kdig: { package: 'knot-dnsutils' },
  knsupdate: { package: 'knot-dnsutils' },
  dig: { package: 'bind9-dnsutils' },
  delv: { package: 'bind9-dnsutils' },
  nsupdate: { package: 'bind9-dnsutils' },
  named: { package: 'bind9' },
  'named-checkzone': { package: 'bind9-utils' },
  'named-compilezone': { package: 'bind9-utils' },
  'dnssec-verify': { package: 'bind9-utils' },
  'dnssec-dsfromkey': { package: 'bind9-utils' },
  'unbound-host': { package: 'unbound-host' },
  'ldns-verify-zone': { package: 'ldnsutils' },
  faketime: { package: 'faketime' },
  pebble: { package: 'pebble' },
  lego: { package: 'lego' },
  certbot: { package: 'certbot' },
  chromium: { package: 'chromium', file: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' },
  pdns_server: { package: 'pdns-server' },
  pdnsutil: { package: 'pdns-server' },
  'pdns gsqlite3 backend': { package: 'pdns-backend-sqlite3', file: '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql' },
  openssl: { package: 'openssl' },
  curl: { package: 'curl' },
  'python3 lexicon': { package: 'python3-lexicon', python: 'lexicon' },
  'python3 libcloud': { package: 'python3-libcloud', python: 'libcloud' },
  'python3 certbot_dns_linode': { package: 'python3-certbot-dns-linode', python: 'certbot_dns_linode' },
  'python3 certbot_dns_rfc2136': { package: 'python3-certbot-dns-rfc2136', python: 'certbot_dns_rfc2136' },
} satisfies Record<string, Peer>;

export type Program = keyof typeof PEERS;


const onPath = (program: string): boolean =>
  (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });

const found = new Map<Program, boolean>();

/** Whether `program` is installed (asked once per worker: a Python import takes a moment). */
export function installed(program: Program): boolean {
  let is = found.get(program);
  if (is === undefined) {
    const peer: Peer = PEERS[program];
    if (peer.python) is = spawnSync(PYTHON, ['-c', `import ${peer.python}`], { stdio: 'ignore' }).status === 0;
    else if (peer.file) is = existsSync(peer.file);
    else is = onPath(program);
    found.set(program, is);
  }
  return is;
}

/** "knotd is missing (Debian package knot)". */
export const missingReason = (program: Program): string => `${program} is missing (Debian package ${PEERS[program].package})`;

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
  const reasons = programs.filter((p) => !installed(p)).map(missingReason);
  if (reasons.length > 0 && process.env.ZONEHOST_REQUIRE_PEERS === '1') {
    throw new Error(`ZONEHOST_REQUIRE_PEERS=1, and ${reasons.join(', ')}: npm run peers installs every peer`);
  }
  return skipFor(reasons);
}
