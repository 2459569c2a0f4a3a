/**
 * TSIG on zone transfers, both ways. Out: a key with `transfer` for a domain pulls it by AXFR/IXFR from any
 * address, every message of the answer signed (dig and knotd check each); without it only the domain's
 * axfr list may. In: a zone mirror holding its master's key signs its SOA queries and transfers with it
 * and takes only NOTIFY signed with it, against a knotd primary that demands the key.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { Actor } from '../../src/services/index.js';
import { eventually, kdigAt, startKnot, startPrimary, transfer, zonehostPrimary, type Knot, type KnotKey } from '../support/knot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createDomain, createRecord, dig, kdig } from './support.js';
import { peers } from '../support/peers.js';

const needsDigKdig = peers('dig', 'kdig');
const needsKdig = peers('kdig');
const needsKdigKnotdKnotc = peers('kdig', 'knotd', 'knotc');
// The knotd primary of the test before.
const needsDigKnotdKnotc = peers('dig', 'knotd', 'knotc');

const ZONE = 'xfr-tsig.example';
const OTHER = 'not-this-one.example';
const MIRRORED = 'mirrored-tsig.example';
/** Not in any axfr list. */
const STRANGER = '127.0.34.1';
const SECONDARY = '127.0.34.2';
const UNKEYED_SECONDARY = '127.0.34.3';
const PRIMARY = '127.0.34.4';

const SECRET = Buffer.alloc(32, 'xfr-secret').toString('base64');
const XFR: KnotKey = { name: 'xfr.key', algorithm: 'hmac-sha256', secret: SECRET };
const MASTER_KEY: KnotKey = { name: 'master.key', algorithm: 'hmac-sha384', secret: Buffer.alloc(48, 'master').toString('base64') };

let server: TestServer;
let apiKey: string;
let domainId: number;
let secondary: Knot;
let unkeyed: Knot;
let primary: Knot;

const primaryZone = (serial: number, extra = '') => `$ORIGIN ${MIRRORED}.
$TTL 3600
@   SOA ns.${MIRRORED}. admin.${MIRRORED}. ${serial} 3600 600 86400 300
@   NS  ns.${MIRRORED}.
ns  A   192.0.2.53
www A   192.0.2.80
${extra}
`;

