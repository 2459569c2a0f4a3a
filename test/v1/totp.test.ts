/**
 * Two-factor sign-in with TOTP, codes made by Debian's oathtool: turning it on (a secret, its otpauth:// URI,
 * ten recovery codes), signing in with and without a code on both interfaces, each code and recovery code
 * used once, wrong codes throttled like wrong passwords, and turning it off; the secrets sealed at rest with the
 * key-encryption key.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { sqlitePath } from '../../src/store/open.js';
import { totpCode } from '../support/oathtool.js';
import { peers } from '../support/peers.js';
import { backend, freshDatabase, startTestServer, v3, type TestServer } from '../support/server.js';
import { client, expectProblem, type Client } from './support.js';

const PASSWORD = 'correct horse battery staple';
const OTP_REQUIRED = 'https://zonehost.invalid/problems/otp-required';
const withOathtool = peers('oathtool');

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

/** A user with TOTP turned on: their key, secret and recovery codes. */
async function userWithTotp(name: string): Promise<{ api: Client; secret: string; recovery: string[]; used: string }> {
  const { key } = await server.user(name, PASSWORD);
  const api = client(server.base, key);
  const started = await api.post('/v1/me/totp', {});
  expect(started.status, started.text).toBe(200);
  const used = totpCode(started.body.secret);
  const confirmed = await api.post('/v1/me/totp/confirm', { code: used });
  expect(confirmed.status, confirmed.text).toBe(200);
  return { api, secret: started.body.secret, recovery: confirmed.body.recovery_codes, used };
}

const signIn = (body: Record<string, unknown>) => client(server.base).post('/v1/keys', { password: PASSWORD, ...body });

