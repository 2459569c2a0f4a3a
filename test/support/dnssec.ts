/** Validating resolvers from Debian's packages, anchored on a zone's DS records, pointed at a test server. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** "tag alg digest-type hex" of a DS record given as master-file text ("<zone>. TTL IN DS 1 13 2 AB CD") or as its data alone. */
export function dsData(record: string): string {
  const f = record.trim().split(/\s+/);
  const at = f.indexOf('DS');
  const [tag, alg, type, ...hex] = at >= 0 ? f.slice(at + 1) : f;
  return `${tag} ${alg} ${type} ${hex.join('')}`;
}

/** Runs `f` with a fresh temporary directory, removed afterwards. */
async function inTemp<T>(f: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'zonehost-validator-'));
  try {
    return await f(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const output = (p: Promise<{ stdout: string; stderr: string }>) => p.then((o) => `${o.stdout}${o.stderr}`, (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}`);

/**
 * `delv` (BIND) asking `at` for `name` `type`, with `zone`'s DS records as its only trust anchor: its output,
 * which says "; fully validated" or "; negative response, fully validated" when the answer validates. `extra`:
 * more options (`-b ADDRESS` to ask from another source address).
 */
export function delv(zone: string, ds: readonly string[], at: { host: string; port: number }, name: string, type: string, extra: readonly string[] = []): Promise<string> {
  return inTemp(async (dir) => {
    const file = join(dir, 'anchors.conf');
    const lines = ds.map(dsData).map((d) => {
      const [tag, alg, digestType, hex] = d.split(' ');
      return `  "${zone}." static-ds ${tag} ${alg} ${digestType} "${hex}";`;
    });
    writeFileSync(file, `trust-anchors {\n${lines.join('\n')}\n};\n`);
    return output(run('delv', ['-a', file, `+root=${zone}`, ...extra, `@${at.host}`, '-p', String(at.port), name, type], { timeout: 20_000 }));
  });
}

/** `unbound-host` with `zone` as a stub zone at `at` and its DS records as trust anchors: its output, "(secure)" when it validates. */
export function unboundHost(zone: string, ds: readonly string[], at: { host: string; port: number }, name: string, type: string): Promise<string> {
  return inTemp(async (dir) => {
    const conf = join(dir, 'unbound.conf');
    const anchors = ds.map((d) => `  trust-anchor: "${zone}. DS ${dsData(d)}"\n`).join('');
    writeFileSync(conf, `server:\n  do-not-query-localhost: no\n  use-syslog: no\n  chroot: ""\n  username: ""\n  directory: "${dir}"\n${anchors}stub-zone:\n  name: "${zone}."\n  stub-addr: ${at.host}@${at.port}\n`);
    return output(run('unbound-host', ['-C', conf, '-v', '-t', type, name], { timeout: 20_000 }));
  });
}
