/**
 * Bad input to the security routes (/v1/me/..., /v1/account, passkey sign-in): always a problem document of
 * 4xx naming what is wrong, never a 500, and nothing changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { client, expectProblem, type Client } from './support.js';

let server: TestServer;
let api: Client;

beforeAll(async () => {
  server = await startTestServer();
  api = client(server.base, (await server.user('ivy', 'ivy password')).key);
});
afterAll(() => server?.close());

const answer = (over: Record<string, unknown> = {}) => ({ id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: 'e30' }, ...over });

const CASES: [method: string, path: string, body: unknown, status: number][] = [
  ['POST', '/v1/me/totp/confirm', {}, 400],
  ['POST', '/v1/me/totp/confirm', { code: 123456 }, 400],
  ['POST', '/v1/me/totp/confirm', { code: 'x'.repeat(65) }, 400],
  ['POST', '/v1/me/totp/confirm', { code: '123456', extra: 1 }, 400],
  ['POST', '/v1/me/totp/confirm', [], 400],
  ['DELETE', '/v1/me/totp', null, 400],
  ['PUT', '/v1/me/password', { current: 'ivy password' }, 400],
  ['PUT', '/v1/me/password', { current: 'ivy password', new: 'y'.repeat(1025) }, 400],
  ['PATCH', '/v1/account', { require_2fa: 'yes' }, 400],
  ['PATCH', '/v1/account', { require_2fa: true, other: 1 }, 400],
  ['POST', '/v1/me/passkeys', {}, 400],
  ['POST', '/v1/me/passkeys', { response: answer({ type: 'other' }) }, 400],
  ['POST', '/v1/me/passkeys', { response: answer({ response: { clientDataJSON: '!!!' } }) }, 400],
  ['POST', '/v1/me/passkeys', { response: answer(), name: 'n'.repeat(101) }, 400],
  ['POST', '/v1/sign-in/passkey', { response: answer({ response: { clientDataJSON: Buffer.from('{"challenge":"nope"}').toString('base64url') } }) }, 400],
  ['POST', '/v1/sign-in/passkey', { response: 'x' }, 400],
  ['POST', '/v1/sign-in/passkey', { response: answer(), expires: -1 }, 400],
  ['DELETE', '/v1/me/passkeys/abc', undefined, 400],
  ['GET', '/v1/me/totp?x=1', undefined, 400],
  ['PUT', '/v1/me/totp', {}, 405],
];

describe('the security routes under bad input', () => {
  it('answer each with a 4xx problem, never a 500', async () => {
    for (const [method, path, body, status] of CASES) {
      const r = await api.call(method, path, body === undefined ? {} : { body });
      expectProblem(r, status);
    }
    // Nothing was turned on along the way.
    expect((await api.get('/v1/me/totp')).body).toEqual({ enabled: false, recovery_codes_left: 0 });
    expect((await api.get('/v1/me/passkeys')).body).toEqual([]);
    expect((await api.get('/v1/account')).body).toEqual({ require_2fa: false });
  });
});
