/**
 * A TXT record of several character-strings keeps them at every door: a zone file imported (served by our
 * DNS as dig and kdig show it, exported as BIND reads the file), interface B (a list), interface A (the
 * master-file form), DNS UPDATE from nsupdate and knsupdate, a knotd secondary (AXFR out) and an import by
 * AXFR from a knotd primary. The Knot peers listen on spare loopback addresses 127.0.41.x with port 53.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Actor } from '../../src/services/index.js';
import { eventually, kdigAt, startKnot, startPrimary, zonehostPrimary, type Knot } from '../support/knot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { namedCheckzone } from '../support/zonefile.js';
import { client, createDomain as createV1Domain, type Client } from '../v1/support.js';
import { data } from '../v3/support.js';
import { dig, kdig, updateClient } from './support.js';
import { peers } from '../support/peers.js';

// Every test checks what real tools show (dig and kdig beside each other, BIND's checker, Knot's servers).
const needsTools = peers('dig', 'kdig', 'named-checkzone', 'nsupdate', 'knsupdate', 'knotd', 'knotc');

const ZONE = 'strings.test';
const IMPORTED = 'moved-strings.test';
const SECONDARY = '127.0.41.1';
const PRIMARY = '127.0.41.2';
const SECRET = 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI='; // 32 bytes

/** The record of the defect found against BIND, as a zone file writes it, and its rdata as dig, kdig and our export show it. */
const LINE = 'txt1 TXT "quoted \\"escape\\" and \\\\backslash" "second string"';
const RDATA = '"quoted \\"escape\\" and \\\\backslash" "second string"';
/** The same strings as interface B gives them. */
const STRINGS = ['quoted "escape" and \\backslash', 'second string'];

let server: TestServer;
let api: Client;
let key: string;
let id: number;
let secondary: Knot;
let primary: Knot;
let dir: string;

