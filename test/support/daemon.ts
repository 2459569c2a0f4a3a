/** A test's daemon (knotd, named, pdns_server) run in the foreground in a directory of its own, and stopped. */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

export interface Daemon {
  /** Everything it wrote to stdout and stderr so far. */
  log(): string;
  /** SIGTERM (SIGKILL after 5 s), then its directory removed. */
  stop(): Promise<void>;
}

/** Runs `cmd` in the foreground; `ready` is polled until true, or it fails saying what the daemon wrote. */
export async function daemon(cmd: string, args: string[], dir: string, ready: () => Promise<boolean>, timeoutMs = 15_000): Promise<Daemon> {
  let output = '';
  const child: ChildProcess = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`${cmd} ${child.exitCode !== null ? 'exited at start' : 'did not start'}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { log: () => output, stop };
}
