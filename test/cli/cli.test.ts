import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseResolver, systemResolver } from '../../src/config.js';
import { installed } from '../support/peer-table.js';
import { openStore } from '../../src/store/open.js';
import { freshDatabase } from '../support/server.js';

const BIN = join(import.meta.dirname, '../../bin/zonehost.js');
const run = (args: string[], input?: string, env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [BIN, ...args], { input, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 });

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const db = freshDatabase();
afterAll(() => db.cleanup());

describe('zonehost command line', () => {
  it('prints help for every command', () => {
    for (const args of [['--help'], ['serve', '--help'], ['user', '--help'], ['user', 'add', '--help']]) {
      const res = run(args);
      expect(res.status, args.join(' ')).toBe(0);
      expect(res.stdout).toMatch(/Usage: zonehost/);
    }
  });

  it('creates a user from stdin and refuses duplicates and empty passwords', () => {
    const ok = run(['user', 'add', 'carol', '--db', db.url], 'pw-1\n');
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/created user carol/);
    const dup = run(['user', 'add', 'carol', '--db', db.url], 'pw-2\n');
    expect(dup.status).toBe(1);
    expect(dup.stderr).toMatch(/already exists/);
    const empty = run(['user', 'add', 'dave'], '\n', { ZONEHOST_DB: db.url });
    expect(empty.status).toBe(1);
    expect(empty.stderr).toMatch(/password must not be empty/);
  });

  // Seven runs of the command, a Node.js process each: slow on a loaded machine.
  it('adds a member to an account with --account and --role, counted by account list; refuses an unknown account, role or a taken name', { timeout: 120_000 }, async () => {
    const ok = run(['user', 'add', 'mia', '--account', 'carol', '--role', 'viewer', '--db', db.url], 'pw-m\n');
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/added member mia \(viewer\) to account carol/);
    const listed = JSON.parse(run(['account', 'list', '--json', '--db', db.url]).stdout) as { name: string; members: number }[];
    expect(listed.find((a) => a.name === 'carol')?.members).toBe(2);
    expect(listed.map((a) => a.name)).not.toContain('mia');
    expect(run(['user', 'add', 'max', '--account', 'nobody', '--db', db.url], 'pw\n').stderr).toMatch(/no account named 'nobody'/);
    expect(run(['user', 'add', 'max', '--account', 'carol', '--role', 'boss', '--db', db.url], 'pw\n').status).toBe(1);
    expect(run(['user', 'add', 'mia', '--account', 'carol', '--db', db.url], 'pw\n').stderr).toMatch(/taken/);
    expect(run(['user', 'add', 'carol', '--db', db.url], 'pw\n').stderr).toMatch(/already exists/);
    const store = await openStore(db.url);
    try {
      expect(await store.userByName('mia')).toMatchObject({ role: 'viewer', domains: null, accountName: 'carol', invitationExpiresAt: null });
    } finally {
      await store.close();
    }
  });

  it('rejects a malformed listen address with a clear message', () => {
    const res = run(['serve', '--http', 'nonsense', '--db', db.url]);
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/--http must be HOST:PORT/);
  });

  it('refuses --dot (and ZONEHOST_DOT) without a certificate, saying which options it needs', () => {
    for (const [args, env] of [[['--dot', '127.0.0.1:0'], {}], [[], { ZONEHOST_DOT: '127.0.0.1:0' }]] as const) {
      const res = run(['serve', ...args, '--http', '127.0.0.1:0', '--dns', '127.0.0.1:0', '--db', db.url], undefined, env);
      expect(res.status).toBe(1);
      expect(res.stderr).toMatch(/--dot needs --tls-cert and --tls-key/);
    }
    expect(run(['serve', '--dot', 'nonsense', '--db', db.url]).stderr).toMatch(/--dot must be HOST:PORT/);
  });

  it('rejects a DNS thread count out of range with a clear message', () => {
    for (const [value, message] of [['0', /between 1 and 64, not 0/], ['100000', /between 1 and 64, not 100000/], ['two', /whole number, not 'two'/]] as const) {
      const res = run(['serve', '--dns-threads', value, '--db', db.url]);
      expect(res.status).toBe(1);
      expect(res.stderr).toMatch(message);
    }
  });

  it('rejects response rate limiting settings out of range, from flags and from the environment', () => {
    const cases = [
      [['--rrl-slip', '101'], {}, /--rrl-slip must be between 0 and 100, not 101/],
      [['--rrl-ipv4-prefix', '33'], {}, /--rrl-ipv4-prefix must be between 0 and 32, not 33/],
      [['--rrl-ipv6-prefix', '129'], {}, /--rrl-ipv6-prefix must be between 0 and 128, not 129/],
      [['--rrl-exempt', '192.0.2.0/24,nonsense'], {}, /--rrl-exempt: 'nonsense' is not an IP address or CIDR network/],
      [[], { ZONEHOST_RRL_RATE: 'lots' }, /--rrl-rate must be a whole number, not 'lots'/],
    ] as const;
    for (const [flags, env, message] of cases) {
      const res = run(['serve', ...flags, '--db', db.url], undefined, env);
      expect(res.status).toBe(1);
      expect(res.stderr).toMatch(message);
    }
  });

  it('rejects an NSID longer than 256 octets', () => {
    const res = run(['serve', '--nsid', 'é'.repeat(129), '--db', db.url]);
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/--nsid must be at most 256 octets, not 258/);
  });

  it('rejects a --resolver (here from ZONEHOST_RESOLVER) that is not an address with a clear message', () => {
    const res = run(['serve', '--db', db.url], undefined, { ZONEHOST_RESOLVER: 'resolver.example:53' });
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/--resolver must be an IP address with its port/);
  });

  it('takes the first usable nameserver of resolv.conf as the default resolver', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zonehost-resolv-'));
    const file = join(dir, 'resolv.conf');
    writeFileSync(file, '# comment\nsearch example.org\nnameserver fe80::1%eth0\nnameserver 192.0.2.53\nnameserver 192.0.2.54\n');
    expect(systemResolver(file)).toEqual({ host: '192.0.2.53', port: 53 });
    expect(parseResolver(undefined, file)).toEqual({ host: '192.0.2.53', port: 53 });
    expect(parseResolver('[2001:db8::53]:5353', file)).toEqual({ host: '2001:db8::53', port: 5353 });
    expect(parseResolver('2001:db8::53', file)).toEqual({ host: '2001:db8::53', port: 53 });
    expect(systemResolver(join(dir, 'missing'))).toBeNull();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves /healthz, answers the API with the created user, and stops on SIGTERM', { timeout: 90_000 }, async () => {
    const [http, dns] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, [BIN, 'serve', '--db', db.url, '--log-level', 'warn'], {
      env: { ...process.env, ZONEHOST_HTTP: `127.0.0.1:${http}`, ZONEHOST_DNS: `127.0.0.1:${dns}`, ZONEHOST_NSID: 'cli.nsid.test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const base = `http://127.0.0.1:${http}`;
    let healthy = false;
    // Generous: a loaded CI machine can take many seconds to start a node.
    for (const until = Date.now() + 60_000; Date.now() < until && !healthy; ) {
      healthy = await fetch(`${base}/healthz`).then((r) => r.status === 200, () => false);
      if (!healthy) await new Promise((r) => setTimeout(r, 100));
    }
    expect(healthy).toBe(true);
    const res = (await fetch(`${base}/?api_action=user.getapikey&username=carol&password=pw-1`).then((r) => r.json())) as any;
    expect(res.ERRORARRAY).toEqual([]);
    expect(res.DATA.API_KEY).toMatch(/^[A-Za-z0-9]{64,}$/);
    // ZONEHOST_NSID as --nsid: answered to a query that asks for it (RFC 5001), whatever the name.
    if (installed('dig')) {
      const nsid = spawnSync('dig', ['-p', String(dns), '@127.0.0.1', '+nsid', '+time=2', '+tries=3', 'example.org'], { encoding: 'utf8' });
      expect(nsid.stdout).toContain('("cli.nsid.test")');
    }
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('fresh directory', () => {
  it('uses ./zonehost.db by default', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zonehost-cwd-'));
    try {
      const res = spawnSync(process.execPath, [BIN, 'user', 'add', 'erin'], { cwd: dir, input: 'pw\n', encoding: 'utf8' });
      expect(res.status, res.stderr).toBe(0);
      expect(spawnSync('ls', [dir], { encoding: 'utf8' }).stdout).toMatch(/zonehost\.db/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
