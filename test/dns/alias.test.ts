/**
 * ALIAS (issue 32): a knotd this test runs serves the target's zone and stands as the resolver
 * (`--resolver`). The apex's ALIAS is answered with the target's addresses through dig and kdig, follows a
 * change of them within their TTL, goes on from the cache when the resolver is gone, and a target that never
 * resolved gets SERVFAIL with an Extended DNS Error. Interface B refuses what the zone rules forbid, a knotd
 * secondary gets the resolved addresses by AXFR (and the new ones after a change), and a signed zone's ALIAS
 * answer validates with delv.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { delv } from '../support/dnssec.js';
import { eventually, kdigAt, startKnot, transfer, zonehostPrimary, type Knot } from '../support/knot.js';
import { peers } from '../support/peers.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createDomain, dig, kdig } from './support.js';

const needsKnot = peers('knotd', 'knotc', 'dig', 'kdig');
const needsKnotDelv = peers('knotd', 'knotc', 'dig', 'delv');

const RESOLVER = '127.0.36.1';
const SECONDARY = '127.0.36.2';
const ZONE = 'alias.example';
const SIGNED = 'signed-alias.example';
/** The target's TTL: short, so the test sees a change followed. */
const TTL = 2;

/** The addresses of many.target.test: more than a 1232-octet UDP answer holds, so the resolver's is truncated. */
const MANY = Array.from({ length: 100 }, (_, i) => `198.51.100.${i + 1}`);

const targetZone = (serial: number, v4: string) => `$ORIGIN target.test.
$TTL ${TTL}
@ 300 SOA ns.target.test. admin.target.test. ${serial} 3600 600 86400 60
@ 300 NS ns.target.test.
ns 300 A 192.0.2.53
www A ${v4}
www AAAA 2001:db8::10
v4only 300 A 192.0.2.11
${MANY.map((a) => `many 300 A ${a}`).join('\n')}
`;

let server: TestServer;
let resolver: Knot | undefined;
let secondary: Knot | undefined;
let apiKey: string;
let domainId: number;

const v1 = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.base}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
};

const answers = async (name: string, type: string) => (await dig(server, name, type)).answer.map((r) => `${r.name} ${r.ttl} ${r.type} ${r.data}`);

beforeAll(async () => {
  resolver = await startKnot({
    address: RESOLVER,
    files: { 'target.test.zone': targetZone(1, '192.0.2.10') },
    config: `zone:\n  - domain: target.test\n    file: "{dir}/target.test.zone"\n    zonefile-sync: -1\n    journal-content: none\n`,
  }).catch(() => undefined);
  server = await startTestServer({ resolver: { host: RESOLVER, port: 53 }, rrl: { rate: 0 } });
  ({ key: apiKey } = await server.user('aliaser'));
  domainId = await createDomain(server.base, apiKey, ZONE, { axfr_ips: `127.0.0.1;${SECONDARY}` });
});

afterAll(async () => {
  await secondary?.stop();
  await resolver?.stop();
  await server?.close();
});

