/**
 * DNS UPDATE (RFC 2136) signed with TSIG (RFC 8945), driven by the real clients people script: BIND's
 * nsupdate and Knot's knsupdate. Every prerequisite and update form, the rcodes of each failure, a key's
 * scope, wrong secrets, skewed clocks, unsigned messages; and that what a refused message tried left the
 * zone exactly as it was.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { Actor } from '../../src/services/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createDomain, createRecord, dig, rrs, updateClient, type UpdateOutcome as Outcome } from './support.js';
import { peers } from '../support/peers.js';

const needsDigNsupdate = peers('dig', 'nsupdate');
const needsNsupdate = peers('nsupdate');
const needsKnsupdate = peers('knsupdate');
const needsKnsupdateFaketime = peers('knsupdate', 'faketime');
const needsDig = peers('dig');
const needsNsupdateKnsupdate = peers('nsupdate', 'knsupdate');
const needsDigKnsupdate = peers('dig', 'knsupdate');

const ZONE = 'upd.example';
const OTHER = 'other.example';
const SECRET = 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI='; // 32 bytes

let server: TestServer;
let domainId: number;
let apiKey: string;
let actor: Actor;

beforeAll(async () => {
  server = await startTestServer();
  const user = await server.user('updater');
  apiKey = user.key;
  actor = { accountId: user.accountId, userId: user.accountId, role: 'owner', username: 'updater', keyLabel: 'test', iface: 'cli', remoteAddr: '' };
  domainId = await createDomain(server.base, apiKey, ZONE);
  await createDomain(server.base, apiKey, OTHER);
  await createRecord(server.base, apiKey, domainId, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
  await server.services.tsigKeys.create(actor, { name: 'full.key', secret: SECRET, domains: [domainId], update: true });
  await server.services.tsigKeys.create(actor, { name: 'acme.key', algorithm: 'hmac-sha512', secret: SECRET, domains: [domainId], update: { names: ['_acme-challenge', '*.dyn'], types: ['TXT'] } });
  await server.services.tsigKeys.create(actor, { name: 'reader.key', secret: SECRET, domains: [domainId], update: false, transfer: true });
});
afterAll(() => server.close());

/** nsupdate with `lines` for ZONE (`server`, `zone` and `send` added). */
const nsupdate = (key: string | null, lines: string[], zone = ZONE, port?: number): Promise<Outcome> => updateClient(server, [], 'nsupdate', key, [`zone ${zone}`, ...lines], [], port);

/** knsupdate (Knot), names relative to ZONE. */
const knsupdate = (key: string | null, lines: string[], prefix: string[] = []): Promise<Outcome> => updateClient(server, prefix, 'knsupdate', key, [`zone ${ZONE}.`, `origin ${ZONE}.`, ...lines]);

const FULL = `hmac-sha256:full.key:${SECRET}`;
const ACME = `hmac-sha512:acme.key:${SECRET}`;

const answer = async (name: string, type: string) => rrs((await dig(server, `${name}.${ZONE}`, type)).answer);
const serial = async () => Number((await dig(server, ZONE, 'SOA')).answer[0]?.data.split(' ')[2]);
const events = async () => (await (await fetch(`${server.base}/v1/events?domain=${domainId}&limit=500`, { headers: { authorization: `Bearer ${apiKey}` } })).json()) as { action: string; key_label: string; interface: string; before: unknown; after: unknown }[];