beforeAll(async () => {
  server = await startTestServer({ importAllow: ['127.0.41.0/24'] });
  const user = await server.user('strings');
  key = user.key;
  api = client(server.base, key);
  id = await createDomain(ZONE, { axfr: [SECONDARY] });
  const actor: Actor = { accountId: user.accountId, userId: user.accountId, role: 'owner', username: 'strings', keyLabel: 'test', iface: 'cli', remoteAddr: '' };
  await server.services.tsigKeys.create(actor, { name: 'strings.key', secret: SECRET, domains: [id], update: true });
  dir = mkdtempSync(join(tmpdir(), 'zonehost-txt-'));
}, 60_000);
afterAll(async () => {
  await secondary?.stop();
  await primary?.stop();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const createDomain = (name: string, extra: Record<string, unknown> = {}): Promise<number> => createV1Domain(api, name, extra);

async function exported(domainId: number): Promise<string> {
  const r = await api.get(`/v1/domains/${domainId}/zonefile`);
  expect(r.status, r.text).toBe(200);
  return r.text;
}

/** The TXT rdata at `name` in ZONE as dig and kdig print it (each the same, else the test fails). */
async function served(name: string, zone = ZONE): Promise<string[]> {
  const [a, b] = [await dig(server, `${name}.${zone}`, 'TXT'), await kdig(server, `${name}.${zone}`, 'TXT')];
  const data = a.answer.map((r) => r.data).sort();
  expect(b.answer.map((r) => r.data).sort()).toEqual(data);
  return data;
}

/** Interface B's TXT records of a domain by name. */
async function v1Texts(domainId: number): Promise<Record<string, unknown>> {
  const r = await api.get(`/v1/domains/${domainId}/TXT`);
  expect(r.status, r.text).toBe(200);
  return Object.fromEntries((r.body as { name: string; text: unknown }[]).map((x) => [x.name, x.text]));
}

needsTools.describe('a TXT record of several strings', () => {
  it('imported from a zone file, is served, shown and exported with both strings, escapes intact', async () => {
    const file = `$ORIGIN ${ZONE}.\n$TTL 3600\n${LINE}\none TXT "just one"\n`;
    const r = await api.call('PUT', `/v1/domains/${id}/zonefile`, { raw: file, headers: { 'content-type': 'text/dns' } });
    expect(r.status, r.text).toBe(200);
    expect(await served('txt1')).toEqual([RDATA]);
    expect(await served('one')).toEqual(['"just one"']);
    expect(await v1Texts(id)).toMatchObject({ txt1: STRINGS, one: 'just one' });
    const list = await data(server.base, { api_action: 'domain.resource.list', api_key: key, DomainID: id });
    expect(list.find((x: { NAME: string }) => x.NAME === 'txt1')?.TARGET).toBe(RDATA);
    expect(list.find((x: { NAME: string }) => x.NAME === 'one')?.TARGET).toBe('just one');
    const text = await exported(id);
    expect(text).toContain(`txt1.${ZONE}.\t3600\tIN\tTXT\t${RDATA}\n`);
    const path = join(dir, 'export.zone');
    writeFileSync(path, text);
    expect(await namedCheckzone(ZONE, path)).toBeNull();
  });

  it('through interface B: a list of strings, or one text as always', async () => {
    const several = await api.post(`/v1/domains/${id}/TXT`, { name: 'b2', text: ['v=DKIM1; k=rsa; ', 'p=MIIB', ''] });
    expect(several.status, several.text).toBe(201);
    expect(several.body.text).toEqual(['v=DKIM1; k=rsa; ', 'p=MIIB', '']);
    expect(await served('b2')).toEqual(['"v=DKIM1; k=rsa; " "p=MIIB" ""']);
    const one = await api.post(`/v1/domains/${id}/TXT`, { name: 'b1', text: 'héllo' });
    expect(one.body.text).toBe('héllo');
    // A list of one string is that string; a long text is still split into 255-byte strings.
    const listed = await api.post(`/v1/domains/${id}/TXT`, { name: 'b3', text: ['alone'] });
    expect(listed.body.text).toBe('alone');
    const long = await api.post(`/v1/domains/${id}/TXT`, { name: 'b4', text: 'x'.repeat(300) });
    expect(long.body.text).toBe('x'.repeat(300));
    expect(await served('b4')).toEqual([`"${'x'.repeat(255)}" "${'x'.repeat(45)}"`]);
    // A change of the TTL alone keeps the strings.
    const patched = await api.patch(`/v1/domains/${id}/TXT/${several.body.id}`, { ttl: 600 });
    expect(patched.body.text).toEqual(['v=DKIM1; k=rsa; ', 'p=MIIB', '']);
    const tooLong = await api.post(`/v1/domains/${id}/TXT`, { name: 'b5', text: ['é'.repeat(128), 'x'] });
    expect(tooLong.status, tooLong.text).toBe(400);
  });

  it('through interface A: an update that gives the Target back as listed keeps the strings', async () => {
    const list = await data(server.base, { api_action: 'domain.resource.list', api_key: key, DomainID: id });
    const rec = list.find((x: { NAME: string }) => x.NAME === 'txt1');
    await data(server.base, { api_action: 'domain.resource.update', api_key: key, DomainID: id, ResourceID: rec.RESOURCEID, Target: rec.TARGET, TTL_sec: 300 });
    await data(server.base, { api_action: 'domain.resource.update', api_key: key, DomainID: id, ResourceID: rec.RESOURCEID, Weight: 1 });
    expect(await served('txt1')).toEqual([RDATA]);
  });

  it('added by nsupdate and knsupdate', async () => {
    const tsig = `hmac-sha256:strings.key:${SECRET}`;
    const ns = await updateClient(server, [], 'nsupdate', tsig, [`zone ${ZONE}`, `update add u1.${ZONE} 300 TXT "one two" "three"`]);
    expect(ns).toEqual({ ok: true, output: '' });
    const knot = await updateClient(server, [], 'knsupdate', tsig, [`zone ${ZONE}.`, `origin ${ZONE}.`, 'update add u2 300 TXT "a\\"b" "c\\\\d"']);
    expect(knot).toEqual({ ok: true, output: '' });
    expect(await served('u1')).toEqual(['"one two" "three"']);
    expect(await served('u2')).toEqual(['"a\\"b" "c\\\\d"']);
    expect(await v1Texts(id)).toMatchObject({ u1: ['one two', 'three'], u2: ['a"b', 'c\\d'] });
  });

  it('transferred to a knotd secondary, which serves both strings', async () => {
    secondary = await startKnot({ address: SECONDARY, config: `${zonehostPrimary(server)}zone:\n  - domain: ${ZONE}\n    master: zonehost\n    acl: notify_from_zonehost\n    storage: "{dir}"\n` });
    await eventually(`knot serving txt1.${ZONE}\n${secondary.log()}`, async () => (await kdigAt(secondary, `txt1.${ZONE}`, 'TXT')).answer.length > 0);
    expect((await kdigAt(secondary, `txt1.${ZONE}`, 'TXT')).answer.map((r) => r.data)).toEqual([RDATA]);
  });

  it('imported by AXFR from a knotd primary, keeps both strings', async () => {
    const file = `$ORIGIN ${IMPORTED}.\n$TTL 3600\n@ SOA ns1.old.test. admin.${IMPORTED}. 1 7200 1800 1209600 300\n@ NS ns1.old.test.\n${LINE}\n`;
    primary = await startPrimary(PRIMARY, IMPORTED, file, 9);
    const domainId = await createDomain(IMPORTED);
    const r = await api.post(`/v1/domains/${domainId}/zonefile/transfer`, { server: PRIMARY });
    expect(r.status, r.text).toBe(200);
    expect(await served('txt1', IMPORTED)).toEqual([RDATA]);
    expect(await exported(domainId)).toContain(`\tTXT\t${RDATA}\n`);
  });
});
