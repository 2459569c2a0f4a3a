/**
 * /v1/members and /v1/invitations: inviting a member (the token shown once, stored hashed, valid 7 days),
 * accepting, signing in with the member's own name and password on both interfaces, changing and removing
 * members, bad input as problems, and the audit trail naming the member and key behind each change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemberService } from '../../src/services/members.js';
import { startTestServer, v3, type TestServer } from '../support/server.js';
import { client, createDomain, expectProblem, fieldsOf, type Client } from './support.js';

const PASSWORD = 'correct horse battery staple';
let server: TestServer;
let owner: Client;
let domainId: number;

beforeAll(async () => {
  server = await startTestServer();
  owner = client(server.base, (await server.user('acme', PASSWORD)).key);
  domainId = await createDomain(owner, 'acme.example');
});
afterAll(() => server.close());

const anonymous = () => client(server.base);
const signIn = (username: string, password = PASSWORD) => anonymous().post('/v1/keys', { username, password, label: `${username} laptop` });

describe('invitations', () => {
  it('invites a member: 201 with the token once, then the member sets a password and signs in to the account', async () => {
    const invited = await owner.post('/v1/members', { username: 'carol', role: 'editor', domains: [domainId] });
    expect(invited.status, invited.text).toBe(201);
    expect(invited.headers.get('location')).toBe(`/v1/members/${invited.body.id}`);
    expect(invited.body).toMatchObject({ username: 'carol', role: 'editor', domains: [domainId], invitation: expect.any(String) });
    const expires = Date.parse(invited.body.invitation_expires);
    expect(expires - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(7 * 86_400_000);
    // Shown once: neither the list nor the member carry it.
    const listed = await owner.get('/v1/members');
    expect(listed.body.map((m: { username: string }) => m.username)).toEqual(['acme', 'carol']);
    expect(listed.text).not.toContain(invited.body.invitation);
    expect((await owner.get(`/v1/members/${invited.body.id}`)).body).not.toHaveProperty('invitation');

    expect((await signIn('carol', '')).status).toBe(400);
    expect((await signIn('carol', 'guess')).status).toBe(401);
    const accepted = await anonymous().post('/v1/invitations', { token: invited.body.invitation, password: 'carols own password' });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toMatchObject({ username: 'carol', role: 'editor', invitation_expires: null });
    expect(fieldsOf(await anonymous().post('/v1/invitations', { token: invited.body.invitation, password: 'again' }))).toEqual(['token']);

    const key = await signIn('carol', 'carols own password');
    expect(key.status, key.text).toBe(201);
    const carol = client(server.base, key.body.key);
    expect((await carol.get('/v1/domains')).body.map((d: { domain: string }) => d.domain)).toEqual(['acme.example']);
    const v3key = await v3(server.base, { api_action: 'user.getapikey', username: 'carol', password: 'carols own password' });
    expect(v3key.ERRORARRAY).toEqual([]);
    expect((await v3(server.base, { api_key: v3key.DATA.API_KEY, api_action: 'domain.list' })).DATA.map((d: { DOMAIN: string }) => d.DOMAIN)).toEqual(['acme.example']);
  });

  it('refuses an unknown token and an expired one (after 7 days), as a 400 problem on the token', async () => {
    expect(fieldsOf(await anonymous().post('/v1/invitations', { token: 'not-a-token', password: 'x' }))).toEqual(['token']);
    const invited = await owner.post('/v1/members', { username: 'late', role: 'viewer' });
    expect(invited.status, invited.text).toBe(201);
    const eightDaysOn = new MemberService(server.services.store, () => Date.now() + 8 * 86_400_000);
    await expect(eightDaysOn.accept(invited.body.invitation, 'pw', '127.0.0.1')).rejects.toMatchObject({ problems: [{ field: 'token' }] });
    expect((await anonymous().post('/v1/invitations', { token: invited.body.invitation, password: 'in time' })).status).toBe(200);
  });

  it('answers bad input with problems: role, domains, user name taken (also by an account), unknown fields, no key', async () => {
    expectProblem(await owner.post('/v1/members', { username: 'x1', role: 'boss' }), 400);
    expect(fieldsOf(await owner.post('/v1/members', { username: 'x1' }))).toEqual(['role']);
    expect(fieldsOf(await owner.post('/v1/members', { username: 'x1', role: 'viewer', domains: [999999] }))).toEqual(['domains']);
    expect(fieldsOf(await owner.post('/v1/members', { username: 'bad name!', role: 'viewer' }))).toEqual(['username']);
    expectProblem(await owner.post('/v1/members', { username: 'x1', role: 'viewer', extra: 1 }), 400);
    await server.user('taken', PASSWORD);
    expect(fieldsOf(await owner.post('/v1/members', { username: 'taken', role: 'viewer' }))).toEqual(['username']);
    expectProblem(await owner.post('/v1/members', { username: 'taken', role: 'viewer' }), 409);
    expectProblem(await anonymous().post('/v1/members', { username: 'x2', role: 'viewer' }), 401);
    expectProblem(await owner.patch('/v1/members/999999', { role: 'viewer' }), 404);
    expectProblem(await owner.del('/v1/members/999999'), 404);
  });

  it("hides another account's members as missing ones", async () => {
    const other = client(server.base, (await server.user('rival', PASSWORD)).key);
    const mine = (await owner.get('/v1/members')).body[0].id;
    expectProblem(await other.get(`/v1/members/${mine}`), 404);
    expectProblem(await other.del(`/v1/members/${mine}`), 404);
    expect((await other.get('/v1/members')).body.map((m: { username: string }) => m.username)).toEqual(['rival']);
  });
});

describe('changes and removal', () => {
  it('changes role and domains (null: every domain), and removes a member with its keys', async () => {
    const invited = await owner.post('/v1/members', { username: 'dave', role: 'viewer' });
    await anonymous().post('/v1/invitations', { token: invited.body.invitation, password: PASSWORD });
    const id = invited.body.id;
    const changed = await owner.patch(`/v1/members/${id}`, { role: 'editor', domains: [domainId] });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ role: 'editor', domains: [domainId] });
    expect((await owner.patch(`/v1/members/${id}`, { domains: null })).body).toMatchObject({ role: 'editor', domains: null });
    const key = (await signIn('dave')).body.key;
    expect((await client(server.base, key).get('/v1/domains')).status).toBe(200);
    expect((await owner.del(`/v1/members/${id}`)).status).toBe(204);
    expect((await client(server.base, key).get('/v1/domains')).status).toBe(401);
    expect((await signIn('dave')).status).toBe(401);
    expect((await owner.get('/v1/keys')).body.map((k: { label: string }) => k.label)).not.toContain('dave laptop');
    // Keys name the member who made them.
    const mine = (await owner.get('/v1/keys')).body.find((k: { label: string }) => k.label === 'test');
    expect(mine.member_id).toBe((await owner.get('/v1/members')).body.find((m: { username: string }) => m.username === 'acme').id);
  });
});

describe('no member gives more than they have', () => {
  it('an admin limited to one domain invites and changes members only within it', async () => {
    const other = await createDomain(owner, 'elsewhere.example');
    const invited = await owner.post('/v1/members', { username: 'lim-admin', role: 'admin', domains: [domainId] });
    await anonymous().post('/v1/invitations', { token: invited.body.invitation, password: PASSWORD });
    const admin = client(server.base, (await signIn('lim-admin')).body.key);
    expect(fieldsOf(await admin.post('/v1/members', { username: 'wide', role: 'editor' }))).toEqual(['scope.domains']);
    expect(fieldsOf(await admin.post('/v1/members', { username: 'wide', role: 'editor', domains: [other] }))).toEqual(['scope.domains']);
    const narrow = await admin.post('/v1/members', { username: 'narrow', role: 'editor', domains: [domainId] });
    expect(narrow.status, narrow.text).toBe(201);
    expect(fieldsOf(await admin.patch(`/v1/members/${narrow.body.id}`, { domains: null }))).toEqual(['scope.domains']);
    // A member with every domain is beyond this admin: not changed, not removed.
    const everywhere = await owner.post('/v1/members', { username: 'everywhere', role: 'viewer' });
    expect(fieldsOf(await admin.del(`/v1/members/${everywhere.body.id}`))).toEqual(['scope.domains']);
    expect((await admin.del(`/v1/members/${narrow.body.id}`)).status).toBe(204);
  });
});

describe('the audit trail', () => {
  it('names the member and key behind every change, and lists member and key changes themselves', async () => {
    const invited = await owner.post('/v1/members', { username: 'erin', role: 'editor' });
    await anonymous().post('/v1/invitations', { token: invited.body.invitation, password: PASSWORD });
    const erin = client(server.base, (await signIn('erin')).body.key);
    const record = await erin.post(`/v1/domains/${domainId}/A`, { name: 'www', address: '192.0.2.7' });
    expect(record.status, record.text).toBe(201);
    await owner.patch(`/v1/members/${invited.body.id}`, { role: 'viewer' });
    const events = (await owner.get('/v1/events?limit=500')).body as { action: string; member: string; member_id: number | null; key_label: string; domain_id: number; object_id: number }[];
    const find = (action: string, objectId: number) => events.find((e) => e.action === action && e.object_id === objectId);
    expect(find('member.create', invited.body.id)).toMatchObject({ member: 'acme', key_label: 'test', domain_id: 0 });
    expect(find('member.accept', invited.body.id)).toMatchObject({ member: 'erin', domain_id: 0 });
    expect(find('member.update', invited.body.id)).toMatchObject({ member: 'acme', key_label: 'test' });
    expect(find('record.create', record.body.id)).toMatchObject({ member: 'erin', member_id: invited.body.id, key_label: 'erin laptop', domain_id: domainId });
    expect(events.some((e) => e.action === 'key.create' && e.member === 'erin' && e.key_label === 'erin laptop')).toBe(true);
    // Every change names a member.
    expect(events.filter((e) => e.member === '')).toEqual([]);
  });
});