describe('nsupdate signed with a key that may update the whole zone', () => {
  needsDigNsupdate.it('adds records, answered at once, with one serial increase and one journal entry naming the key', async () => {
    const before = await serial();
    const eventsBefore = (await events()).length;
    const r = await nsupdate(FULL, ['update add a.upd.example 300 A 192.0.2.10', 'update add a.upd.example 300 A 192.0.2.11', 'update add a.upd.example 300 TXT "hello world"']);
    expect(r).toEqual({ ok: true, output: '' });
    expect(await answer('a', 'A')).toEqual([`a.${ZONE}. 300 A 192.0.2.10`, `a.${ZONE}. 300 A 192.0.2.11`]);
    expect(await answer('a', 'TXT')).toEqual([`a.${ZONE}. 300 TXT "hello world"`]);
    expect(await serial()).toBe(before + 1);
    const added = (await events()).slice(eventsBefore);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ action: 'record.batch', key_label: 'tsig:full.key.', interface: 'dns', before: [] });
    expect(added[0]?.after).toHaveLength(3);
  });

  needsDigNsupdate.it('deletes one record, an RRset, and every RRset at a name', async () => {
    await nsupdate(FULL, ['update add d.upd.example 300 A 192.0.2.20', 'update add d.upd.example 300 A 192.0.2.21', 'update add d.upd.example 300 TXT "t"', 'update add d.upd.example 300 MX 10 mail.upd.example.']);
    expect((await nsupdate(FULL, ['update delete d.upd.example A 192.0.2.20'])).ok).toBe(true);
    expect(await answer('d', 'A')).toEqual([`d.${ZONE}. 300 A 192.0.2.21`]);
    expect((await nsupdate(FULL, ['update delete d.upd.example TXT'])).ok).toBe(true);
    expect(await answer('d', 'TXT')).toEqual([]);
    expect(await answer('d', 'MX')).toHaveLength(1);
    expect((await nsupdate(FULL, ['update delete d.upd.example'])).ok).toBe(true);
    expect((await dig(server, `d.${ZONE}`, 'A')).status).toBe('NXDOMAIN');
  });

  needsDigNsupdate.it('re-adding a record that is there changes nothing, and the serial stays; with another TTL it sets the TTL', async () => {
    expect((await nsupdate(FULL, ['update add same.upd.example 3600 A 192.0.2.2'])).ok).toBe(true);
    const before = await serial();
    expect((await nsupdate(FULL, ['update add same.upd.example 3600 A 192.0.2.2'])).ok).toBe(true);
    expect(await serial()).toBe(before);
    expect((await nsupdate(FULL, ['update add same.upd.example 7200 A 192.0.2.2'])).ok).toBe(true);
    expect(await answer('same', 'A')).toEqual([`same.${ZONE}. 7200 A 192.0.2.2`]);
  });

  needsDigNsupdate.it('checks each of the five prerequisites and answers as RFC 2136 3.2 says', async () => {
    // Name is in use / not in use.
    expect(await nsupdate(FULL, ['prereq yxdomain nothere.upd.example', 'update add p1.upd.example 300 A 192.0.2.30'])).toMatchObject({ ok: false, output: expect.stringContaining('NXDOMAIN') });
    expect(await nsupdate(FULL, ['prereq nxdomain www.upd.example', 'update add p1.upd.example 300 A 192.0.2.30'])).toMatchObject({ ok: false, output: expect.stringContaining('YXDOMAIN') });
    // RRset exists (value-independent) / does not exist.
    expect(await nsupdate(FULL, ['prereq yxrrset www.upd.example AAAA', 'update add p1.upd.example 300 A 192.0.2.30'])).toMatchObject({ ok: false, output: expect.stringContaining('NXRRSET') });
    expect(await nsupdate(FULL, ['prereq nxrrset www.upd.example A', 'update add p1.upd.example 300 A 192.0.2.30'])).toMatchObject({ ok: false, output: expect.stringContaining('YXRRSET') });
    // RRset exists with exactly these records (value-dependent).
    expect(await nsupdate(FULL, ['prereq yxrrset www.upd.example A 192.0.2.99', 'update add p1.upd.example 300 A 192.0.2.30'])).toMatchObject({ ok: false, output: expect.stringContaining('NXRRSET') });
    expect(await answer('p1', 'A')).toEqual([]);
    // All holding: the update is made.
    const ok = await nsupdate(FULL, [
      'prereq yxdomain www.upd.example',
      'prereq nxdomain p1.upd.example',
      'prereq yxrrset www.upd.example A',
      'prereq nxrrset www.upd.example AAAA',
      'prereq yxrrset www.upd.example A 192.0.2.1',
      'update add p1.upd.example 300 A 192.0.2.30',
    ]);
    expect(ok).toEqual({ ok: true, output: '' });
    expect(await answer('p1', 'A')).toEqual([`p1.${ZONE}. 300 A 192.0.2.30`]);
  });

  needsDigNsupdate.it('sees the SOA and the service name servers at the apex, and leaves them alone', async () => {
    expect((await nsupdate(FULL, ['prereq yxrrset upd.example SOA', 'prereq yxrrset upd.example NS ns1.zonehost.test.', 'prereq yxrrset upd.example NS ns2.zonehost.test.', 'update add apex-ok.upd.example 300 A 192.0.2.5'])).ok).toBe(true);
    const before = await serial();
    expect((await nsupdate(FULL, ['update delete upd.example NS', 'update delete upd.example SOA', 'update delete upd.example'])).ok).toBe(true);
    expect((await nsupdate(FULL, ['update add upd.example 300 SOA ns.elsewhere.example. me.elsewhere.example. 1 2 3 4 5', 'update add upd.example 300 NS ns1.zonehost.test.'])).ok).toBe(true);
    expect(rrs((await dig(server, ZONE, 'NS')).answer)).toEqual([`${ZONE}. 86400 NS ns1.zonehost.test.`, `${ZONE}. 86400 NS ns2.zonehost.test.`]);
    expect((await dig(server, ZONE, 'SOA')).answer).toHaveLength(1);
    expect(await serial()).toBe(before);
  });

  needsDigNsupdate.it('applies all of a message or none of it: a CNAME beside other data is refused and nothing else lands', async () => {
    const before = await serial();
    const r = await nsupdate(FULL, ['update add all1.upd.example 300 A 192.0.2.40', 'update add www.upd.example 300 CNAME elsewhere.example.']);
    expect(r).toMatchObject({ ok: false, output: expect.stringContaining('REFUSED') });
    expect(await answer('all1', 'A')).toEqual([]);
    expect(await serial()).toBe(before);
  });

  needsNsupdate.it('refuses records the registry refuses, and names outside the zone (NOTZONE)', async () => {
    expect(await nsupdate(FULL, ['update add bad.upd.example 300 CAA 0 nonsense "x"'])).toMatchObject({ ok: false, output: expect.stringContaining('REFUSED') });
    expect(await nsupdate(FULL, ['update add www.other.example 300 A 192.0.2.1'])).toMatchObject({ ok: false, output: expect.stringContaining('NOTZONE') });
  });

  needsDigNsupdate.it('applies concurrent messages each on its own: a refused one changes nothing, the others land, each in its own journal entry', async () => {
    const eventsBefore = (await events()).length;
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        nsupdate(FULL, [...(i % 3 === 0 ? ['prereq yxdomain missing.upd.example'] : []), `update add c${i}.upd.example 300 A 192.0.2.${100 + i}`]),
      ),
    );
    outcomes.forEach((o, i) => expect(o.ok, `message ${i}: ${o.output}`).toBe(i % 3 !== 0));
    for (let i = 0; i < 12; i++) expect(await answer(`c${i}`, 'A')).toHaveLength(i % 3 === 0 ? 0 : 1);
    const added = (await events()).slice(eventsBefore);
    expect(added).toHaveLength(8);
    expect(added.every((e) => e.action === 'record.batch' && e.key_label === 'tsig:full.key.')).toBe(true);
  });

  needsDigNsupdate.it('keeps an in-zone name server with an address, as the APIs do', async () => {
    await createRecord(server.base, apiKey, domainId, { Type: 'A', Name: 'ns', Target: '192.0.2.53' });
    await createRecord(server.base, apiKey, domainId, { Type: 'NS', Name: '', Target: `ns.${ZONE}` });
    const before = await serial();
    expect(await nsupdate(FULL, ['update delete ns.upd.example A'])).toMatchObject({ ok: false, output: expect.stringContaining('REFUSED') });
    expect(await answer('ns', 'A')).toEqual([`ns.${ZONE}. 86400 A 192.0.2.53`]);
    // Another address in the same message keeps it served.
    expect(await nsupdate(FULL, ['update delete ns.upd.example A', 'update add ns.upd.example 300 AAAA 2001:db8::53'])).toEqual({ ok: true, output: '' });
    // A new apex name server inside the zone needs its address first.
    expect(await nsupdate(FULL, ['update add upd.example 300 NS ns2.upd.example.'])).toMatchObject({ ok: false, output: expect.stringContaining('REFUSED') });
    expect(await nsupdate(FULL, ['update add ns2.upd.example 300 A 192.0.2.54', 'update add upd.example 300 NS ns2.upd.example.'])).toEqual({ ok: true, output: '' });
    expect(rrs((await dig(server, ZONE, 'NS')).answer).map((r) => r.replace(/ \d+ NS /, ' NS '))).toEqual(expect.arrayContaining([`${ZONE}. NS ns.${ZONE}.`, `${ZONE}. NS ns2.${ZONE}.`]));
    expect(await nsupdate(FULL, ['update delete ns2.upd.example A'])).toMatchObject({ ok: false, output: expect.stringContaining('REFUSED') });
    expect(await serial()).toBe(before + 2);
  });

  needsDigNsupdate.it('works over TCP as over UDP (nsupdate -v)', async () => {
    expect(await updateClient(server, [], 'nsupdate', FULL, [`zone ${ZONE}`, 'prereq nxdomain tcp.upd.example', 'update add tcp.upd.example 300 A 192.0.2.90'], ['-v'])).toEqual({ ok: true, output: '' });
    expect(await answer('tcp', 'A')).toEqual([`tcp.${ZONE}. 300 A 192.0.2.90`]);
    expect(await updateClient(server, [], 'nsupdate', FULL, [`zone ${ZONE}`, 'prereq nxdomain tcp.upd.example', 'update add tcp.upd.example 300 A 192.0.2.91'], ['-v'])).toMatchObject({ ok: false, output: expect.stringContaining('YXDOMAIN') });
  });

  needsDigNsupdate.it('takes the new record types too', async () => {
    expect(await nsupdate(FULL, ['update add svc.upd.example 300 HTTPS 1 . alpn=h2 port=8443'])).toEqual({ ok: true, output: '' });
    expect(await answer('svc', 'HTTPS')).toEqual([`svc.${ZONE}. 300 HTTPS 1 . alpn="h2" port=8443`]);
    expect((await nsupdate(FULL, ['update add _443._tcp.upd.example 300 TLSA 3 1 1 0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20'])).ok).toBe(true);
    expect(rrs((await dig(server, `_443._tcp.${ZONE}`, 'TLSA', '+nosplit')).answer)).toEqual([`_443._tcp.${ZONE}. 300 TLSA 3 1 1 0102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F20`]);
  });
});

