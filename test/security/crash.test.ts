/**
 * Crash safety: SIGKILL the server in the middle of a stream of writes, restart it on the same database,
 * and check that every acknowledged write is there and nothing half-done is visible.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase, v3 } from '../support/server.js';

const BIN = join(import.meta.dirname, '../../bin/zonehost.js');
const db = freshDatabase();
let child: ChildProcess | undefined;
afterAll(async () => {
  child?.kill('SIGKILL');
  await db.cleanup();
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function start(): Promise<{ base: string; proc: ChildProcess }> {
  const [http, dns] = [await freePort(), await freePort()];
  const proc = spawn(process.execPath, [BIN, 'serve', '--db', db.url, '--http', `127.0.0.1:${http}`, '--dns', `127.0.0.1:${dns}`, '--log-level', 'error', '--rate-limit-address', '0', '--rate-limit-key', '0'], {
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${http}`;
  // Up to a minute: a busy machine (CI runs other suites beside this one) starts slowly.
  for (let i = 0; i < 600; i++) {
    if (await fetch(`${base}/healthz`).then((r) => r.ok, () => false)) return { base, proc };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not start');
}

describe('crash safety', () => {
  it('keeps every acknowledged write across SIGKILL', async () => {
    const created = spawn(process.execPath, [BIN, 'user', 'add', 'alice', '--db', db.url], { stdio: ['pipe', 'ignore', 'inherit'] });
    created.stdin!.end('pw\n');
    await new Promise((r) => created.on('exit', r));

    let { base, proc } = await start();
    child = proc;
    const key = (await v3(base, { api_action: 'user.getapikey', username: 'alice', password: 'pw' })).DATA.API_KEY as string;
    const domainId = (await v3(base, { api_action: 'domain.create', api_key: key, Domain: 'crash.example', Type: 'master', SOA_Email: 'h@crash.example' })).DATA.DomainID as number;

    // Four writers stream record creations; the server is killed while they are in flight.
    const acked: number[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const res = await v3(base, { api_action: 'domain.resource.create', api_key: key, DomainID: domainId, Type: 'TXT', Name: `w${w}-${i}`, Target: `value ${w} ${i}` });
          if (res.ERRORARRAY.length === 0) acked.push(res.DATA.ResourceID as number);
        } catch {
          return; // connection dropped by the kill
        }
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    await new Promise((r) => setTimeout(r, 1500));
    proc.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    expect(acked.length).toBeGreaterThan(10);

    ({ base, proc } = await start());
    child = proc;
    const list = await v3(base, { api_action: 'domain.resource.list', api_key: key, DomainID: domainId });
    const ids = new Set((list.DATA as { RESOURCEID: number }[]).map((r) => r.RESOURCEID));
    for (const id of acked) expect(ids.has(id), `acknowledged record ${id}`).toBe(true);
    // Nothing half-written: every stored record is whole, and at most the in-flight ones are extra.
    for (const r of list.DATA as { NAME: string; TARGET: string }[]) expect(r.TARGET).toBe(`value ${r.NAME.slice(1).replace('-', ' ')}`);
    expect(ids.size - acked.length).toBeLessThanOrEqual(4);
    proc.kill('SIGTERM');
  }, 60_000);
});
