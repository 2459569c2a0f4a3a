/** Runs `zonehost serve` processes (the built CLI) for the multi-node tests, and stops them. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

const BIN = join(import.meta.dirname, '../../bin/zonehost.js');

export interface Node {
  proc: ChildProcess;
  /** HTTP base URL, or '' for a node started with --no-http. */
  base: string;
  /** The node's log messages (pino `msg` fields) so far. */
  messages: string[];
}

const started: ChildProcess[] = [];

/** A TCP and UDP port free on 127.0.0.1 right now (a DNS server needs both). */
export async function freePort(): Promise<number> {
  for (;;) {
    const tcp = createServer();
    const port = await new Promise<number>((resolve) => tcp.listen(0, '127.0.0.1', () => resolve((tcp.address() as AddressInfo).port)));
    const udp = createSocket('udp4');
    const free = await new Promise<boolean>((resolve) => {
      udp.once('error', () => resolve(false));
      udp.bind(port, '127.0.0.1', () => resolve(true));
    });
    udp.close();
    await new Promise((r) => tcp.close(r));
    if (free) return port;
  }
}

export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `zonehost user add NAME` with the password on stdin. */
export async function addUser(db: string, name: string, password: string): Promise<void> {
  const created = spawn(process.execPath, [BIN, 'user', 'add', name, '--db', db], { stdio: ['pipe', 'ignore', 'inherit'] });
  created.stdin!.end(`${password}\n`);
  const code = await new Promise((r) => created.on('exit', r));
  if (code !== 0) throw new Error(`user add exited with ${String(code)}`);
}

/**
 * Starts `zonehost serve --db DB` plus `flags` on free loopback ports (unless the flags choose) and
 * resolves once it is up: /healthz answers, or for a --no-http node, its start-up log line.
 */
export async function startNode(db: string, ...flags: string[]): Promise<Node> {
  const noHttp = flags.includes('--no-http');
  const http = noHttp ? 0 : await freePort();
  const args = [BIN, 'serve', '--db', db, '--log-level', 'info', '--rate-limit-address', '0', '--rate-limit-key', '0', ...(noHttp ? [] : ['--http', `127.0.0.1:${http}`]), ...flags];
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  started.push(proc);
  const node: Node = { proc, base: noHttp ? '' : `http://127.0.0.1:${http}`, messages: [] };
  let rest = '';
  proc.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      try {
        node.messages.push(String((JSON.parse(line) as { msg?: unknown }).msg ?? ''));
      } catch {
        node.messages.push(line);
      }
    }
  });
  await waitFor('the node to start', async () => {
    if (proc.exitCode !== null) throw new Error(`node exited with ${proc.exitCode}`);
    if (noHttp) return node.messages.some((m) => /listening/i.test(m));
    return fetch(`${node.base}/healthz`).then((r) => r.ok, () => false);
  }, 30_000);
  return node;
}

/** Stops every node still running (SIGTERM) and waits for them to exit. */
export async function stopNodes(): Promise<void> {
  const running = started.splice(0).filter((c) => c.exitCode === null && c.signalCode === null);
  for (const c of running) c.kill('SIGTERM');
  await Promise.all(running.map((c) => new Promise((r) => c.on('exit', r))));
}
