/**
 * Passkeys through the API with a software authenticator (test/support/webauthn.ts; the panel's test does the
 * same in Chromium): registered, listed, used to sign in instead of the password, each challenge once, refused
 * for another origin or a passkey nobody registered, removed; the relying party fixed by the operator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, v3, type TestServer } from '../support/server.js';
import { SoftPasskey } from '../support/webauthn.js';
import { client, expectProblem, type Client } from './support.js';

const PASSWORD = 'correct horse battery staple';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

/** Registers a new software passkey for the user of `api`; answers it and the stored passkey. */
async function registerPasskey(api: Client, origin: string, name?: string): Promise<{ passkey: SoftPasskey; stored: any }> {
  const options = await api.post('/v1/me/passkeys/options', {});
  expect(options.status, options.text).toBe(200);
  const passkey = new SoftPasskey(origin, options.body.rp.id);
  const r = await api.post('/v1/me/passkeys', { response: passkey.register(options.body), ...(name ? { name } : {}) });
  expect(r.status, r.text).toBe(201);
  return { passkey, stored: r.body };
}

async function signInWith(base: string, passkey: SoftPasskey) {
  const anon = client(base);
  const options = await anon.post('/v1/sign-in/passkey/options', {});
  expect(options.status, options.text).toBe(200);
  return { answer: passkey.signIn(options.body), send: (answer: object) => anon.post('/v1/sign-in/passkey', { response: answer, label: 'control panel (passkey)', expires: 12 }) };
}

describe('passkeys', () => {
  it('registers one for the host name the request came to, lists it, and signs in with it instead of the password', async () => {
    const { key } = await server.user('pia', PASSWORD);
    const api = client(server.base, key);
    const options = (await api.post('/v1/me/passkeys/options', {})).body;
    expect(options).toMatchObject({ rp: { id: '127.0.0.1', name: 'zonehost' }, user: { name: 'pia' }, attestation: 'none' });
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });

    const { passkey, stored } = await registerPasskey(api, server.base, 'laptop');
    expect(stored).toEqual({ id: expect.any(Number), name: 'laptop', created: expect.any(String), last_used: null });
    expect((await api.get('/v1/me/passkeys')).body).toEqual([stored]);

    const { answer, send } = await signInWith(server.base, passkey);
    const signedIn = await send(answer);
    expect(signedIn.status, signedIn.text).toBe(201);
    expect(signedIn.body).toMatchObject({ username: 'pia', label: 'control panel (passkey)', key: expect.any(String) });
    expect(signedIn.headers.get('location')).toBe(`/v1/keys/${signedIn.body.id}`);
    expect((await client(server.base, signedIn.body.key).get('/v1/domains')).status).toBe(200);
    expect((await api.get('/v1/me/passkeys')).body[0].last_used).not.toBeNull();

    // The same answer again: its challenge was taken.
    expect(expectProblem(await send(answer), 400).errors[0].field).toBe('response');
    // A password sign-in now needs the passkey instead.
    const byPassword = await client(server.base).post('/v1/keys', { username: 'pia', password: PASSWORD });
    expect(expectProblem(byPassword, 401).type).toBe('https://zonehost.invalid/problems/passkey-required');
    // Interface A has no passkeys: its sign-in says where to go instead (Permission denied).
    const v3Answer = await v3(server.base, { api_action: 'user.getapikey', username: 'pia', password: PASSWORD });
    expect(v3Answer.ERRORARRAY).toEqual([{ ERRORCODE: 13, ERRORMESSAGE: expect.stringMatching(/signs in with a passkey/) }]);
  });

  it('refuses an answer made for another origin, a passkey nobody registered, and one removed', async () => {
    const { key } = await server.user('quentin', PASSWORD);
    const api = client(server.base, key);
    const options = (await api.post('/v1/me/passkeys/options', {})).body;
    const phished = new SoftPasskey('http://127.0.0.1:1', '127.0.0.1');
    expect(expectProblem(await api.post('/v1/me/passkeys', { response: phished.register(options) }), 400).errors[0].field).toBe('response');

    const stranger = new SoftPasskey(server.base);
    const attempt = await signInWith(server.base, stranger);
    expectProblem(await attempt.send(attempt.answer), 401);

    const { passkey, stored } = await registerPasskey(api, server.base);
    expect(stored.name).toBe('passkey');
    expect((await api.del(`/v1/me/passkeys/${stored.id}`)).status).toBe(204);
    expectProblem(await api.del(`/v1/me/passkeys/${stored.id}`), 404);
    const after = await signInWith(server.base, passkey);
    expectProblem(await after.send(after.answer), 401);
  });

  it('goes with its account when the operator deletes it', async () => {
    const { key, accountId } = await server.user('ulla', PASSWORD);
    const { passkey } = await registerPasskey(client(server.base, key), server.base);
    await server.services.operator.delete('ulla');
    expect(await server.services.store.passkeyByCredential(passkey.id)).toBeUndefined();
    expect(await server.services.store.hasSecondFactor(accountId)).toBe(false);
  });

  it('counts as the second factor require_2fa asks for', async () => {
    const { key } = await server.user('rosa', PASSWORD);
    const api = client(server.base, key);
    expectProblem(await api.patch('/v1/account', { require_2fa: true }), 409);
    await registerPasskey(api, server.base);
    expect((await api.patch('/v1/account', { require_2fa: true })).body).toEqual({ require_2fa: true });
    expect((await api.get('/v1/domains')).status).toBe(200);
  });

  it('is refused to a read-only key and to one limited to some domains, which could otherwise sign in without limits', async () => {
    const { key } = await server.user('sven', PASSWORD);
    const api = client(server.base, key);
    const domain = (await api.post('/v1/domains', { domain: 'sven.test', soa: 'h@sven.test' })).body.id;
    for (const scope of [{ read_only: true }, { domains: [domain] }]) {
      const scoped = await api.post('/v1/keys', { username: 'sven', password: PASSWORD, scope });
      const refused = expectProblem(await client(server.base, scoped.body.key).post('/v1/me/passkeys/options', {}), 403);
      expect(refused.errors[0].field).toBe(`scope.${Object.keys(scope)[0]}`);
    }
  });
});

describe('a relying party the operator fixed', () => {
  let fixed: TestServer;
  beforeAll(async () => {
    fixed = await startTestServer({ webauthn: { rpId: 'localhost', origins: ['https://dns.localhost'] } });
  });
  afterAll(() => fixed?.close());

  it('names it in the options and takes only answers made for its origins', async () => {
    const { key } = await fixed.user('tara', PASSWORD);
    const api = client(fixed.base, key);
    const options = (await api.post('/v1/me/passkeys/options', {})).body;
    expect(options.rp.id).toBe('localhost');
    // An answer for the address the request came to is not one for the configured origin.
    expectProblem(await api.post('/v1/me/passkeys', { response: new SoftPasskey(fixed.base, 'localhost').register(options) }), 400);
    const { passkey } = await registerPasskey(api, 'https://dns.localhost');
    const { answer, send } = await signInWith(fixed.base, passkey);
    expect((await send(answer)).status).toBe(201);
  });
});
