/**
 * Zone mirrors against a real Knot primary: created through interface A (Type=slave, master_ips), pulled
 * by AXFR, served by our DNS, refreshed on the primary's NOTIFY; a bad transfer keeps the last good copy.
 * The primary listens on a spare loopback address with port 53 (master_ips are bare addresses).
 */
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startPrimary, transfer, type Knot } from '../support/knot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { data } from '../v3/support.js';
import { kdig, udpExchange } from './support.js';
import { peers } from '../support/peers.js';

/** The mirror of a Knot primary (started before all tests, when installed), checked with kdig. */
const needsKnot = peers('kdig', 'knotd', 'knotc');

const PRIMARY = '127.0.31.2';
const ZONE = 'mir.test';

const zoneFile = (serial: number, extra = '') => `$ORIGIN ${ZONE}.
$TTL 3600
@   SOA ns.${ZONE}. admin.${ZONE}. ${serial} 3600 600 86400 300
@   NS  ns.${ZONE}.
ns  A   192.0.2.53
www 120 A 192.0.2.80
txt TXT "hello" "world"
${extra}
`;

let server: TestServer;
let knot: Knot;
let key: string;
let mirrorId: number;

/** Replaces the primary's zone and has it reload (it then sends NOTIFY to us). */
async function publish(content: string): Promise<void> {
  knot.writeFile(`${ZONE}.zone`, content);
  await knot.knotc('zone-reload', ZONE);
}

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.user('mirror'));
  if (needsKnot.reason === null) knot = await startPrimary(PRIMARY, ZONE, zoneFile(2024010101), server.dnsAddress?.port);
});

afterAll(async () => {
  await knot?.stop();
  await server?.close();
});

/** Sends a NOTIFY for the zone from `source` to our DNS port and returns the answer's rcode. */
async function notifyFrom(source: string): Promise<string | undefined> {
  // opcode NOTIFY (4) and AA go in the flags word; dns-packet does not encode them otherwise.
  const notify = dnsPacket.encode({ type: 'query', id: 4711, flags: (4 << 11) | 0x0400, questions: [{ type: 'SOA', class: 'IN', name: ZONE }] });
  return (dnsPacket.decode(await udpExchange(server.dnsAddress?.port, notify, source)) as { rcode?: string }).rcode;
}

