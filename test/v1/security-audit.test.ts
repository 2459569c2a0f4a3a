/**
 * The audit trail of sign-in security (issue 30): TOTP turned on and off, a passkey added and removed, a password
 * changed and require_2fa changed are each an entry of GET /v1/events naming the member who did it — and none
 * holds a secret, a code or a password.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { totpCode } from '../support/oathtool.js';
import { peers } from '../support/peers.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { SoftPasskey } from '../support/webauthn.js';
import { client, type Client } from './support.js';

const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'a brand new passphrase';
const withOathtool = peers('oathtool');

let server: TestServer;
let owner: Client;
let member: Client;
let memberId: number;

interface Event {
  action: string;
  member: string;
  member_id: number | null;
  object_id: number | null;
  domain_id: number;
  before: unknown;
  after: unknown;
}

beforeAll(async () => {
  server = await startTestServer();
  owner = client(server.base, (await server.user('olga', PASSWORD)).key);
  const invited = await owner.post('/v1/members', { username: 'mia', role: 'editor' });
  await client(server.base).post('/v1/invitations', { token: invited.body.invitation, password: PASSWORD });
  memberId = invited.body.id;
  member = client(server.base, (await client(server.base).post('/v1/keys', { username: 'mia', password: PASSWORD, label: 'mia laptop' })).body.key);
});
afterAll(() => server?.close());

/** Registers a software passkey for the user of `api`; answers the stored passkey. */
async function addPasskey(api: Client): Promise<{ id: number }> {
  const options = await api.post('/v1/me/passkeys/options', {});
  const r = await api.post('/v1/me/passkeys', { response: new SoftPasskey(server.base, options.body.rp.id).register(options.body), name: 'yubikey' });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

const events = async (): Promise<Event[]> => (await owner.get('/v1/events?limit=500')).body;

withOathtool.it('names the member behind each change of a second factor, a password and require_2fa, and holds no secret', async () => {
  const started = await member.post('/v1/me/totp', {});
  const confirmed = await member.post('/v1/me/totp/confirm', { code: totpCode(started.body.secret) });
  expect(confirmed.status, confirmed.text).toBe(200);
  expect((await member.call('DELETE', '/v1/me/totp', { body: { code: confirmed.body.recovery_codes[0] } })).status).toBe(204);
  const passkey = await addPasskey(member);
  expect((await member.del(`/v1/me/passkeys/${passkey.id}`)).status).toBe(204);
  expect((await member.put('/v1/me/password', { current: PASSWORD, new: NEW_PASSWORD })).status).toBe(200);
  await addPasskey(owner);
  for (const on of [true, false]) expect((await owner.patch('/v1/account', { require_2fa: on })).status).toBe(200);
  // Unchanged: no entry.
  expect((await owner.patch('/v1/account', { require_2fa: false })).status).toBe(200);

  const trail = await events();
  const mia = { member: 'mia', member_id: memberId, domain_id: 0 };
  const of = (action: string) => trail.filter((e) => e.action === action);
  expect(of('totp.enable')).toEqual([expect.objectContaining({ ...mia, object_id: memberId, before: null, after: { user_id: memberId, username: 'mia' } })]);
  expect(of('totp.disable')).toEqual([expect.objectContaining({ ...mia, object_id: memberId, after: null })]);
  expect(of('passkey.create').map((e) => [e.member, e.after])).toEqual([
    ['mia', { id: passkey.id, name: 'yubikey', user_id: memberId }],
    ['olga', expect.objectContaining({ name: 'yubikey' })],
  ]);
  expect(of('passkey.delete')).toEqual([expect.objectContaining({ ...mia, object_id: passkey.id, before: { id: passkey.id, name: 'yubikey', user_id: memberId }, after: null })]);
  expect(of('password.change')).toEqual([expect.objectContaining({ ...mia, object_id: memberId, after: { user_id: memberId, username: 'mia', sessions_revoked: 0 } })]);
  expect(of('account.update').map((e) => [e.member, e.before, e.after])).toEqual([
    ['olga', { require_2fa: false }, { require_2fa: true }],
    ['olga', { require_2fa: true }, { require_2fa: false }],
  ]);
  const text = JSON.stringify(trail);
  for (const secret of [started.body.secret, confirmed.body.recovery_codes[0], PASSWORD, NEW_PASSWORD]) expect(text).not.toContain(secret);
});