describe('ALIAS', () => {
  needsKnot.it('takes an ALIAS at the apex on interface B, beside MX and TXT', async () => {
    const made = await v1('POST', `/domains/${domainId}/ALIAS`, { name: '', target: 'www.target.test.', ttl: 300 });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: '', target: 'www.target.test', ttl: 300 });
    expect((await v1('GET', `/domains/${domainId}/ALIAS`)).body).toHaveLength(1);
    // Beside other data at the apex: MX and TXT are fine.
    expect((await v1('POST', `/domains/${domainId}/MX`, { name: '', mail_server: 'mail.alias.example', priority: 10 })).status).toBe(201);
    expect((await v1('POST', `/domains/${domainId}/TXT`, { name: '', text: 'v=spf1 -all' })).status).toBe(201);
  });

  needsKnot.it('refuses what the zone rules forbid beside an ALIAS, with problem+json naming why', async () => {
    const a = await v1('POST', `/domains/${domainId}/A`, { name: '', address: '192.0.2.99' });
    expect(a.status).toBe(409);
    expect(a.body.detail).toMatch(/ALIAS.*A records/);
    const second = await v1('POST', `/domains/${domainId}/ALIAS`, { name: '', target: 'other.target.test' });
    expect(second.status).toBe(409);
    expect(second.body.detail).toMatch(/a name holds one/);
    expect((await v1('POST', `/domains/${domainId}/CNAME`, { name: 'c', target: 'www.target.test' })).status).toBe(201);
    const besideCname = await v1('POST', `/domains/${domainId}/ALIAS`, { name: 'c', target: 'www.target.test' });
    expect(besideCname.status).toBe(409);
    expect((await v1('POST', `/domains/${domainId}/AAAA`, { name: 'h', address: '2001:db8::1' })).status).toBe(201);
    expect((await v1('POST', `/domains/${domainId}/ALIAS`, { name: 'h', target: 'www.target.test' })).status).toBe(409);
    const self = await v1('POST', `/domains/${domainId}/ALIAS`, { name: 'self', target: 'self.alias.example' });
    expect(self.status).toBe(400);
    expect(JSON.stringify(self.body)).toMatch(/own name/);
    const bad = await v1('POST', `/domains/${domainId}/ALIAS`, { name: 'x', target: 'not a host' });
    expect(bad.status).toBe(400);
  });

  needsKnot.it("answers A and AAAA at the apex with the target's addresses, owned by the apex, at the smaller TTL (dig and kdig)", async () => {
    expect(resolver, 'knotd (the resolver) did not start').toBeDefined();
    expect(await answers(ZONE, 'A')).toEqual([`${ZONE}. ${TTL} A 192.0.2.10`]);
    expect(await answers(ZONE, 'AAAA')).toEqual([`${ZONE}. ${TTL} AAAA 2001:db8::10`]);
    const k = await kdig(server, ZONE, 'A');
    expect(k.status).toBe('NOERROR');
    expect(k.flags).toContain('aa');
    expect(k.answer.map((r) => `${r.type} ${r.data}`)).toEqual(['A 192.0.2.10']);
    // The other types at the apex are its own.
    expect((await dig(server, ZONE, 'MX')).answer.map((r) => r.data)).toEqual(['10 mail.alias.example.']);
  });

  needsKnot.it('reads ALIAS from a zone file (by mnemonic and as TYPE65401) and writes it back as ALIAS', async () => {
    const id = await createDomain(server.base, apiKey, 'file-alias.example');
    const wire = Buffer.concat([Buffer.from([3]), Buffer.from('www'), Buffer.from([6]), Buffer.from('target'), Buffer.from([4]), Buffer.from('test'), Buffer.from([0])]);
    const text = `@ 300 IN ALIAS www.target.test.\nv6 300 IN TYPE65401 \\# ${wire.length} ${wire.toString('hex')}\n`;
    const put = await fetch(`${server.base}/v1/domains/${id}/zonefile`, { method: 'PUT', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'text/dns' }, body: text });
    expect(put.status, await put.clone().text()).toBe(200);
    const out = await (await fetch(`${server.base}/v1/domains/${id}/zonefile`, { headers: { authorization: `Bearer ${apiKey}` } })).text();
    expect(out).toMatch(/^file-alias\.example\.\s+300\s+IN\s+ALIAS\s+www\.target\.test\.$/m);
    expect(out).toMatch(/^v6\.file-alias\.example\.\s+300\s+IN\s+ALIAS\s+www\.target\.test\.$/m);
    const clash = await fetch(`${server.base}/v1/domains/${id}/zonefile`, { method: 'PUT', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'text/dns' }, body: `@ 300 IN ALIAS www.target.test.\n@ 300 IN A 192.0.2.1\n` });
    // A file breaking the zone rules is refused whole, the line at fault named.
    expect(clash.status).toBe(422);
    expect(await clash.text()).toMatch(/ALIAS record and A records/);
  });

  needsKnot.it('gives a target with no AAAA records NODATA for AAAA', async () => {
    expect((await v1('POST', `/domains/${domainId}/ALIAS`, { name: 'v4', target: 'v4only.target.test' })).status).toBe(201);
    await eventually('v4.alias.example A', async () => (await answers(`v4.${ZONE}`, 'A')).length === 1);
    const aaaa = await dig(server, `v4.${ZONE}`, 'AAAA');
    expect(aaaa.status).toBe('NOERROR');
    expect(aaaa.answer).toEqual([]);
    expect(aaaa.authority.map((r) => r.type)).toEqual(['SOA']);
  });

  needsKnot.it("asks the resolver again over TCP when its answer is truncated: a target's 100 addresses, all answered over TCP", async () => {
    expect((await v1('POST', `/domains/${domainId}/ALIAS`, { name: 'many', target: 'many.target.test' })).status).toBe(201);
    const overTcp = () => dig(server, `many.${ZONE}`, 'A', '+tcp');
    await eventually('many.alias.example A', async () => (await overTcp()).status === 'NOERROR');
    const d = await overTcp();
    expect(d.answer.map((r) => `${r.name} ${r.type} ${r.data}`).sort()).toEqual(MANY.map((a) => `many.${ZONE}. A ${a}`).sort());
  });

  needsKnot.it('several steered ALIAS records at one name: each query gets the resolved addresses of the one chosen for its client', async () => {
    // By subnet: 127.0.0.2 gets www's addresses, everyone else v4only's.
    expect((await v1('POST', `/domains/${domainId}/ALIAS`, { name: 'geo', target: 'www.target.test', steering: { subnets: ['127.0.0.2/32'] } })).status).toBe(201);
    expect((await v1('POST', `/domains/${domainId}/ALIAS`, { name: 'geo', target: 'v4only.target.test', steering: { weight: 1 } })).status).toBe(201);
    const from = async (source: string, type = 'A') => (await dig(server, '-b', source, `geo.${ZONE}`, type)).answer.map((r) => `${r.type} ${r.data}`);
    await eventually('geo resolved', async () => (await from('127.0.0.2')).length === 1);
    for (let i = 0; i < 3; i++) {
      expect(await from('127.0.0.2')).toEqual(['A 192.0.2.10']);
      expect(await from('127.0.0.1')).toEqual(['A 192.0.2.11']);
      expect(await from('127.0.0.2', 'AAAA')).toEqual(['AAAA 2001:db8::10']);
      // v4only has no AAAA: NODATA for the others.
      expect(await from('127.0.0.1', 'AAAA')).toEqual([]);
    }
    // By weight: each answer holds one target's addresses, and both targets are chosen.
    expect((await v1('POST', `/domains/${domainId}/ALIAS`, { name: 'pair', target: 'www.target.test', steering: { weight: 1 } })).status).toBe(201);
    expect((await v1('POST', `/domains/${domainId}/ALIAS`, { name: 'pair', target: 'v4only.target.test', steering: { weight: 1 } })).status).toBe(201);
    const seen = new Set<string>();
    await eventually('both targets chosen', async () => {
      const a = (await dig(server, `pair.${ZONE}`, 'A')).answer.map((r) => r.data);
      expect(a.length).toBeLessThanOrEqual(1);
      if (a[0]) seen.add(a[0]);
      return seen.size === 2;
    });
    expect(seen).toEqual(new Set(['192.0.2.10', '192.0.2.11']));
  });

  needsKnot.it('transfers the resolved addresses instead of the ALIAS: kdig AXFR and a knotd secondary', async () => {
    const axfr = await transfer(server, '127.0.0.1', ZONE, 'AXFR');
    expect(axfr.status).toBe('NOERROR');
    expect(axfr.records).toContain(`${ZONE}. A 192.0.2.10`);
    expect(axfr.records).toContain(`${ZONE}. AAAA 2001:db8::10`);
    expect(axfr.raw).not.toMatch(/TYPE65401|ALIAS/);
    secondary = await startKnot({ address: SECONDARY, config: `${zonehostPrimary(server)}zone:\n  - domain: ${ZONE}\n    master: zonehost\n    acl: notify_from_zonehost\n    storage: "{dir}"\n` });
    await eventually(`the secondary to serve the zone\n${secondary.log()}`, async () => (await kdigAt(secondary as Knot, ZONE, 'A')).answer.length === 1);
    expect((await kdigAt(secondary, ZONE, 'A')).answer.map((r) => `${r.name} ${r.ttl} ${r.type} ${r.data}`)).toEqual([`${ZONE}. ${TTL} A 192.0.2.10`]);
  });

  needsKnot.it("follows a change of the target's addresses within its TTL, and the secondary follows with a new serial", async () => {
    const serial = async () => Number((await dig(server, ZONE, 'SOA')).answer[0]?.data.split(' ')[2]);
    const before = await serial();
    (resolver as Knot).writeFile('target.test.zone', targetZone(2, '192.0.2.20'));
    await (resolver as Knot).knotc('zone-reload', 'target.test');
    const changed = Date.now();
    await eventually('the new address', async () => (await answers(ZONE, 'A')).join() === `${ZONE}. ${TTL} A 192.0.2.20`, 10_000);
    // Refreshed at three quarters of the TTL: the new address is answered within the TTL (and a resolution).
    expect(Date.now() - changed).toBeLessThan((TTL + 2) * 1000);
    await eventually('a new serial', async () => (await serial()) !== before, 5000);
    // Journaled like any change, in the owner's audit trail.
    const events = (await v1('GET', `/events?domain=${domainId}`)).body as { action: string; serial: number; interface: string }[];
    expect(events.find((e) => e.action === 'record.aliases_resolved')).toMatchObject({ serial: await serial(), interface: 'system' });
    await eventually(`the secondary to follow\n${secondary?.log()}`, async () => (await kdigAt(secondary as Knot, ZONE, 'A')).answer[0]?.data === '192.0.2.20', 10_000);
  });

  needsKnot.it('answers SERVFAIL with an Extended DNS Error for a target that does not exist', async () => {
    expect((await v1('POST', `/domains/${domainId}/ALIAS`, { name: 'gone', target: 'missing.target.test' })).status).toBe(201);
    await eventually('SERVFAIL', async () => (await dig(server, `gone.${ZONE}`, 'A')).status === 'SERVFAIL');
    const d = await dig(server, `gone.${ZONE}`, 'A');
    expect(d.raw).toMatch(/EDE: 0 .*missing\.target\.test does not exist/);
  });

  needsKnotDelv.it("signs a signed zone's ALIAS answer: delv validates it", async () => {
    const id = await createDomain(server.base, apiKey, SIGNED);
    expect((await v1('POST', `/domains/${id}/ALIAS`, { name: '', target: 'v4only.target.test' })).status).toBe(201);
    expect((await v1('PUT', `/domains/${id}/dnssec`, { enabled: true })).status).toBeLessThan(300);
    const { body } = await v1('GET', `/domains/${id}/dnssec`);
    const ds = (body.keys as { ds: string[] }[]).flatMap((k) => k.ds);
    const local = { host: '127.0.0.1', port: server.dnsAddress?.port as number };
    await eventually('the signed answer', async () => (await dig(server, SIGNED, 'A', '+dnssec')).answer.some((r) => r.type === 'RRSIG'));
    const out = await delv(SIGNED, ds, local, SIGNED, 'A');
    expect(out).toMatch(/^; fully validated/m);
    expect(out).toMatch(/192\.0\.2\.11/);
  });

  needsKnot.it('answers from the cache while the resolver is gone, and SERVFAIL for a target never resolved', async () => {
    await (resolver as Knot).stop();
    resolver = undefined;
    // Every answer has the last address; once the TTL has run out and a resolution failed, with RFC 8914's Stale Answer.
    const until = Date.now() + 15_000;
    for (let stale = false; !stale; ) {
      expect(Date.now(), 'no stale answer within 15 s').toBeLessThan(until);
      const d = await dig(server, ZONE, 'A');
      expect(d.status).toBe('NOERROR');
      expect(d.answer.map((r) => r.data)).toEqual(['192.0.2.20']);
      stale = /EDE: 3 \(Stale Answer\)/.test(d.raw);
      if (stale) expect(d.answer[0]?.ttl).toBeLessThanOrEqual(TTL);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await v1('POST', `/domains/${domainId}/ALIAS`, { name: 'never', target: 'never.target.test' })).status).toBe(201);
    const never = await dig(server, `never.${ZONE}`, 'A', '+time=8');
    expect(never.status).toBe('SERVFAIL');
    expect(never.raw).toMatch(/EDE: 23 \(Network Error\).*never\.target\.test could not be resolved/);
  });
});