describe('a key limited to _acme-challenge TXT records', () => {
  needsDigNsupdate.it('writes and deletes them, also below *.dyn', async () => {
    expect(await nsupdate(ACME, ['update add _acme-challenge.upd.example 120 TXT "token-1"'])).toEqual({ ok: true, output: '' });
    expect(await answer('_acme-challenge', 'TXT')).toEqual([`_acme-challenge.${ZONE}. 300 TXT "token-1"`]);
    expect((await nsupdate(ACME, ['update add a.b.dyn.upd.example 300 TXT "x"'])).ok).toBe(true);
    expect((await nsupdate(ACME, ['update delete _acme-challenge.upd.example TXT "token-1"'])).ok).toBe(true);
    expect(await answer('_acme-challenge', 'TXT')).toEqual([]);
  });

  needsDigNsupdate.it('is refused any other name or type, and the zone does not change', async () => {
    const before = await serial();
    expect(await nsupdate(ACME, ['update add www.upd.example 300 TXT "x"'])).toMatchObject({ ok: false, output: expect.stringContaining('REFUSED') });
    expect(await nsupdate(ACME, ['update add _acme-challenge.upd.example 300 CNAME target.example.'])).toMatchObject({ ok: false, output: expect.stringContaining('REFUSED') });
    expect(await nsupdate(ACME, ['update delete dyn.upd.example TXT'])).toMatchObject({ ok: false, output: expect.stringContaining('REFUSED') });
    expect(await nsupdate(ACME, ['update add _acme-challenge.upd.example 300 TXT "ok"', 'update delete www.upd.example A'])).toMatchObject({ ok: false, output: expect.stringContaining('REFUSED') });
    expect(await serial()).toBe(before);
    expect(await answer('www', 'A')).toEqual([`www.${ZONE}. 86400 A 192.0.2.1`]);
  });

  needsNsupdate.it('is refused in a domain it was not given (its own account\'s)', async () => {
    expect(await nsupdate(ACME, [`update add _acme-challenge.${OTHER} 300 TXT "x"`], OTHER)).toMatchObject({ ok: false, output: expect.stringContaining('REFUSED') });
  });
});

