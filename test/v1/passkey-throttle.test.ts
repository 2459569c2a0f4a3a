/**
 * Failed passkey sign-ins are throttled as wrong passwords are (services/throttle.ts): per user, once a registered
 * passkey's answers failed ten times, even a right answer (and the user's password) gets a 429 for a while; per
 * address, answers naming no passkey here, or no readable answer at all, count too. A server of its own: the
 * throttle is the node's, and this file uses up its address's attempts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { SoftPasskey } from '../support/webauthn.js';
import { client, expectProblem } from './support.js';

const PASSWORD = 'correct horse battery staple';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const anonymous = () => client(server.base);

/** An answer of `passkey` to fresh sign-in options, with its signature spoiled when `spoil`. */
async function answer(passkey: SoftPasskey, spoil = false): Promise<any> {
  const options = await anonymous().post('/v1/sign-in/passkey/options', {});
  expect(options.status, options.text).toBe(200);
  const made = passkey.signIn(options.body) as { response: Record<string, string> };
  return spoil ? { ...made, response: { ...made.response, signature: Buffer.alloc(70, 1).toString('base64url') } } : made;
}

const send = (response: unknown) => anonymous().post('/v1/sign-in/passkey', { response, label: 'panel' });

describe('passkey sign-in throttle', () => {
  it("counts a passkey's failed answers against its user: then the right answer and the password are refused with 429", async () => {
    const { key } = await server.user('petra', PASSWORD);
    const api = client(server.base, key);
    const options = await api.post('/v1/me/passkeys/options', {});
    const passkey = new SoftPasskey(server.base, options.body.rp.id);
    expect((await api.post('/v1/me/passkeys', { response: passkey.register(options.body) })).status).toBe(201);
    expect((await send(await answer(passkey))).status).toBe(201);

    for (let i = 0; i < 10; i++) expectProblem(await send(await answer(passkey, true)), 401);
    const locked = await send(await answer(passkey));
    expectProblem(locked, 429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expectProblem(await anonymous().post('/v1/keys', { username: 'petra', password: PASSWORD }), 429);
  });

  it('counts answers naming no passkey here, and unreadable ones, against the address', async () => {
    // Ten failures of the test above count for this address already; thirty are allowed.
    const stranger = new SoftPasskey(server.base);
    for (let i = 0; i < 10; i++) expectProblem(await send(await answer(stranger)), 401);
    for (let i = 0; i < 10; i++) expectProblem(await send({ id: 'garbage', rawId: 'garbage', type: 'public-key', response: { clientDataJSON: 'e30', authenticatorData: '', signature: '' } }), 400);
    expectProblem(await send(await answer(stranger)), 429);
    // Another user's password sign-in from this address too, as after thirty wrong passwords.
    await server.user('quinn', PASSWORD);
    expectProblem(await anonymous().post('/v1/keys', { username: 'quinn', password: PASSWORD }), 429);
  });
});
