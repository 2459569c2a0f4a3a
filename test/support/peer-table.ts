/**
 * The programs outside Node.js that tests drive (the "peers": DNS servers and clients, validators, ACME
 * clients, a browser), each with the Debian package that brings it — `npm run peers` (.ci/peers) installs
 * them all — and how to tell whether it is installed. Free of vitest, so scripts outside a test run
 * (test/panel/screenshots.ts) can use it; the guards tests go through are in peers.ts.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

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
  oathtool: { package: 'oathtool' },
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