describe('messages that do not authenticate', () => {
  needsNsupdate.it('unsigned: REFUSED', async () => {
    expect(await nsupdate(null, ['update add u.upd.example 300 A 192.0.2.50'])).toMatchObject({ ok: false, output: expect.stringContaining('REFUSED') });
  });

  needsNsupdate.it('a wrong secret: NOTAUTH with BADSIG, and nsupdate says the answer did not verify', async () => {
    const r = await nsupdate(`hmac-sha256:full.key:${Buffer.alloc(32, 1).toString('base64')}`, ['update add u.upd.example 300 A 192.0.2.50']);
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/BADSIG|NOTAUTH|tsig/i);
  });

  needsKnsupdate.it('an unknown key: BADKEY; the key under another algorithm: BADKEY', async () => {
    expect((await knsupdate(`hmac-sha256:nobody.key:${SECRET}`, ['update add u 300 A 192.0.2.50'])).output).toMatch(/BADKEY/);
    expect((await knsupdate(`hmac-sha384:full.key:${SECRET}`, ['update add u 300 A 192.0.2.50'])).output).toMatch(/BADKEY/);
  });

  needsKnsupdateFaketime.it('a clock an hour off: NOTAUTH with BADTIME', async () => {
    // libfaketime sets knsupdate's clock back (nsupdate does not run under it).
    const r = await knsupdate(FULL, ['update add u 300 A 192.0.2.50'], ['faketime', '-f', '-1h']);
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/BADTIME/);
  });

  needsNsupdate.it('a key that may only transfer: REFUSED', async () => {
    expect(await nsupdate(`hmac-sha256:reader.key:${SECRET}`, ['update add u.upd.example 300 A 192.0.2.50'])).toMatchObject({ ok: false, output: expect.stringContaining('REFUSED') });
  });

  needsDig.it('left the zone as it was', async () => {
    expect((await dig(server, `u.${ZONE}`, 'A')).status).toBe('NXDOMAIN');
  });

  needsNsupdateKnsupdate.it('a revoked key fails on the next message', async () => {
    const { key } = await server.services.tsigKeys.create(actor, { name: 'short-lived.key', secret: SECRET, domains: [domainId], update: true });
    const k = `hmac-sha256:short-lived.key:${SECRET}`;
    expect((await nsupdate(k, ['update add rv.upd.example 300 A 192.0.2.60'])).ok).toBe(true);
    await server.services.tsigKeys.delete(actor, key.id);
    expect((await knsupdate(k, ['update add rv2 300 A 192.0.2.61'])).output).toMatch(/BADKEY/);
  });
});

