/**
 * The role matrix (issue 30): each role, and a member limited to one domain, against each kind of operation —
 * reads, record writes, domain create and delete, DNSSEC, TSIG key creation, member management — through
 * interface A (api_action), interface B, and DNS UPDATE signed with a TSIG key the member made (nsupdate).
 * (test/pdns/roles.test.ts and test/v4/roles.test.ts walk the same matrix on the PowerDNS and v4 doors.)
 * Then what happens to a member's existing keys: narrowed at the next request when the member is narrowed,
 * refused at once when the member is removed.
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateClient } from '../dns/support.js';
import { peers } from '../support/peers.js';
import { v3, type TestServer } from '../support/server.js';
import { client, createDomain, type Client, type Reply } from '../v1/support.js';
import { creates, inOther, PASSWORD, setUpRoleMatrix, WHO, writes, type Outcome, type RoleMatrix, type Who } from './role-matrix.js';

const needsNsupdate = peers('nsupdate');
const needsNsupdateAndDig = peers('nsupdate', 'dig');
const SECRET = Buffer.alloc(32, 9).toString('base64');

let server: TestServer;
let owner: Client;
let keys: RoleMatrix['keys'];
let ids: RoleMatrix['ids'];
let member: RoleMatrix['member'];
let unique: RoleMatrix['unique'];
const api = {} as Record<Who, Client>;

function expectV1(r: Reply, want: Outcome, label: string): void {
  if (want === 'ok') expect(r.status, `${label}: ${r.text}`).toBeLessThan(300);
  else {
    expect(r.status, `${label}: ${r.text}`).toBe(want === 'refused' ? 403 : 404);
    expect(r.headers.get('content-type'), label).toMatch(/^application\/problem\+json/);
  }
}

function expectV3(envelope: { ERRORARRAY: { ERRORCODE: number }[] }, want: Outcome, label: string): void {
  const codes = envelope.ERRORARRAY.map((e) => e.ERRORCODE);
  expect(codes, label).toEqual(want === 'ok' ? [] : [want === 'refused' ? 13 : 5]);
}

beforeAll(async () => {
  ({ server, owner, keys, ids, member, unique } = await setUpRoleMatrix());
  for (const w of WHO) api[w] = client(server.base, keys[w]);
});
afterAll(() => server.close());

describe('interface B', () => {
  it('reads: every role reads; the limited member finds only its domain', async () => {
    for (const w of WHO) {
      expectV1(await api[w].get(`/v1/domains/${ids.main}`), 'ok', `${w} read main`);
      expectV1(await api[w].get(`/v1/domains/${ids.other}/records`), w === 'limited' ? 'notfound' : 'ok', `${w} read other`);
      const listed = (await api[w].get('/v1/domains')).body.map((d: { id: number }) => d.id);
      expect(listed, w).toEqual(w === 'limited' ? [ids.main] : [ids.main, ids.other]);
    }
  });

  it('record writes: all but the viewer; the limited member only in its domain', async () => {
    for (const w of WHO) {
      expectV1(await api[w].post(`/v1/domains/${ids.main}/TXT`, { name: unique(w), text: 'hello' }), writes(w), `${w} record main`);
      expectV1(await api[w].post(`/v1/domains/${ids.other}/TXT`, { name: unique(w), text: 'hello' }), inOther(w, writes(w)), `${w} record other`);
    }
  });

  it('domains: created by owners, admins and editors; deleted likewise; not by a viewer nor a member limited to some domains', async () => {
    for (const w of WHO) {
      const made = await api[w].post('/v1/domains', { domain: `${unique(w)}.example`, soa: 'hostmaster@example.net' });
      expectV1(made, creates(w), `${w} domain create`);
      const spare = await createDomain(owner, `${unique('spare')}.example`);
      expectV1(await api[w].del(`/v1/domains/${spare}`), w === 'viewer' ? 'refused' : inOther(w, 'ok'), `${w} domain delete`);
    }
  });

  it('DNSSEC: turned on and off by all but the viewer, within their domains', async () => {
    for (const w of WHO) {
      for (const enabled of [true, false]) {
        expectV1(await api[w].put(`/v1/domains/${ids.main}/dnssec`, { enabled }), writes(w), `${w} dnssec main ${enabled}`);
      }
      if (w === 'limited') expectV1(await api[w].put(`/v1/domains/${ids.other}/dnssec`, { enabled: true }), 'notfound', 'limited dnssec other');
    }
  });

  it('TSIG keys: made by all but the viewer, for their domains; editors see only their own', async () => {
    for (const w of WHO) {
      expectV1(await api[w].post('/v1/tsigkeys', { name: `${unique(w)}.tsig.example`, domains: [ids.main] }), writes(w), `${w} tsig create`);
    }
    const other = await api.limited.post('/v1/tsigkeys', { name: `${unique('lim')}.tsig.example`, domains: [ids.other] });
    expect(other.status, other.text).toBe(400);
    const names = async (w: Who) => (await api[w].get('/v1/tsigkeys?limit=500')).body.map((k: { name: string }) => k.name);
    expect((await names('editor')).every((n: string) => n.startsWith('ed'))).toBe(true);
    expect(await names('owner')).toEqual(expect.arrayContaining([expect.stringMatching(/^adm/), expect.stringMatching(/^ed/), expect.stringMatching(/^lim/)]));
  });

  it('API keys: editors and viewers list only their own; owners and admins every member\'s', async () => {
    const owners = async (w: Who) => new Set((await api[w].get('/v1/keys?limit=500')).body.map((k: { label: string }) => k.label));
    expect([...(await owners('editor'))]).toEqual(['ed-key']);
    expect([...(await owners('viewer'))]).toEqual(['vw-key']);
    for (const w of ['owner', 'admin'] as const) expect(await owners(w)).toEqual(new Set(['test', 'adm-key', 'ed-key', 'vw-key', 'lim-key']));
    const edKey = (await api.owner.get('/v1/keys')).body.find((k: { label: string }) => k.label === 'ed-key');
    expectV1(await api.viewer.del(`/v1/keys/${edKey.id}`), 'refused', 'viewer revokes the editor\'s key');
    // A viewer signs out (revokes its own key), as the panel does.
    const session = (await client(server.base).post('/v1/keys', { username: 'vw', password: PASSWORD, label: 'vw-session' })).body;
    expect((await client(server.base, session.key).del(`/v1/keys/${session.id}`)).status).toBe(204);
    expectV1(await api.admin.del(`/v1/keys/${(await api.owner.get('/v1/keys')).body.find((k: { label: string }) => k.label === 'test').id}`), 'refused', "admin revokes the owner's key");
  });

  it('members: managed by owners and admins only; admins cannot touch owners nor make one; the last owner stays', async () => {
    for (const w of WHO) {
      const r = await api[w].post('/v1/members', { username: unique(`by-${w}`), role: 'viewer' });
      expectV1(r, w === 'owner' || w === 'admin' ? 'ok' : 'refused', `${w} invites`);
    }
    const members = (await owner.get('/v1/members')).body as { id: number; username: string; role: string }[];
    const boss = members.find((m) => m.username === 'boss') as { id: number };
    const adm = members.find((m) => m.username === 'adm') as { id: number };
    expectV1(await api.admin.patch(`/v1/members/${boss.id}`, { role: 'viewer' }), 'refused', 'admin demotes the owner');
    expectV1(await api.admin.del(`/v1/members/${boss.id}`), 'refused', 'admin removes the owner');
    expectV1(await api.admin.post('/v1/members', { username: unique('crown'), role: 'owner' }), 'refused', 'admin makes an owner');
    expectV1(await api.admin.patch(`/v1/members/${adm.id}`, { role: 'owner' }), 'refused', 'admin makes itself owner');
    const last = await owner.patch(`/v1/members/${boss.id}`, { role: 'admin' });
    expect(last.status, last.text).toBe(409);
    for (const w of WHO) expectV1(await api[w].get('/v1/members'), 'ok', `${w} lists members`);
  });
});

describe('interface A (api_action)', () => {
  const call = (w: Who, args: Record<string, string | number>) => v3(server.base, { api_key: keys[w], ...args });

  it('domain.list: every role; the limited member sees only its domain', async () => {
    for (const w of WHO) {
      const r = await call(w, { api_action: 'domain.list' });
      expectV3(r, 'ok', `${w} domain.list`);
      const listed = r.DATA.map((d: { DOMAINID: number }) => d.DOMAINID).filter((id: number) => id === ids.main || id === ids.other);
      expect(listed, w).toEqual(w === 'limited' ? [ids.main] : [ids.main, ids.other]);
    }
  });

  it('domain.resource.create: all but the viewer; the limited member only in its domain', async () => {
    for (const w of WHO) {
      expectV3(await call(w, { api_action: 'domain.resource.create', DomainID: ids.main, Type: 'TXT', Name: unique(w), Target: 'hi' }), writes(w), `${w} v3 record main`);
      expectV3(await call(w, { api_action: 'domain.resource.create', DomainID: ids.other, Type: 'TXT', Name: unique(w), Target: 'hi' }), inOther(w, writes(w)), `${w} v3 record other`);
    }
  });

  it('domain.create and domain.delete: not by a viewer nor a member limited to some domains', async () => {
    for (const w of WHO) {
      const made = await call(w, { api_action: 'domain.create', Domain: `${unique(w)}.example`, Type: 'master', SOA_Email: 'hostmaster@example.net' });
      expectV3(made, creates(w), `${w} v3 domain.create`);
      const spare = await createDomain(owner, `${unique('spare')}.example`);
      expectV3(await call(w, { api_action: 'domain.delete', DomainID: spare }), w === 'viewer' ? 'refused' : inOther(w, 'ok'), `${w} v3 domain.delete`);
    }
  });

  it('user.getapikey signs a member in to the account', async () => {
    const r = await v3(server.base, { api_action: 'user.getapikey', username: 'ed', password: PASSWORD });
    expectV3(r, 'ok', 'getapikey');
    expect(r.DATA.USERNAME).toBe('ed');
    const listed = await v3(server.base, { api_key: r.DATA.API_KEY, api_action: 'domain.list' });
    expect(listed.DATA.map((d: { DOMAIN: string }) => d.DOMAIN)).toContain('main.example');
  });
});

describe('DNS UPDATE with a TSIG key the member made', () => {
  /** The member makes a key for `domain`; nsupdate's outcome adding a TXT record there. */
  async function tsigKeyOf(w: Who, domain: number): Promise<string> {
    const name = `${unique(w)}.upd.example`;
    const made = await api[w].post('/v1/tsigkeys', { name, secret: SECRET, domains: [domain], update: true });
    expect(made.status, made.text).toBe(201);
    return name;
  }
  const update = (key: string, zone: string) => updateClient(server, [], 'nsupdate', `hmac-sha256:${key}:${SECRET}`, [`zone ${zone}`, `update add ${unique('u')}.${zone} 60 TXT "by update"`]);

  needsNsupdate.it('each writing role updates its domains; a member made viewer is refused with the key it made before', async () => {
    for (const w of ['owner', 'admin', 'editor', 'limited'] as const) {
      const key = await tsigKeyOf(w, ids.main);
      const out = await update(key, 'main.example');
      expect(out.ok, `${w}: ${out.output}`).toBe(true);
    }
    const turncoat = await member(unique('turncoat'), 'editor');
    const key = await client(server.base, turncoat.key).post('/v1/tsigkeys', { name: `${unique('tc')}.upd.example`, secret: SECRET, domains: [ids.main], update: true });
    expect(key.status, key.text).toBe(201);
    const name = String(key.body.name).replace(/\.$/, '');
    expect((await update(name, 'main.example')).ok).toBe(true);
    expect((await owner.patch(`/v1/members/${turncoat.id}`, { role: 'viewer' })).status).toBe(200);
    const refused = await update(name, 'main.example');
    expect(refused.ok).toBe(false);
    expect(refused.output).toMatch(/REFUSED/);
  });
});