beforeAll(async () => {
  server = await startTestServer();
  const user = await server.user('xfr');
  apiKey = user.key;
  const actor: Actor = { accountId: user.accountId, userId: user.accountId, role: 'owner', username: 'xfr', keyLabel: 'test', iface: 'cli', remoteAddr: '' };
  domainId = await createDomain(server.base, apiKey, ZONE);
  const otherId = await createDomain(server.base, apiKey, OTHER);
  // Enough records for a transfer of several messages, each of them signed.
  for (let i = 0; i < 120; i++) await createRecord(server.base, apiKey, domainId, { Type: 'TXT', Name: `t${i}`, Target: 'x'.repeat(250) + i });
  await createRecord(server.base, apiKey, domainId, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
  await server.services.tsigKeys.create(actor, { name: XFR.name, secret: SECRET, domains: [domainId], transfer: true });
  await server.services.tsigKeys.create(actor, { name: 'no-xfr.key', secret: SECRET, domains: [domainId], update: true, transfer: false });
  await server.services.tsigKeys.create(actor, { name: 'other.key', secret: SECRET, domains: [otherId], transfer: true });
});

afterAll(async () => {
  await Promise.all([secondary?.stop(), unkeyed?.stop(), primary?.stop()]);
  await server?.close();
});

describe('AXFR and IXFR out, with a key', () => {
  needsDigKdig.it('dig -y pulls the zone from an address not in the axfr list; dig checks every message\'s signature', async () => {
    const axfr = await transfer(server, STRANGER, ZONE, 'AXFR', '-y', `hmac-sha256:${XFR.name}:${SECRET}`, '+tcp');
    expect(axfr.status).toBe('NOERROR');
    expect(axfr.records.filter((r) => r.includes(' TXT '))).toHaveLength(120);
    // Several messages, each with its TSIG record.
    expect(axfr.raw).toMatch(/\(3 messages, 125 records\)/);
    expect(axfr.raw.match(/TSIG\s+hmac-sha256/g)).toHaveLength(3);
    expect(axfr.raw).not.toMatch(/BADSIG|failed/i);
    const viaDig = await dig(server, ZONE, 'AXFR', '-y', `hmac-sha256:${XFR.name}:${SECRET}`, '-b', STRANGER);
    expect(viaDig.raw).not.toMatch(/tsig verify failure|Transfer failed/i);
    expect(viaDig.raw).toMatch(/XFR size: \d+ records/);
  });

  needsKdig.it('is refused without a key, with a key without transfer, with another domain\'s key, and with a wrong secret', async () => {
    expect((await transfer(server, STRANGER, ZONE, 'AXFR')).status).toBe('REFUSED');
    expect((await transfer(server, STRANGER, ZONE, 'AXFR', '-y', `hmac-sha256:no-xfr.key:${SECRET}`)).status).toBe('REFUSED');
    expect((await transfer(server, STRANGER, ZONE, 'AXFR', '-y', `hmac-sha256:other.key:${SECRET}`)).status).toBe('REFUSED');
    const wrong = await transfer(server, STRANGER, ZONE, 'AXFR', '-y', `hmac-sha256:${XFR.name}:${Buffer.alloc(32, 9).toString('base64')}`);
    expect(wrong.records).toEqual([]);
    expect(wrong.raw + wrong.status).toMatch(/BADSIG|NOTAUTH/);
  });

  needsKdig.it('signs a plain query\'s answer too', async () => {
    const a = await kdig(server, `www.${ZONE}`, 'A', '-y', `hmac-sha256:${XFR.name}:${SECRET}`);
    expect(a.status).toBe('NOERROR');
    expect(a.answer.map((r) => r.data)).toEqual(['192.0.2.1']);
    expect(a.raw).toMatch(/TSIG\s+hmac-sha256\. \d+ 300 32 \S+ \d+ NOERROR 0/);
  });
});

describe('a knotd secondary', () => {
  needsKdigKnotdKnotc.it('pulls with the key, and follows changes by IXFR signed the same way', async () => {
    const zone = `  - domain: ${ZONE}\n    master: zonehost\n    acl: notify_from_zonehost\n    storage: "{dir}"\n`;
    secondary = await startKnot({ address: SECONDARY, config: `${zonehostPrimary(server, XFR)}zone:\n${zone}` });
    unkeyed = await startKnot({ address: UNKEYED_SECONDARY, config: `${zonehostPrimary(server)}zone:\n${zone}` });
    await eventually(`the keyed secondary to serve the zone\n${secondary.log()}`, async () => (await kdigAt(secondary, `www.${ZONE}`, 'A')).answer.length === 1);
    expect((await kdigAt(secondary, `t7.${ZONE}`, 'TXT')).answer).toHaveLength(1);
    await createRecord(server.base, apiKey, domainId, { Type: 'A', Name: 'later', Target: '192.0.2.7' });
    // Not in the axfr list, so not notified: knotc asks it to check now.
    await secondary.knotc('zone-refresh', ZONE);
    await eventually(`the change at the secondary\n${secondary.log()}`, async () => (await kdigAt(secondary, `later.${ZONE}`, 'A')).answer.length === 1);
    expect(secondary.log()).not.toMatch(/BADSIG|BADKEY|BADTIME/);
    expect(secondary.log()).toMatch(/AXFR, incoming, .* finished, [\d.]+ seconds, [2-9] messages/);
  });

  needsKdigKnotdKnotc.it('without the key is refused and serves nothing', async () => {
    await eventually(`the unkeyed secondary to give up\n${unkeyed.log()}`, async () => /refused|REFUSED|failed/.test(unkeyed.log()));
    expect((await kdigAt(unkeyed, `www.${ZONE}`, 'A')).answer).toEqual([]);
  });
});

describe('a zone mirror with its master\'s key', () => {
  needsKdigKnotdKnotc.it('pulls from a knotd primary that demands the key, and follows its signed NOTIFY', async () => {
    primary = await startPrimary(PRIMARY, MIRRORED, primaryZone(2024060101), server.dnsAddress?.port, MASTER_KEY);
    const res = await fetch(`${server.base}/v1/zonemirrors`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ domain: MIRRORED, masters: [PRIMARY], tsig: MASTER_KEY }),
    });
    expect(res.status).toBe(201);
    const mirror = (await res.json()) as { id: number; tsig: unknown };
    // The secret is write-only.
    expect(mirror.tsig).toEqual({ name: 'master.key.', algorithm: 'hmac-sha384' });
    await eventually(`the first transfer\n${primary.log()}`, async () => (await server.services.mirrors.stateOf(mirror.id)).serial === 2024060101);
    expect((await kdig(server, `www.${MIRRORED}`, 'A')).answer.map((r) => r.data)).toEqual(['192.0.2.80']);
    primary.writeFile(`${MIRRORED}.zone`, primaryZone(2024060102, 'new A 192.0.2.81'));
    await primary.knotc('zone-reload', MIRRORED);
    // The SOA refresh is an hour: only the signed NOTIFY makes us pull this soon.
    await eventually(`the NOTIFY followed\n${primary.log()}`, async () => (await kdig(server, `new.${MIRRORED}`, 'A')).answer.length === 1);
    expect((await server.services.mirrors.stateOf(mirror.id)).lastError).toBeNull();
  });

  needsDigKnotdKnotc.it('with the wrong secret fails, says why, and takes no NOTIFY unsigned', async () => {
    const zone = 'wrong-key.example';
    const res = await fetch(`${server.base}/v1/zonemirrors`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ domain: zone, masters: [PRIMARY], tsig: { ...MASTER_KEY, secret: Buffer.alloc(48, 1).toString('base64') } }),
    });
    const mirror = (await res.json()) as { id: number };
    await eventually('the failed attempt', async () => (await server.services.mirrors.stateOf(mirror.id)).lastError !== null);
    expect((await server.services.mirrors.stateOf(mirror.id)).lastError).toMatch(/master\.key|BADSIG|NOTAUTH|REFUSED|refused|signature/);
    // An unsigned NOTIFY for the keyed mirror, from its master's address, is refused.
    const notify = await dig(server, MIRRORED, 'SOA', '+opcode=notify', '-b', PRIMARY);
    expect(notify.status).toBe('REFUSED');
  });
});
