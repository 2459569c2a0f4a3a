/**
 * The request log never holds a key or password: GET clients (lexicon, libcloud) send api_key in the URL,
 * and user.getapikey over GET sends the password there. Runs the built CLI at the default log level (info)
 * and reads what it writes (needs `npm run build`).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../support/server.js';
import { call } from './support.js';

const BIN = join(import.meta.dirname, '../../bin/zonehost.js');
const PASSWORD = 'Secret-Pass-123';
const db = freshDatabase();
let child: ReturnType<typeof spawn>;
let exited: Promise<number | null>;
let log = '';
let base = '';

/** Waits until the log holds a line matching `re` (the server logs as it goes). */
async function logLine(re: RegExp): Promise<string> {
  for (const until = Date.now() + 60_000; Date.now() < until; ) {
    const line = log.split('\n').find((l) => re.test(l));
    if (line) return line;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no log line ${re} in:\n${log}`);
}

beforeAll(async () => {
  const add = spawn(process.execPath, [BIN, 'user', 'add', 'alice', '--db', db.url], { stdio: ['pipe', 'ignore', 'inherit'] });
  add.stdin!.end(`${PASSWORD}\n`);
  expect(await new Promise((resolve) => add.on('exit', resolve))).toBe(0);
  child = spawn(process.execPath, [BIN, 'serve', '--db', db.url, '--http', '127.0.0.1:0', '--dns', '127.0.0.1:0', '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'pipe'] });
  exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const listening = JSON.parse(await logLine(/HTTP APIs listening/));
  base = `http://127.0.0.1:${listening.http.port}`;
}, 90_000);

afterAll(async () => {
  child.kill('SIGTERM');
  await exited;
  await db.cleanup();
});

describe('the request log', () => {
  it('redacts api_key and password in logged URLs on any path, whatever their case or encoding, and keeps the rest', async () => {
    const issued = await call(base, { api_action: 'user.getapikey', username: 'alice', password: PASSWORD });
    const key = issued.body.DATA.API_KEY as string;
    expect(key).toMatch(/^[A-Za-z0-9]{64}$/);
    const marker = 'marker-value-1';
    await call(base, { api_action: 'test.echo', api_key: key, visible: marker });
    await call(base, [['api_action', 'test.echo'], ['API_KEY', key], ['visible', `${marker}-upper`]]);
    // An encoded name is still the api_key argument for the parser, so it is redacted too.
    const encoded = await fetch(`${base}/api/?api_action=test.echo&api%5Fkey=${key}&visible=${marker}-encoded`).then((r) => r.json() as Promise<{ ERRORARRAY: unknown[] }>);
    expect(encoded.ERRORARRAY).toEqual([]);
    await call(base, { api_action: 'test.echo', api_key: key, visible: `${marker}-post` }, { transport: 'POST-form' });
    // A mistyped path is logged too (a 404), and redacted the same way.
    expect((await fetch(`${base}/apii/?api_key=${key}&visible=${marker}-typo`)).status).toBe(404);
    await logLine(new RegExp(`${marker}-typo`));

    await logLine(new RegExp(`${marker}-encoded`));
    await logLine(/"method":"POST"/);
    expect(log).not.toContain(key);
    expect(log).not.toContain(PASSWORD);
    expect(log).toContain('password=[redacted]');
    expect(log).toContain('api_key=[redacted]');
    expect(log).toContain('API_KEY=[redacted]');
    expect(log).toContain('api%5Fkey=[redacted]');
    expect(log).toContain(`visible=${marker}`);
  });
});
