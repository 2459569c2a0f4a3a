/**
 * The role matrix on the Linode v4 door (issues 30 and 31): each role, and an editor limited to one domain, reads
 * and changes domains and records through /v4 with the key it signed in with, and gets what interface B gives it
 * in Linode's words — 403 `{"errors": [{reason}]}` for what its role may not do, 404 for a domain outside its
 * domains, which no list shows it. A suspended account's keys are refused, its zones still served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creates, inOther, setUpRoleMatrix, SUSPENDED, whileSuspended, WHO, writes, type Outcome, type RoleMatrix, type Who } from '../security/role-matrix.js';
import { client, createRecord, expectErrors, type Client, type Reply } from './support.js';

let m: RoleMatrix;
const api = {} as Record<Who, Client>;

beforeAll(async () => {
  m = await setUpRoleMatrix();
  for (const w of WHO) api[w] = client(m.server.base, m.keys[w]);
});
afterAll(() => m.server.close());

function expectV4(r: Reply, want: Outcome, label: string): void {
  if (want === 'ok') expect(r.status, `${label}: ${r.text}`).toBe(200);
  else expectErrors(r, want === 'refused' ? 403 : 404);
}

type Zone = 'main' | 'other';
const ZONES: Zone[] = ['main', 'other'];
const outcomeIn = (w: Who, zone: Zone, own: Outcome) => (zone === 'other' ? inOther(w, own) : own);

describe('domains and records on the v4 door', () => {
  it('reads: every role; the limited member lists, reads and exports only its domain', async () => {
    for (const w of WHO) {
      const listed = await api[w].get('/v4/domains');
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.data.map((d: { domain: string }) => d.domain), w).toEqual(w === 'limited' ? ['main.example'] : ['main.example', 'other.example']);
      expect(listed.body.results, w).toBe(w === 'limited' ? 1 : 2);
      const filtered = await api[w].get('/v4/domains', { headers: { 'x-filter': JSON.stringify({ domain: 'other.example' }) } });
      expect(filtered.body.data, w).toHaveLength(w === 'limited' ? 0 : 1);
      for (const zone of ZONES) {
        const id = m.ids[zone];
        expectV4(await api[w].get(`/v4/domains/${id}`), outcomeIn(w, zone, 'ok'), `${w} reads ${zone}`);
        expectV4(await api[w].get(`/v4/domains/${id}/records`), outcomeIn(w, zone, 'ok'), `${w} lists ${zone}'s records`);
        expectV4(await api[w].get(`/v4/domains/${id}/zone-file`), outcomeIn(w, zone, 'ok'), `${w} exports ${zone}`);
      }
    }
  });

  it('records created, updated and deleted by all but the viewer; the limited member only in its domain; a refusal changes nothing', async () => {
    for (const w of WHO) {
      for (const zone of ZONES) {
        const id = m.ids[zone];
        const want = outcomeIn(w, zone, writes(w));
        expectV4(await api[w].post(`/v4/domains/${id}/records`, { type: 'TXT', name: m.unique(w), target: 'made' }), want, `${w} creates in ${zone}`);
        const record = await createRecord(api.owner, id, { type: 'A', name: m.unique('www'), target: '192.0.2.1' });
        expectV4(await api[w].put(`/v4/domains/${id}/records/${record.id}`, { target: '192.0.2.2' }), want, `${w} updates in ${zone}`);
        expectV4(await api[w].del(`/v4/domains/${id}/records/${record.id}`), want, `${w} deletes in ${zone}`);
        const after = await api.owner.get(`/v4/domains/${id}/records/${record.id}`);
        if (want === 'ok') expect(after.status, `${w} in ${zone}`).toBe(404);
        else expect(after.body.target, `${w} in ${zone}`).toBe('192.0.2.1');
      }
    }
  });

  it('domain settings changed by all but the viewer, within their domains', async () => {
    for (const w of WHO) {
      for (const zone of ZONES) {
        expectV4(await api[w].put(`/v4/domains/${m.ids[zone]}`, { description: `set by ${w}` }), outcomeIn(w, zone, writes(w)), `${w} updates ${zone}`);
      }
    }
  });

  it('domains: created and cloned by owners, admins and editors, not by a viewer nor a limited member; deleted within their domains', async () => {
    for (const w of WHO) {
      const name = `${m.unique(w)}.example`;
      expectV4(await api[w].post('/v4/domains', { domain: name, type: 'master', soa_email: `hostmaster@${name}` }), creates(w), `${w} creates`);
      expectV4(await api[w].post(`/v4/domains/${m.ids.main}/clone`, { domain: `${m.unique('clone')}.example` }), creates(w), `${w} clones`);
      const spare = await api.owner.post('/v4/domains', { domain: `${m.unique('spare')}.example`, type: 'master', soa_email: 'hostmaster@spare.example' });
      expect(spare.status, spare.text).toBe(200);
      expectV4(await api[w].del(`/v4/domains/${spare.body.id}`), w === 'viewer' ? 'refused' : inOther(w, 'ok'), `${w} deletes`);
    }
  });
});

describe("a member's key after the member changed", () => {
  it('is narrowed at the next request when the member is limited, and refused with 401 once the member is removed', async () => {
    const gone = await m.member(m.unique('gone'), 'editor');
    const key = client(m.server.base, gone.key);
    const domainNames = async () => (await key.get('/v4/domains')).body.data.map((d: { domain: string }) => d.domain);
    expect(await domainNames()).toContain('other.example');
    expect((await m.owner.patch(`/v1/members/${gone.id}`, { domains: [m.ids.main] })).status).toBe(200);
    expect(await domainNames()).toEqual(['main.example']);
    expect((await m.owner.del(`/v1/members/${gone.id}`)).status).toBe(204);
    expect(expectErrors(await key.get('/v4/domains'), 401)).toEqual([{ reason: 'Invalid Token' }]);
  });
});

describe('a suspended account on the v4 door', () => {
  it('refuses every member\'s key with 403 {"errors"} saying the account is suspended, while its zone still answers', async () => {
    await whileSuspended(m, async () => {
      for (const w of WHO) {
        for (const r of [
          await api[w].get('/v4/domains'),
          await api[w].get(`/v4/domains/${m.ids.main}/records`),
          await api[w].post(`/v4/domains/${m.ids.main}/records`, { type: 'TXT', name: 'suspended', target: 'no' }),
        ]) {
          expect(expectErrors(r, 403)[0]?.reason, w).toMatch(SUSPENDED);
        }
      }
    });
    expectV4(await api.editor.get('/v4/domains'), 'ok', 'resumed');
  });
});
