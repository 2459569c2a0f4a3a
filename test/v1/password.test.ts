/**
 * PUT /v1/me/password: the current password checked (a wrong one is a problem of its field, not a 401 that
 * would end the session asking), the new one taking effect, and the user's other panel sessions signed out
 * while labelled API keys keep working.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { client, expectProblem } from './support.js';

const OLD = 'the old password';
const NEW = 'a brand new password';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const keyOf = async (username: string, password: string, extra: Record<string, unknown> = {}): Promise<string> => {
  const r = await client(server.base).post('/v1/keys', { username, password, ...extra });
  expect(r.status, r.text).toBe(201);
  return r.body.key as string;
};
const works = async (key: string) => (await client(server.base, key).get('/v1/domains')).status;

describe('PUT /v1/me/password', () => {
  it('changes the password and signs out the other panel sessions, not the labelled API keys', async () => {
    await server.user('pat', OLD);
    const here = await keyOf('pat', OLD, { label: 'control panel (browser)', session: true });
    const elsewhere = await keyOf('pat', OLD, { label: 'control panel (browser)', session: true });
    const script = await keyOf('pat', OLD, { label: 'certbot' });

    const changed = await client(server.base, here).put('/v1/me/password', { current: OLD, new: NEW });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toEqual({ sessions_revoked: 1 });
    expect(await works(here)).toBe(200);
    expect(await works(elsewhere)).toBe(401);
    expect(await works(script)).toBe(200);

    expectProblem(await client(server.base).post('/v1/keys', { username: 'pat', password: OLD }), 401);
    expect(await works(await keyOf('pat', NEW))).toBe(200);
  });

  it('refuses a wrong current password on its field, and an empty new one', async () => {
    const { key } = await server.user('quinn', OLD);
    const api = client(server.base, key);
    const wrong = await api.put('/v1/me/password', { current: 'not it', new: NEW });
    expect(expectProblem(wrong, 400).errors.map((e: { field: string }) => e.field)).toEqual(['current']);
    expect(expectProblem(await api.put('/v1/me/password', { current: OLD, new: '' }), 400).errors[0].field).toBe('new');
    expect(expectProblem(await api.put('/v1/me/password', { current: OLD }), 400).errors[0].field).toBe('new');
    // Nothing changed: the old password still signs in.
    expect(await works(await keyOf('quinn', OLD))).toBe(200);
  });

  it('is refused to a key limited to records', async () => {
    const { key } = await server.user('ruth', OLD);
    const scoped = await client(server.base, key).post('/v1/keys', { username: 'ruth', password: OLD, scope: { records: { types: ['TXT'] } } });
    expectProblem(await client(server.base, scoped.body.key).put('/v1/me/password', { current: OLD, new: NEW }), 403);
    expect(await works(await keyOf('ruth', OLD))).toBe(200);
  });
});