needsKnot.describe('a zone mirror of a Knot primary', () => {
  it('is pulled on creation and served by our DNS', async () => {
    const created = await data(server.base, { api_action: 'domain.create', api_key: key, Domain: ZONE, Type: 'slave', master_ips: PRIMARY, axfr_ips: '127.0.31.1' });
    mirrorId = created.DomainID;
    await eventually(`the first transfer\n${knot.log()}`, async () => (await server.services.mirrors.stateOf(mirrorId)).serial === 2024010101);
    const www = await kdig(server, `www.${ZONE}`, 'A');
    expect(www.status).toBe('NOERROR');
    expect(www.flags).toContain('aa');
    // The master's own TTL is kept, not rounded to our API's TTL steps.
    expect(www.answer.map((r) => `${r.ttl} ${r.data}`)).toEqual(['120 192.0.2.80']);
    const txt = await kdig(server, `txt.${ZONE}`, 'TXT');
    // Served as the master has it: two strings, not joined.
    expect(txt.answer.map((r) => r.data)).toEqual(['"hello" "world"']);
    const soa = await kdig(server, ZONE, 'SOA');
    expect(soa.answer[0]?.data).toMatch(/^ns\.mir\.test\. admin\.mir\.test\. 2024010101 /);
  });

  it("follows the primary's NOTIFY", async () => {
    await publish(zoneFile(2024010102, 'new A 192.0.2.81'));
    // The SOA refresh is an hour: only the NOTIFY makes us pull this soon.
    await eventually(`the new record served\n${knot.log()}`, async () => (await kdig(server, `new.${ZONE}`, 'A')).answer.some((r) => r.data === '192.0.2.81'));
    expect((await server.services.mirrors.stateOf(mirrorId)).lastError).toBeNull();
  });

  it('passes its copy on by AXFR to the addresses of its own axfr list only', async () => {
    const axfr = await transfer(server, '127.0.31.1', ZONE, 'AXFR');
    expect(axfr.records[0]).toMatch(/^mir\.test\. SOA ns\.mir\.test\. admin\.mir\.test\. 2024010102 /);
    expect(axfr.records).toContain(`new.${ZONE}. A 192.0.2.81`);
    expect(axfr.records.at(-1)).toBe(axfr.records[0]);
    expect((await transfer(server, '127.0.31.9', ZONE, 'AXFR')).status).toBe('REFUSED');
  });

  it('refuses NOTIFY from an address that is not one of its masters', async () => {
    expect(await notifyFrom('127.0.31.9')).toBe('REFUSED');
    expect(await notifyFrom(PRIMARY)).toBe('NOERROR');
  });

  it("serves the master's CAA records as received, with flags and tags the APIs do not offer, and passes them on", async () => {
    const caa = ['@ CAA 0 issue ";"', '@ CAA 128 issue "ca.example.net; account=42"', '@ CAA 0 contactemail "security@mir.test"', 'www CAA 0 iodef "mailto:security@mir.test"'];
    await publish(zoneFile(2024010103, ['new A 192.0.2.81', ...caa].join('\n')));
    await eventually(`the CAA records served\n${knot.log()}`, async () => (await kdig(server, ZONE, 'CAA')).answer.length === 3);
    expect((await server.services.mirrors.stateOf(mirrorId)).lastError).toBeNull();
    // kdig ends CAA data with a space.
    expect((await kdig(server, ZONE, 'CAA')).answer.map((r) => r.data.trim()).sort()).toEqual(['0 contactemail "security@mir.test"', '0 issue ";"', '128 issue "ca.example.net; account=42"']);
    expect((await kdig(server, `www.${ZONE}`, 'CAA')).answer.map((r) => r.data.trim())).toEqual(['0 iodef "mailto:security@mir.test"']);
    const axfr = await transfer(server, '127.0.31.1', ZONE, 'AXFR');
    expect(axfr.records.filter((r) => r.includes(' CAA ')).map((r) => r.trim()).sort()).toEqual([
      `mir.test. CAA 0 contactemail "security@mir.test"`,
      `mir.test. CAA 0 issue ";"`,
      `mir.test. CAA 128 issue "ca.example.net; account=42"`,
      `www.mir.test. CAA 0 iodef "mailto:security@mir.test"`,
    ]);
  });

  it('rejects a transfer holding a record it cannot take, and keeps serving the last good copy', async () => {
    await publish(zoneFile(2024010104, 'new A 192.0.2.81\nodd HINFO "pc" "unix"\nlater A 192.0.2.82'));
    await eventually('the failed transfer recorded', async () => /HINFO is not supported/.test((await server.services.mirrors.stateOf(mirrorId)).lastError ?? ''));
    const state = await server.services.mirrors.stateOf(mirrorId);
    expect(state.serial).toBe(2024010103);
    expect((await kdig(server, `new.${ZONE}`, 'A')).answer.map((r) => r.data)).toEqual(['192.0.2.81']);
    expect((await kdig(server, `later.${ZONE}`, 'A')).status).toBe('NXDOMAIN');
  });

  it("drops its copy when renamed, never serving one zone's data under another's name", async () => {
    const update = (Domain: string) => data(server.base, { api_action: 'domain.update', api_key: key, DomainID: mirrorId, Domain });
    await update('other.test');
    // The primary does not serve other.test: nothing may be served for it, and no transfer claimed.
    expect(await server.services.mirrors.stateOf(mirrorId)).toMatchObject({ serial: null, lastSuccess: null });
    expect((await kdig(server, 'www.other.test', 'A')).status).toBe('REFUSED');
    // A mirror with no copy yet cannot be transferred (SERVFAIL, as a secondary that has not loaded).
    expect((await transfer(server, '127.0.31.1', 'other.test', 'AXFR')).status).toBe('SERVFAIL');
    await eventually('the failed pull recorded', async () => (await server.services.mirrors.stateOf(mirrorId)).lastError !== null);
    expect((await server.services.mirrors.stateOf(mirrorId)).serial).toBeNull();
    // Renamed back, it is pulled afresh (the primary's zone made transferable again first).
    await publish(zoneFile(2024010105, 'back A 192.0.2.84'));
    await update(ZONE);
    await eventually('the zone pulled again', async () => (await kdig(server, `back.${ZONE}`, 'A')).answer.some((r) => r.data === '192.0.2.84'));
  });
});

describe('a zone mirror whose master is not up yet', () => {
  needsKnot.it('tries again soon, not on the SOA retry timer, and is served once the master answers', async () => {
    const late = '127.0.31.3';
    // The first retry comes 300 ms after the failure (10 s in production), the next ones after 600 ms, 1.2 s, ...
    const node = await startTestServer({ mirrorFirstRetryMs: 300 });
    let primary: Knot | undefined;
    try {
      const { key: k } = await node.user('early');
      const created = await data(node.base, { api_action: 'domain.create', api_key: k, Domain: ZONE, Type: 'slave', master_ips: late });
      const id = created.DomainID as number;
      await eventually('the failed first check', async () => (await node.services.mirrors.stateOf(id)).lastError !== null);
      // NOTIFY goes to a port nothing listens on: only our own retry may bring the transfer.
      primary = await startPrimary(late, ZONE, zoneFile(2024020201), 9);
      await eventually(`the transfer after the master came up\n${primary.log()}`, async () => (await node.services.mirrors.stateOf(id)).serial === 2024020201);
      expect((await kdig(node, `www.${ZONE}`, 'A')).answer.map((r) => r.data)).toEqual(['192.0.2.80']);
    } finally {
      await primary?.stop();
      await node.close();
    }
  });
});
