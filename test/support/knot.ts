/**
 * Runs a real Knot DNS server (Debian `knot`) for a test: a temporary directory with its configuration,
 * zone files, database and control socket, listening on a loopback address. Peers that must be reached
 * on the standard port (NOTIFY to a secondary, AXFR from a primary, both of which our `axfr`/`master_ips`
 * lists name by address only) get a spare loopback address with port 53.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseDig, type DigAnswer } from '../dns/support.js';
import { daemon } from './daemon.js';
import type { TestServer } from './server.js';

const run = promisify(execFile);

export interface KnotOptions {
  /** Loopback address to listen on (and to send from: `via` of every remote). */
  address: string;
  /** Defaults to 53. */
  port?: number;
  /**
   * The `remote:`, `acl:` and `zone:` sections (YAML); `{dir}` stands for the temporary directory,
   * `{address}` for the listen address.
   */
  config: string;
  /** Zone files to write into the directory before start, by file name. */
  files?: Record<string, string>;
}

export interface Knot {
  address: string;
  port: number;
  dir: string;
  /** Runs knotc against this server and returns its output. */
  knotc(...args: string[]): Promise<string>;
  /** Replaces a file in the directory (e.g. a new version of a zone file). */
  writeFile(name: string, content: string): void;
  /** Output knotd has logged so far (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

export async function startKnot(opts: KnotOptions): Promise<Knot> {
  const port = opts.port ?? 53;
  const dir = mkdtempSync(join(tmpdir(), 'zonehost-knot-'));
  for (const [name, content] of Object.entries(opts.files ?? {})) writeFileSync(join(dir, name), content);
  const body = opts.config.replaceAll('{dir}', dir).replaceAll('{address}', opts.address);
  const conf = join(dir, 'knot.conf');
  writeFileSync(
    conf,
    `server:
    rundir: "${dir}"
    listen: ${opts.address}@${port}
    background-workers: 1
    udp-workers: 1
    tcp-workers: 1
database:
    storage: "${dir}"
control:
    listen: "${join(dir, 'knot.sock')}"
log:
  - target: stderr
    any: debug
${body}
`,
  );
  const knotc = async (...args: string[]) => (await run('knotc', ['-c', conf, ...args], { timeout: 10_000 })).stdout;
  // Ready when the control socket answers.
  const { log, stop } = await daemon('knotd', ['-c', conf], dir, () => knotc('status').then(() => true, () => false), 10_000);
  return {
    address: opts.address,
    port,
    dir,
    knotc,
    writeFile: (name, content) => writeFileSync(join(dir, name), content),
    log,
    stop,
  };
}

/** A TSIG key as knotd's configuration names it (its id is the key's name). */
export interface KnotKey {
  name: string;
  algorithm: string;
  secret: string;
}

/** The `key:` section for `key` (empty without one). */
const keySection = (key?: KnotKey): string => (key ? `key:\n  - id: ${key.name}\n    algorithm: ${key.algorithm}\n    secret: ${key.secret}\n` : '');

/**
 * The start of a secondary's `key:`, `remote:` and `acl:` sections for zonehost as its primary: the remote
 * `zonehost` (its queries and transfers signed with `key` when given) and the acl `notify_from_zonehost`.
 * More acl entries may follow.
 */
export const zonehostPrimary = (server: Pick<TestServer, 'dnsAddress'>, key?: KnotKey): string => `${keySection(key)}remote:
  - id: zonehost
    address: 127.0.0.1@${server.dnsAddress?.port}
    via: {address}${key ? `\n    key: ${key.name}` : ''}
acl:
  - id: notify_from_zonehost
    address: 127.0.0.0/8
    action: notify
`;

/**
 * A Knot primary for one zone: serves `zone` from `zoneFile` (written as `<zone>.zone`, replace it with
 * writeFile), lets all of 127.0.0.0/8 transfer it, and sends NOTIFY to our DNS port on 127.0.0.1. With
 * `key`, transfers need it and NOTIFY is signed with it.
 */
export function startPrimary(address: string, zone: string, zoneFile: string, notifyPort: number | undefined, key?: KnotKey): Promise<Knot> {
  const signed = key ? `\n    key: ${key.name}` : '';
  return startKnot({
    address,
    files: { [`${zone}.zone`]: zoneFile },
    config: `${keySection(key)}remote:
  - id: zonehost
    address: 127.0.0.1@${notifyPort}
    via: {address}${signed}
acl:
  - id: xfr
    address: 127.0.0.0/8${signed}
    action: transfer
zone:
  - domain: ${zone}
    file: "{dir}/${zone}.zone"
    notify: zonehost
    acl: xfr
    zonefile-sync: -1
    journal-content: none
`,
  });
}

/** Runs kdig against a Knot server (never spawnSync: the server under test runs in this process). */
export async function kdigAt(knot: Pick<Knot, 'address' | 'port'>, ...args: string[]): Promise<DigAnswer> {
  const { stdout } = await run('kdig', ['-p', String(knot.port), `@${knot.address}`, '+norec', '+time=2', '+retry=0', ...args], { timeout: 15_000 });
  return parseDig(stdout);
}

/** A zone transfer from our server to kdig bound to `from`: status ("NOERROR", "REFUSED", ...) and the records, one "name type data" per line. */
export async function transfer(server: Pick<TestServer, 'dnsAddress'>, from: string, ...args: string[]): Promise<{ status: string; records: string[]; raw: string }> {
  const port = String(server.dnsAddress?.port);
  const res = await run('kdig', ['-b', from, '-p', port, '@127.0.0.1', '+time=3', '+retry=0', ...args], { timeout: 20_000 }).catch(
    (e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }),
  );
  const raw = res.stdout;
  const records = raw
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith(';'))
    .map((l) => {
      const [name = '', , , type = '', ...rest] = l.split(/\s+/);
      return `${name.toLowerCase()} ${type} ${rest.join(' ')}`;
    });
  // kdig reports a failed transfer on stderr: ";; ERROR: server replied with error 'REFUSED'".
  const status = /replied with error '(\w+)'/.exec(res.stderr)?.[1] ?? /status: (\w+)/.exec(raw)?.[1] ?? (records.length > 0 ? 'NOERROR' : 'NONE');
  return { status, records, raw };
}

/** Polls `check` until it returns true; throws with `what` after `ms`. */
export async function eventually(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