describe('knsupdate', () => {
  needsDigKnsupdate.it('adds, deletes and checks prerequisites with the same outcomes', async () => {
    expect(await knsupdate(FULL, ['prereq nxdomain k1', 'add k1 300 AAAA 2001:db8::1', 'add k1 300 TXT "from knot"'])).toEqual({ ok: true, output: '' });
    expect(await answer('k1', 'AAAA')).toEqual([`k1.${ZONE}. 300 AAAA 2001:db8::1`]);
    expect((await knsupdate(FULL, ['prereq nxdomain k1', 'add k1 300 A 192.0.2.70'])).output).toMatch(/YXDOMAIN/);
    expect((await knsupdate(FULL, ['prereq yxrrset k1 TXT "from knot"', 'del k1 AAAA'])).ok).toBe(true);
    expect(await answer('k1', 'AAAA')).toEqual([]);
    expect((await knsupdate(FULL, ['prereq nxrrset k1 TXT', 'del k1'])).output).toMatch(/YXRRSET/);
    expect((await knsupdate(FULL, ['prereq yxdomain k1', 'del k1'])).ok).toBe(true);
    expect((await dig(server, `k1.${ZONE}`, 'TXT')).status).toBe('NXDOMAIN');
  });
});


describe('the record limit (--max-records)', () => {
  let small: TestServer;
  afterAll(() => small?.close());

  needsNsupdate.it('holds for messages applied together: the ones that would pass it are refused', async () => {
    small = await startTestServer({ limits: { recordsPerDomain: 5 } });
    const user = await small.user('limited');
    const who: Actor = { accountId: user.accountId, userId: user.accountId, role: 'owner', username: 'limited', keyLabel: 'test', iface: 'cli', remoteAddr: '' };
    const id = await createDomain(small.base, user.key, ZONE);
    await createRecord(small.base, user.key, id, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
    await small.services.tsigKeys.create(who, { name: 'full.key', secret: SECRET, domains: [id], update: true });
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => nsupdate(FULL, [`update add l${i}.upd.example 300 TXT "n${i}"`], ZONE, small.dnsAddress?.port)));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(4);
    expect(outcomes.filter((o) => !o.ok).every((o) => o.output.includes('REFUSED'))).toBe(true);
    // Deleting one makes room for one.
    const added = outcomes.findIndex((o) => o.ok);
    expect((await nsupdate(FULL, [`update delete l${added}.upd.example TXT`, 'update add m1.upd.example 300 TXT "m"'], ZONE, small.dnsAddress?.port)).ok).toBe(true);
    expect(await nsupdate(FULL, ['update add m2.upd.example 300 TXT "m"'], ZONE, small.dnsAddress?.port)).toMatchObject({ ok: false, output: expect.stringContaining('REFUSED') });
  });
});
