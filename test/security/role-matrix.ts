/**
 * The role matrix's set-up, shared by every door's role tests (test/security/roles.test.ts, test/pdns/roles.test.ts,
 * test/v4/roles.test.ts): an account `boss` with two domains, `main` and `other`, and a member of each role plus an
 * editor limited to `main`, each signed in with a key of its own.
 */
import { expect } from 'vitest';
import { dnsAnswer } from '../dns/support.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { client, createDomain, type Client } from '../v1/support.js';

export const PASSWORD = 'correct horse battery staple';
/** The account's name (its owner's user name). */
export const ACCOUNT = 'boss';

export type Who = 'owner' | 'admin' | 'editor' | 'viewer' | 'limited';
export const WHO: Who[] = ['owner', 'admin', 'editor', 'viewer', 'limited'];
/** Each one's user name (each signs in with PASSWORD). */
export const USERNAMES: Record<Who, string> = { owner: ACCOUNT, admin: 'adm', editor: 'ed', viewer: 'vw', limited: 'lim' };

/** What an operation should get: done, refused by the role, or not found (outside the member's domains). */
export type Outcome = 'ok' | 'refused' | 'notfound';

/** A record write's outcome in the member's own domain: all but the viewer. */
export const writes = (w: Who): Outcome => (w === 'viewer' ? 'refused' : 'ok');
/** A domain made: not by a viewer nor by a member limited to some domains. */
export const creates = (w: Who): Outcome => (w === 'viewer' || w === 'limited' ? 'refused' : 'ok');
/** A domain outside the limited member's: hidden from it; the others as in their own. */
export const inOther = (w: Who, own: Outcome): Outcome => (w === 'limited' ? 'notfound' : own);

export interface RoleMatrix {
  server: TestServer;
  /** The owner's interface B client. */
  owner: Client;
  keys: Record<Who, string>;
  /** `main` is the limited member's one domain; `other` is outside it. */
  ids: { main: number; other: number };
  /** Invites a member as the owner, accepts the invitation, signs in: the member's id and API key. */
  member(username: string, role: string, domains?: number[]): Promise<{ id: number; key: string }>;
  /** A new name with this prefix. */
  unique(prefix: string): string;
}

export async function setUpRoleMatrix(): Promise<RoleMatrix> {
  const server = await startTestServer();
  const made = await server.user(ACCOUNT, PASSWORD);
  const owner = client(server.base, made.key);
  let serial = 0;
  const member = async (username: string, role: string, domains?: number[]) => {
    const invited = await owner.post('/v1/members', { username, role, ...(domains ? { domains } : {}) });
    expect(invited.status, invited.text).toBe(201);
    const accepted = await client(server.base).post('/v1/invitations', { token: invited.body.invitation, password: PASSWORD });
    expect(accepted.status, accepted.text).toBe(200);
    const signedIn = await client(server.base).post('/v1/keys', { username, password: PASSWORD, label: `${username}-key` });
    expect(signedIn.status, signedIn.text).toBe(201);
    return { id: invited.body.id as number, key: signedIn.body.key as string };
  };
  const ids = { main: await createDomain(owner, 'main.example'), other: await createDomain(owner, 'other.example') };
  const keys: Record<Who, string> = {
    owner: made.key,
    admin: (await member(USERNAMES.admin, 'admin')).key,
    editor: (await member(USERNAMES.editor, 'editor')).key,
    viewer: (await member(USERNAMES.viewer, 'viewer')).key,
    limited: (await member(USERNAMES.limited, 'editor', [ids.main])).key,
  };
  return { server, owner, keys, ids, member, unique: (p) => `${p}${++serial}` };
}

/** What a suspended account's keys are refused with on every door. */
export const SUSPENDED = new RegExp(`The account '${ACCOUNT}' is suspended`);

/**
 * Runs `check` while the operator has the account suspended (the service `zonehost account set --suspend`
 * calls), after showing that its zone still answers DNS meanwhile; resumes it afterwards.
 */
export async function whileSuspended(m: RoleMatrix, check: () => Promise<void>): Promise<void> {
  const made = await m.owner.post(`/v1/domains/${m.ids.main}/A`, { name: 'served', address: '192.0.2.80' });
  expect(made.status, made.text).toBe(201);
  await m.server.services.operator.set(ACCOUNT, { status: 'suspended' });
  try {
    expect(await dnsAnswer(m.server.dnsAddress?.port as number, 'served.main.example', 'A')).toEqual({ rcode: 0, answers: ['192.0.2.80'] });
    await check();
  } finally {
    await m.server.services.operator.set(ACCOUNT, { status: 'active' });
  }
}