describe("a member's existing keys follow the member", () => {
  needsNsupdateAndDig.it('narrowing a member narrows its API key and TSIG key (updates and transfers) at the next request', async () => {
    const m = await member(unique('narrow'), 'editor');
    const key = client(server.base, m.key);
    const tsig = await key.post('/v1/tsigkeys', { name: `${unique('nk')}.upd.example`, secret: SECRET, domains: [ids.other], update: true, transfer: true });
    expect(tsig.status, tsig.text).toBe(201);
    const name = String(tsig.body.name).replace(/\.$/, '');
    const nsupdate = () => updateClient(server, [], 'nsupdate', `hmac-sha256:${name}:${SECRET}`, ['zone other.example', `update add ${unique('n')}.other.example 60 TXT "x"`]);
    /** dig's output for an AXFR of other.example signed with the member's key. */
    const axfr = () =>
      new Promise<string>((resolve) => {
        const argv = ['-p', String(server.dnsAddress?.port), '@127.0.0.1', '+time=2', '+tries=1', '-y', `hmac-sha256:${name}:${SECRET}`, 'other.example', 'AXFR'];
        execFile('dig', argv, { timeout: 15_000 }, (_e, stdout, stderr) => resolve(`${stdout}${stderr}`));
      });
    expectV1(await key.get(`/v1/domains/${ids.other}`), 'ok', 'before');
    expect((await nsupdate()).ok).toBe(true);
    expect(await axfr()).toMatch(/other\.example\.\s+\d+\s+IN\s+SOA/);
    expect((await owner.patch(`/v1/members/${m.id}`, { domains: [ids.main] })).status).toBe(200);
    expectV1(await key.get(`/v1/domains/${ids.other}`), 'notfound', 'narrowed: other');
    expectV1(await key.get(`/v1/domains/${ids.main}`), 'ok', 'narrowed: main');
    expectV1(await key.post('/v1/domains', { domain: `${unique('n')}.example`, soa: 'hostmaster@example.net' }), 'refused', 'narrowed: create');
    expectV3(await v3(server.base, { api_key: m.key, api_action: 'domain.resource.list', DomainID: ids.other }), 'notfound', 'narrowed: v3');
    expect((await nsupdate()).ok).toBe(false);
    expect(await axfr()).toMatch(/Transfer failed|REFUSED/);
    expect((await owner.patch(`/v1/members/${m.id}`, { role: 'viewer', domains: null })).status).toBe(200);
    expectV1(await key.post(`/v1/domains/${ids.other}/TXT`, { name: 'v', text: 'no' }), 'refused', 'made viewer: write');
    expectV1(await key.get(`/v1/domains/${ids.other}`), 'ok', 'made viewer: read');
  });

  needsNsupdate.it("removing a member refuses its API keys and TSIG keys at once, on every door", async () => {
    const m = await member(unique('gone'), 'editor');
    const key = client(server.base, m.key);
    const tsig = await key.post('/v1/tsigkeys', { name: `${unique('gk')}.upd.example`, secret: SECRET, domains: [ids.main], update: true });
    expect(tsig.status, tsig.text).toBe(201);
    const name = String(tsig.body.name).replace(/\.$/, '');
    const nsupdate = () => updateClient(server, [], 'nsupdate', `hmac-sha256:${name}:${SECRET}`, ['zone main.example', `update add ${unique('g')}.main.example 60 TXT "x"`]);
    expect((await nsupdate()).ok).toBe(true);
    expect((await owner.del(`/v1/members/${m.id}`)).status).toBe(204);
    expect((await key.get('/v1/domains')).status).toBe(401);
    expect((await v3(server.base, { api_key: m.key, api_action: 'domain.list' })).ERRORARRAY.map((e: { ERRORCODE: number }) => e.ERRORCODE)).toEqual([4]);
    const out = await nsupdate();
    expect(out.ok).toBe(false);
    expect((await owner.get('/v1/tsigkeys?limit=500')).body.map((k: { name: string }) => k.name)).not.toContain(`${name}.`);
  });
});