withOathtool.describe('TOTP', () => {
  withOathtool.it('turns on with a secret, its otpauth URI and a first code, and answers ten recovery codes once', async () => {
    const { key } = await server.user('tina', PASSWORD);
    const api = client(server.base, key);
    expect((await api.get('/v1/me/totp')).body).toEqual({ enabled: false, recovery_codes_left: 0 });
    const started = await api.post('/v1/me/totp', {});
    expect(started.status, started.text).toBe(200);
    const { secret, uri } = started.body;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const parsed = new URL(uri);
    expect(parsed.protocol).toBe('otpauth:');
    expect(parsed.host).toBe('totp');
    expect(decodeURIComponent(parsed.pathname)).toBe('/zonehost:tina');
    expect(Object.fromEntries(parsed.searchParams)).toMatchObject({ secret, issuer: 'zonehost', algorithm: 'SHA1', digits: '6', period: '30' });

    // A wrong code: refused on its field, still off.
    const wrong = await api.post('/v1/me/totp/confirm', { code: totpCode(secret, 20) });
    expect(expectProblem(wrong, 400).errors[0].field).toBe('code');
    expect((await api.get('/v1/me/totp')).body.enabled).toBe(false);

    const confirmed = await api.post('/v1/me/totp/confirm', { code: totpCode(secret) });
    expect(confirmed.status, confirmed.text).toBe(200);
    const codes: string[] = confirmed.body.recovery_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    expect((await api.get('/v1/me/totp')).body).toEqual({ enabled: true, recovery_codes_left: 10 });

    // On already: a second set-up is refused until it is turned off.
    expectProblem(await api.post('/v1/me/totp', {}), 409);
    expectProblem(await api.post('/v1/me/totp/confirm', { code: totpCode(secret) }), 409);
  });

  withOathtool.it('stores the secret sealed with the key-encryption key; a secret stored unsealed before still signs in', async () => {
    const sealed = await server.user('sid', PASSWORD);
    const api = client(server.base, sealed.key);
    const { secret } = (await api.post('/v1/me/totp', {})).body;
    // An owner's user id is its account's id (store/migrations/014_members.ts).
    const stored = (await server.services.store.totpOf(sealed.accountId))?.secret ?? '';
    expect(stored).not.toContain(secret);
    expect(stored).toMatch(/^v1:[^:]+:[^:]+:[^:]+$/);
    // What makes a node refuse to start without its key-encryption key file (server.ts).
    expect(await server.services.store.anySealedTotpSecret()).toBe(true);
    expect((await api.post('/v1/me/totp/confirm', { code: totpCode(secret) })).status).toBe(200);
    expect((await signIn({ username: 'sid', otp: totpCode(secret, 1) })).status).toBe(201);

    // As a node before sealing (or one without a KEK) stored it: plain base32.
    const plain = await server.user('paula', PASSWORD);
    const legacy = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    expect(await server.services.store.putPendingTotp(plain.accountId, legacy, Date.now())).toBe(true);
    expect((await client(server.base, plain.key).post('/v1/me/totp/confirm', { code: totpCode(legacy) })).status).toBe(200);
    expect((await signIn({ username: 'paula', otp: totpCode(legacy, 1) })).status).toBe(201);
  });

  withOathtool.it('asks for the code at sign-in with a 401 of its own type, and takes each code once', async () => {
    const { secret, used } = await userWithTotp('otto');
    const without = await signIn({ username: 'otto' });
    expect(expectProblem(without, 401).type).toBe(OTP_REQUIRED);
    expect(without.body.errors[0].field).toBe('otp');
    // A wrong password says nothing about the code.
    const badPassword = await client(server.base).post('/v1/keys', { username: 'otto', password: 'wrong' });
    expect(expectProblem(badPassword, 401).type).toBe('about:blank');

    // The code that confirmed the set-up was used: it does not sign in.
    expect(expectProblem(await signIn({ username: 'otto', otp: used }), 401).type).toBe('about:blank');
    const next = totpCode(secret, 1);
    const ok = await signIn({ username: 'otto', otp: next, label: 'with code' });
    expect(ok.status, ok.text).toBe(201);
    expect((await client(server.base, ok.body.key).get('/v1/domains')).status).toBe(200);
    // The same code again: refused, as any code of an earlier step.
    expectProblem(await signIn({ username: 'otto', otp: next }), 401);
    expectProblem(await signIn({ username: 'otto', otp: totpCode(secret, -1) }), 401);
  });

  withOathtool.it('takes a recovery code once instead of a code', async () => {
    const { api, recovery } = await userWithTotp('rita');
    const [first, second] = recovery as [string, string];
    const ok = await signIn({ username: 'rita', otp: first });
    expect(ok.status, ok.text).toBe(201);
    expectProblem(await signIn({ username: 'rita', otp: first }), 401);
    // As typed by a person: upper case, without the hyphen.
    expect((await signIn({ username: 'rita', otp: second.replace('-', '').toUpperCase() })).status).toBe(201);
    expect((await api.get('/v1/me/totp')).body.recovery_codes_left).toBe(8);
  });

  withOathtool.it('needs no code to make a key with a signed-in key of the same account', async () => {
    const { api } = await userWithTotp('carl');
    const made = await api.post('/v1/keys', { username: 'carl', password: PASSWORD, label: 'ci' });
    expect(made.status, made.text).toBe(201);
  });

  withOathtool.it('answers user.getapikey without token with Linode\'s NEEDTOKEN (44), a wrong one with 4, and takes a right one', async () => {
    const { secret } = await userWithTotp('lina');
    const args = { api_action: 'user.getapikey', username: 'lina', password: PASSWORD };
    expect(await v3(server.base, args)).toEqual({ ERRORARRAY: [{ ERRORCODE: 44, ERRORMESSAGE: 'Two-factor authentication token required' }], DATA: {}, ACTION: 'user.getapikey' });
    expect((await v3(server.base, { ...args, token: '000000' === totpCode(secret, 1) ? '111111' : '000000' })).ERRORARRAY).toEqual([{ ERRORCODE: 4, ERRORMESSAGE: 'Authentication failed' }]);
    const ok = await v3(server.base, { ...args, token: totpCode(secret, 1) });
    expect(ok.ERRORARRAY).toEqual([]);
    expect((await v3(server.base, { api_action: 'domain.list', api_key: ok.DATA.API_KEY })).ERRORARRAY).toEqual([]);
    // api.spec lists the parameter and the error.
    const spec = (await v3(server.base, { api_action: 'api.spec' })).DATA.METHODS['user.getapikey'];
    expect(spec.PARAMETERS.token).toMatchObject({ NAME: 'token', TYPE: 'string', REQUIRED: false });
    expect(spec.THROWS).toContain('NEEDTOKEN');
  });

  withOathtool.it('turns off with a code (not with a wrong one), and then signs in without one', async () => {
    const { api, secret } = await userWithTotp('fred');
    expect(expectProblem(await api.del('/v1/me/totp', { body: { code: 'aaaaa-aaaaa' } }), 400).errors[0].field).toBe('code');
    const off = await api.del('/v1/me/totp', { body: { code: totpCode(secret, 1) } });
    expect(off.status, off.text).toBe(204);
    expect((await api.get('/v1/me/totp')).body).toEqual({ enabled: false, recovery_codes_left: 0 });
    expect((await signIn({ username: 'fred' })).status).toBe(201);
    expectProblem(await api.del('/v1/me/totp', { body: { code: '123456' } }), 409);
  });

  withOathtool.it('refuses setting up TOTP to a key limited to records', async () => {
    const { key } = await server.user('sam', PASSWORD);
    const scoped = await client(server.base, key).post('/v1/keys', { username: 'sam', password: PASSWORD, scope: { records: { types: ['TXT'] } } });
    expectProblem(await client(server.base, scoped.body.key).post('/v1/me/totp', {}), 403);
  });

  // Last: it leaves this address with many failed attempts.
  withOathtool.it('throttles wrong codes like wrong passwords: then even the right code is refused for a while', async () => {
    const { secret } = await userWithTotp('wanda');
    const wrong = totpCode(secret, 1) === '000000' ? '111111' : '000000';
    for (let i = 0; i < 10; i++) expectProblem(await signIn({ username: 'wanda', otp: wrong }), 401);
    const locked = await signIn({ username: 'wanda', otp: totpCode(secret, 1) });
    expectProblem(locked, 429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

/** A node over `db` serving HTTP alone, on a free port, quiet, without rate limits. */
const nodeConfig = (db: string): Config => ({ http: { host: '127.0.0.1', port: 0 }, dns: null, db, nameservers: ['ns1.zonehost.test'], logLevel: 'silent', rateLimits: { perAddress: 0, perKey: 0 } });

/** A key-encryption key file in a directory of its own, which `remove` deletes. */
function kekFile(): { path: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'zonehost-kek-'));
  const path = join(dir, 'kek');
  writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

it.runIf(backend === 'sqlite')('a node whose database holds sealed TOTP secrets refuses to start without the KEK file beside it', async () => {
  const { url, cleanup } = freshDatabase();
  const config = nodeConfig(url);
  try {
    const node = await startServer(config);
    await node.services.accounts.createUser('kim', PASSWORD);
    const { key } = await node.services.accounts.issueKey('kim', PASSWORD);
    await node.services.factors.startTotp(await node.services.accounts.authenticate(key, 'v1', '127.0.0.1'));
    await node.close();
    rmSync(`${sqlitePath(url)}.kek`);
    // A new KEK would not open the sealed secret: no new one is made, and the start says why.
    await expect(startServer(config)).rejects.toThrow(/TOTP secrets.*\.kek is missing/);
  } finally {
    await cleanup();
  }
});

it.runIf(backend === 'postgres')('a PostgreSQL node without a KEK refuses to start where sealed TOTP secrets are, unless it only answers DNS', async () => {
  const { url, cleanup } = freshDatabase();
  const kek = kekFile();
  const config = nodeConfig(url);
  try {
    const node = await startServer({ ...config, keyEncryptionKeyFile: kek.path });
    await node.services.accounts.createUser('lee', PASSWORD);
    const { key } = await node.services.accounts.issueKey('lee', PASSWORD);
    await node.services.factors.startTotp(await node.services.accounts.authenticate(key, 'v1', '127.0.0.1'));
    await node.close();
    // Without the file it could not check lee's codes: it says so at start rather than fail lee's sign-in.
    await expect(startServer(config)).rejects.toThrow(/TOTP secrets sealed.*--key-encryption-key-file/);
    const dnsOnly = await startServer({ ...config, http: null, dns: { host: '127.0.0.1', port: 0 } });
    await dnsOnly.close();
  } finally {
    kek.remove();
    await cleanup();
  }
});

// PostgreSQL only: two nodes over one database, as a cluster runs.
(backend === 'postgres' ? withOathtool.it : it.skip)('a running node without a KEK answers 503 with the reason, not 500, when another node seals a TOTP secret later', async () => {
  const { url, cleanup } = freshDatabase();
  const kek = kekFile();
  const config = nodeConfig(url);
  // Started while nothing was sealed, so it may start without the file.
  const withoutKek = await startServer(config);
  const withKek = await startServer({ ...config, keyEncryptionKeyFile: kek.path });
  try {
    const base = (n: typeof withKek) => `http://127.0.0.1:${n.httpAddress?.port}`;
    await withKek.services.accounts.createUser('kim', PASSWORD);
    const { key } = await withKek.services.accounts.issueKey('kim', PASSWORD);
    const api = client(base(withKek), key);
    const started = await api.post('/v1/me/totp', {});
    expect((await api.post('/v1/me/totp/confirm', { code: totpCode(started.body.secret) })).status).toBe(200);

    const refused = await client(base(withoutKek)).post('/v1/keys', { username: 'kim', password: PASSWORD, otp: totpCode(started.body.secret, 1) });
    expect(expectProblem(refused, 503).detail).toMatch(/cannot check TOTP codes.*key-encryption-key-file/);
    const v3Refused = await v3(base(withoutKek), { api_action: 'user.getapikey', username: 'kim', password: PASSWORD, token: totpCode(started.body.secret, 1) });
    expect(v3Refused.ERRORARRAY[0]?.ERRORMESSAGE).toMatch(/cannot check TOTP codes/);
    // The node with the key still signs kim in.
    expect((await client(base(withKek)).post('/v1/keys', { username: 'kim', password: PASSWORD, otp: totpCode(started.body.secret, 1) })).status).toBe(201);
  } finally {
    await withoutKek.close();
    await withKek.close();
    kek.remove();
    await cleanup();
  }
});
