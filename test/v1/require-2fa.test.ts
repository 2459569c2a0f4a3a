/**
 * PATCH /v1/account {"require_2fa": true}: whoever turns it on needs a second factor; a user without one may
 * then only set one up: their keys, made before, answer 403 (of a type of its own) on every other route of
 * both interfaces and DNS UPDATE (their TSIG keys), and work again once they have one.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { totpCode } from '../support/oathtool.js';
import { peers } from '../support/peers.js';
import { startTestServer, v3, type TestServer } from '../support/server.js';
import { updateClient } from '../dns/support.js';
import { client, expectProblem } from './support.js';

const SETUP_REQUIRED = 'https://zonehost.invalid/problems/second-factor-setup-required';
const withOathtool = peers('oathtool', 'nsupdate');
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const TSIG_SECRET = Buffer.alloc(32, 7).toString('base64');
/** A DNS UPDATE signed with olga's TSIG key, through nsupdate. */
const update = () => updateClient(server, [], 'nsupdate', `hmac-sha256:olga-update:${TSIG_SECRET}`, ['zone olga.test', `update add u${Date.now()}.olga.test 60 TXT "x"`]);

withOathtool.describe('require_2fa', () => {
  withOathtool.it('holds the keys of a user without a second factor to setting one up', async () => {
    const { key } = await server.user('olga', 'olga password');
    const api = client(server.base, key);
    expect((await api.get('/v1/account')).body).toEqual({ require_2fa: false });
    // Not before the one who asks has a factor.
    expect(expectProblem(await api.patch('/v1/account', { require_2fa: true }), 409).errors[0].field).toBe('require_2fa');

    const { secret } = (await api.post('/v1/me/totp', {})).body;
    expect((await api.post('/v1/me/totp/confirm', { code: totpCode(secret) })).status).toBe(200);
    const set = await api.patch('/v1/account', { require_2fa: true });
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ require_2fa: true });
    expect((await api.get('/v1/domains')).status).toBe(200);

    // A TSIG key the user made for DNS UPDATE, working while they have a factor.
    const domain = (await api.post('/v1/domains', { domain: 'olga.test', soa: 'h@olga.test' })).body.id as number;
    expect((await api.post('/v1/tsigkeys', { name: 'olga-update', secret: TSIG_SECRET, domains: [domain], update: true })).status).toBe(201);
    expect((await update()).ok).toBe(true);

    // Without a factor again, the same key may only set one up.
    expect((await api.del('/v1/me/totp', { body: { code: totpCode(secret, 1) } })).status).toBe(204);
    // Their TSIG key is held too: REFUSED, saying why.
    const refused = await update();
    expect(refused.ok).toBe(false);
    expect(refused.output).toMatch(/REFUSED/);
    const held = await api.get('/v1/domains');
    expect(expectProblem(held, 403).type).toBe(SETUP_REQUIRED);
    expect(held.body.detail).toMatch(/requires a second factor/);
    expect(expectProblem(await api.post('/v1/domains', { domain: 'held.test', soa: 'h@held.test' }), 403).type).toBe(SETUP_REQUIRED);
    expect((await v3(server.base, { api_action: 'domain.list', api_key: key })).ERRORARRAY[0].ERRORCODE).toBe(13);
    expect((await api.get('/v1/me/passkeys')).status).toBe(200);
    expect((await api.get('/v1/me/totp')).status).toBe(200);

    // A new sign-in works, but its key is held the same way.
    const signIn = await client(server.base).post('/v1/keys', { username: 'olga', password: 'olga password' });
    expect(signIn.status, signIn.text).toBe(201);
    expect(expectProblem(await client(server.base, signIn.body.key).get('/v1/domains'), 403).type).toBe(SETUP_REQUIRED);
    // Signing out still works: revoking takes power away.
    expect((await client(server.base, signIn.body.key).del(`/v1/keys/${signIn.body.id}`)).status).toBe(204);

    // Set up again: everything works.
    const again = (await api.post('/v1/me/totp', {})).body.secret as string;
    expect((await api.post('/v1/me/totp/confirm', { code: totpCode(again) })).status).toBe(200);
    expect((await api.get('/v1/domains')).status).toBe(200);
    expect((await v3(server.base, { api_action: 'domain.list', api_key: key })).ERRORARRAY).toEqual([]);
    expect((await update()).ok).toBe(true);

    expect((await api.patch('/v1/account', { require_2fa: false })).body).toEqual({ require_2fa: false });
  });
});
