/** What every benchmark suite needs: free loopback ports, child processes it stops, temporary places, tables. */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createSocket, type Socket } from 'node:dgram';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { parsePostgresUrl } from '../src/store/postgres/dialect.js';

export interface BenchOptions {
  /** A short smoke run (CI): a few seconds per case. */
  quick: boolean;
}

export const ROOT = join(import.meta.dirname, '..');
export const ZONEHOST_BIN = join(ROOT, 'bin/zonehost.js');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
      .on('error', reject)
      .listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `check` until it is true. `what` names what it waits for in the error; as a function it is called
 * only on failure, so it can quote a child's output from then (not from when the wait began).
 */
export async function waitFor(what: string | (() => string), check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await sleep(100);
  }
}

const children = new Set<ChildProcess>();

/** Kills what is still running if the benchmark itself is interrupted or fails. */
function killAll(): void {
  for (const c of children) c.kill('SIGKILL');
}
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killAll();
    process.exit(130);
  });
}

export interface Child {
  proc: ChildProcess;
  /** The last lines it wrote on stderr/stdout, for error messages. */
  output(): string;
  /** SIGTERM, then SIGKILL after a grace period; resolves when it has exited. */
  stop(): Promise<void>;
}

export function startChild(command: string, args: string[], options: SpawnOptions = {}): Child {
  const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  children.add(proc);
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  proc.on('exit', () => children.delete(proc));
  return {
    proc,
    output: () => tail,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Starts knotd (default worker counts) serving `zone` from the master file `zoneFile` on a free loopback
 * port; returns at once, without waiting for it to answer.
 */
export async function spawnKnot(dir: string, zone: string, zoneFile: string): Promise<{ child: Child; port: number }> {
  const port = await freePort();
  writeFileSync(join(dir, `${zone}.zone`), zoneFile);
  const child = startKnotd(
    dir,
    `127.0.0.1@${port}`,
    `template:
  - id: default
    storage: "${dir}"
    zonefile-sync: -1
    journal-content: none
zone:
  - domain: ${zone}
    file: "${zone}.zone"
`,
  );
  return { child, port };
}

/** Starts knotd listening on `listen` (address@port) with its state in `dir`, warnings on stderr, and `zones` (the rest of its configuration). */
export function startKnotd(dir: string, listen: string, zones: string): Child {
  const conf = join(dir, 'knot.conf');
  writeFileSync(
    conf,
    `server:
    rundir: "${dir}"
    listen: ${listen}
database:
    storage: "${dir}"
control:
    listen: "${join(dir, 'knot.sock')}"
log:
  - target: stderr
    any: warning
${zones}`,
  );
  return startChild('knotd', ['-c', conf]);
}

/** Runs a command to completion (not for talking to a server in this process). */
export function runCommand(command: string, args: string[], input?: string): void {
  const res = spawnSync(command, args, { input, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${res.stderr || res.error?.message || `exit ${res.status}`}`);
}

export function tempDir(prefix: string): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Whether a program is on PATH (or at an absolute path). */
export function haveProgram(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
}

/**
 * A PostgreSQL database URL with a schema of its own, or the reason there is none. DATABASE_URL chooses
 * the server (default: the CI one on 127.0.0.1:5432).
 */
export async function postgresSchema(prefix: string): Promise<{ url: string; drop: () => Promise<void> } | { skipped: string }> {
  const base = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const { connectionString } = parsePostgresUrl(base);
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (e) {
    return { skipped: `PostgreSQL at ${new URL(base).host} is not reachable (${(e as Error).message}); set DATABASE_URL` };
  } finally {
    await client.end().catch(() => {});
  }
  const schema = `${prefix}_${process.pid}_${Date.now().toString(36)}`;
  const url = new URL(base);
  url.searchParams.set('schema', schema);
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString });
      await c.connect();
      try {
        await c.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Fixed-width text table; numbers are right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (/^[\d.,×x\-–]+$/.test(c) && i > 0 ? c.padStart(widths[i] as number) : c.padEnd(widths[i] as number)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/**
 * Runs `measure` once per store — SQLite in a temporary directory, then PostgreSQL in a schema of its own —
 * logging each store's name; a store that cannot be had is noted in `notes` and skipped. `prefix` names the
 * temporary directory, the SQLite file and the schema.
 */
export async function forEachStore(prefix: string, log: (line: string) => void, notes: string[], measure: (store: string, db: string) => Promise<void>): Promise<void> {
  const dir = tempDir(`zonehost-${prefix}-db-`);
  try {
    const stores: [string, () => Promise<{ db: string; done: () => Promise<void> } | { skipped: string }>][] = [
      ['SQLite', async () => ({ db: `sqlite:${join(dir.path, `${prefix}.db`)}`, done: async () => {} })],
      ['PostgreSQL', async () => {
        const pg = await postgresSchema(`bench_${prefix}`);
        return 'skipped' in pg ? pg : { db: pg.url, done: pg.drop };
      }],
    ];
    for (const [name, open] of stores) {
      const store = await open();
      if ('skipped' in store) {
        notes.push(`${name}: skipped, ${store.skipped}`);
        continue;
      }
      log(` ${name}`);
      try {
        await measure(name, store.db);
      } finally {
        await store.done();
      }
    }
  } finally {
    dir.remove();
  }
}

/** A UDP socket connected to `host`:`port` (answers from anywhere else never reach it). */
export async function connectedUdp(host: string, port: number): Promise<Socket> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.connect(port, host, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  return socket;
}
