/**
 * The role matrix on the PowerDNS door (issues 30 and 31): each role, and an editor limited to one domain, reads
 * and changes zones, RRsets, cryptokeys and TSIG keys through /api/v1 with the key it signed in with, and gets
 * what interface B gives it in PowerDNS's words — 403 `{"error"}` for what its role may not do, 404 for a zone
 * outside its domains, which no list shows it. A suspended account's keys are refused, its zones still served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creates, inOther, setUpRoleMatrix, SUSPENDED, whileSuspended, WHO, writes, type Outcome, type RoleMatrix, type Who } from '../security/role-matrix.js';
import { pdns, pdnsZone, rrset, rrsetLines, type PdnsReply } from './support.js';

let m: RoleMatrix;

beforeAll(async () => {
  m = await setUpRoleMatrix();
});
afterAll(() => m.server.close());

const door = (w: Who, method: string, path: string, body?: unknown) => pdns(m.server.base, m.keys[w], method, path, body);
const asOwner = (method: string, path: string, body?: unknown) => door('owner', method, path, body);

function expectPdns(r: PdnsReply, want: Outcome, label: string): void {
  if (want === 'ok') {
    expect(r.status, `${label}: ${r.text}`).toBeLessThan(300);
    return;
  }
  expect(r.status, `${label}: ${r.text}`).toBe(want === 'refused' ? 403 : 404);
  expect(r.headers.get('content-type'), label).toMatch(/^application\/json/);
  expect(Object.keys(r.body), label).toEqual(['error']);
}

const zones = { main: 'main.example', other: 'other.example' } as const;
const outcomeIn = (w: Who, zone: keyof typeof zones, own: Outcome) => (zone === 'other' ? inOther(w, own) : own);

describe('zones and RRsets on the PowerDNS door', () => {
  it('reads: every role; the limited member lists, reads, exports and searches only its zone', async () => {
    for (const w of WHO) {
      const listed = (await door(w, 'GET', '~/zones')).body.map((z: { name: string }) => z.name);
      expect(listed, w).toEqual(w === 'limited' ? ['main.example.'] : ['main.example.', 'other.example.']);
      expect((await door(w, 'GET', '~/zones?zone=other.example.')).body, w).toHaveLength(w === 'limited' ? 0 : 1);
      for (const zone of ['main', 'other'] as const) {
        expectPdns(await door(w, 'GET', `~/zones/${zones[zone]}.`), outcomeIn(w, zone, 'ok'), `${w} read ${zone}`);
        expectPdns(await door(w, 'GET', `~/zones/${zones[zone]}./export`), outcomeIn(w, zone, 'ok'), `${w} export ${zone}`);
      }
      const found = (await door(w, 'GET', '~/search-data?q=*.example*')).body.map((o: { zone?: string }) => o.zone);
      expect(found.includes('other.example.'), `${w} searches`).toBe(w !== 'limited');
    }
  });

  it('RRset REPLACE and DELETE: all but the viewer; the limited member only in its zone, and a refusal changes nothing', async () => {
    for (const w of WHO) {
      for (const zone of ['main', 'other'] as const) {
        const name = `${m.unique(w)}.${zones[zone]}.`;
        expectPdns(await asOwner('PATCH', `~/zones/${zones[zone]}.`, { rrsets: [rrset(name, 'TXT', ['"by the owner"'])] }), 'ok', 'owner writes');
        const before = await rrsetLines(m.server.base, m.keys.owner, zones[zone]);
        const want = outcomeIn(w, zone, writes(w));
        const replaced = await door(w, 'PATCH', `~/zones/${zones[zone]}.`, { rrsets: [rrset(name, 'TXT', [`"by ${w}"`])] });
        expectPdns(replaced, want, `${w} replaces in ${zone}`);
        expectPdns(await door(w, 'PATCH', `~/zones/${zones[zone]}.`, { rrsets: [rrset(name, 'TXT', [], 3600, 'DELETE')] }), want, `${w} deletes in ${zone}`);
        if (want !== 'ok') expect(await rrsetLines(m.server.base, m.keys.owner, zones[zone]), `${w} in ${zone}`).toEqual(before);
      }
    }
  });

  it('zones: created by owners, admins and editors, not by a viewer nor a limited member; deleted within their domains', async () => {
    for (const w of WHO) {
      const made = await door(w, 'POST', '~/zones', { name: `${m.unique(w)}.example.`, kind: 'Native', nameservers: [] });
      expectPdns(made, creates(w), `${w} creates a zone`);
      const spare = `${m.unique('spare')}.example`;
      await pdnsZone(m.server.base, m.keys.owner, spare);
      expectPdns(await door(w, 'DELETE', `~/zones/${spare}.`), w === 'viewer' ? 'refused' : inOther(w, 'ok'), `${w} deletes a zone`);
    }
  });
});

describe('cryptokeys and TSIG keys on the PowerDNS door', () => {
  it('cryptokeys: read by every role; DNSSEC turned on and off by all but the viewer, within their zones', async () => {
    const path = `~/zones/${zones.main}./cryptokeys`;
    for (const w of WHO) {
      expectPdns(await door(w, 'GET', path), 'ok', `${w} reads cryptokeys`);
      const on = await door(w, 'POST', path, { keytype: 'csk', active: true });
      expectPdns(on, writes(w), `${w} turns DNSSEC on`);
      const key = on.status === 201 ? on.body : (await asOwner('POST', path, { keytype: 'csk', active: true })).body;
      expectPdns(await door(w, 'DELETE', `${path}/${key.id}`), writes(w), `${w} turns DNSSEC off`);
      if (w === 'viewer') expectPdns(await asOwner('DELETE', `${path}/${key.id}`), 'ok', 'the owner turns it off');
      expectPdns(await door(w, 'GET', `~/zones/${zones.other}./cryptokeys`), inOther(w, 'ok'), `${w} reads other's cryptokeys`);
    }
    expectPdns(await door('limited', 'POST', `~/zones/${zones.other}./cryptokeys`, { keytype: 'csk', active: true }), 'notfound', 'limited signs other');
  });

  it("TSIG keys: made by all but the viewer; editors and viewers list only their own and cannot remove another's", async () => {
    const made = {} as Record<Who, string>;
    for (const w of WHO) {
      const r = await door(w, 'POST', '~/tsigkeys', { name: `${m.unique(w)}.tsig.example`, algorithm: 'hmac-sha256' });
      expectPdns(r, writes(w), `${w} makes a TSIG key`);
      if (r.status === 201) made[w] = r.body.id;
    }
    const listed = async (w: Who) => (await door(w, 'GET', '~/tsigkeys')).body.map((k: { id: string }) => k.id).sort();
    expect(await listed('owner')).toEqual(Object.values(made).sort());
    expect(await listed('admin')).toEqual(Object.values(made).sort());
    expect(await listed('editor')).toEqual([made.editor]);
    expect(await listed('limited')).toEqual([made.limited]);
    expect(await listed('viewer')).toEqual([]);
    for (const w of ['editor', 'viewer', 'limited'] as const) expectPdns(await door(w, 'DELETE', `~/tsigkeys/${made.owner}`), 'notfound', `${w} removes the owner's key`);
    expectPdns(await door('admin', 'DELETE', `~/tsigkeys/${made.editor}`), 'ok', "the admin removes the editor's key");
    expectPdns(await door('editor', 'DELETE', `~/tsigkeys/${made.limited}`), 'notfound', "the editor removes the limited member's key");
  });
});

describe("a member's key after the member changed", () => {
  it('is narrowed at the next request when the member is limited, and refused with 401 once the member is removed', async () => {
    const gone = await m.member(m.unique('gone'), 'editor');
    const zoneNames = async () => (await pdns(m.server.base, gone.key, 'GET', '~/zones')).body.map((z: { name: string }) => z.name);
    expect(await zoneNames()).toContain('other.example.');
    expect((await m.owner.patch(`/v1/members/${gone.id}`, { domains: [m.ids.main] })).status).toBe(200);
    expect(await zoneNames()).toEqual(['main.example.']);
    expect((await m.owner.del(`/v1/members/${gone.id}`)).status).toBe(204);
    const r = await pdns(m.server.base, gone.key, 'GET', '~/zones');
    expect(r.status, r.text).toBe(401);
    expect(r.body).toEqual({ error: 'Unauthorized' });
  });
});

describe('a suspended account on the PowerDNS door', () => {
  it('refuses every member\'s key with 403 {"error"} saying the account is suspended, while its zone still answers', async () => {
    await whileSuspended(m, async () => {
      for (const w of WHO) {
        for (const [method, path, body] of [
          ['GET', '~/zones'],
          ['GET', `~/zones/${zones.main}.`],
          ['PATCH', `~/zones/${zones.main}.`, { rrsets: [rrset(`suspended.${zones.main}.`, 'TXT', ['"no"'])] }],
          ['GET', '~/tsigkeys'],
        ] as const) {
          const r = await door(w, method, path, body);
          expectPdns(r, 'refused', `${w} ${method} ${path}`);
          expect(r.body.error).toMatch(SUSPENDED);
        }
      }
    });
    expectPdns(await door('editor', 'GET', '~/zones'), 'ok', 'resumed');
  });
});
