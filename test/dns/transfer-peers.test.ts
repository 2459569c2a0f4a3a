/**
 * Transfers against scripted peers, for what a well-behaved Knot never does: a master sending broken
 * or out-of-zone data, and a secondary that does not acknowledge the first NOTIFY.
 * The peers listen on spare loopback addresses with port 53 (our lists hold bare addresses).
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, transfer } from '../support/knot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { data } from '../v3/support.js';
import { createDomain, kdig } from './support.js';
import { peers } from '../support/peers.js';

const needsKdig = peers('kdig');

const MASTER = '127.0.31.4';
const SECONDARY = '127.0.31.5';
const SERIAL = 77;

/** Zones whose SOA differs from the default; timer.test's serial is raised by its test. */
const soaFields: Record<string, Partial<dnsPacket.SoaData>> = {
  // The copy expires five seconds after the transfer.
  'expiring.test': { expire: 5 },
  // Checked again (refresh) and retried (retry) as soon as we allow.
  'timer.test': { refresh: 1, retry: 1, serial: SERIAL },
};
const soa = (zone: string, serial = soaFields[zone]?.serial ?? SERIAL): dnsPacket.Answer => ({
  type: 'SOA',
  name: zone,
  ttl: 300,
  data: { mname: `ns.${zone}`, rname: `admin.${zone}`, refresh: 3600, retry: 600, expire: 86400, minimum: 60, ...soaFields[zone], serial },
});
const a = (name: string, ip: string, ttl = 300): dnsPacket.Answer => ({ type: 'A', name, ttl, data: ip });
const answer = (id: number, answers: dnsPacket.Answer[], rcode = 0) =>
  dnsPacket.encode({ type: 'response', id, flags: 0x0400 | rcode, questions: [], answers });

/** What the scripted master sends for an AXFR of each zone: framed messages (raw when a case needs bytes dns-packet cannot make). */
const transfers: Record<string, (id: number) => Buffer[]> = {
  'ttls.test': (id) => [answer(id, [soa('ttls.test'), a('www.ttls.test', '192.0.2.1'), a('WWW.ttls.test', '192.0.2.2', 60), soa('ttls.test')])],
  // TTLs with the most significant bit set, which RFC 2181 section 8 says to read as 0.
  'hugettl.test': (id) => {
    const top = { ...soa('hugettl.test'), ttl: 0x80000000 + 300 };
    return [answer(id, [top, a('t.hugettl.test', '192.0.2.3', 0x80000005), a('u.hugettl.test', '192.0.2.4', 0x7fffffff), top])];
  },
  'good.test': (id) => [answer(id, [soa('good.test'), a('www.good.test', '192.0.2.1')]), answer(id, [a('mail.good.test', '192.0.2.2'), soa('good.test')])],
  'expiring.test': (id) => [answer(id, [soa('expiring.test'), a('www.expiring.test', '192.0.2.1'), soa('expiring.test')])],
  'timer.test': (id) => {
    if (timerFailures-- > 0) return [answer(id, [], 5)];
    const serial = soaFields['timer.test']?.serial ?? SERIAL;
    return [answer(id, [soa('timer.test'), a('www.timer.test', `192.0.2.${serial}`), soa('timer.test')])];
  },
  'outside.test': (id) => [answer(id, [soa('outside.test'), a('www.elsewhere.test', '192.0.2.1'), soa('outside.test')])],
  'mismatch.test': (id) => [answer(id, [soa('mismatch.test'), a('www.mismatch.test', '192.0.2.1'), soa('mismatch.test', SERIAL + 1)])],
  'unfinished.test': (id) => [answer(id, [soa('unfinished.test'), a('www.unfinished.test', '192.0.2.1')])],
  'nosoa.test': (id) => [answer(id, [a('www.nosoa.test', '192.0.2.1'), soa('nosoa.test')])],
  'refused.test': (id) => [answer(id, [], 5)],
  'apexcname.test': (id) => [answer(id, [soa('apexcname.test'), { type: 'CNAME', name: 'apexcname.test', ttl: 300, data: 'x.example.net' }, soa('apexcname.test')])],
  'cnameclash.test': (id) => [
    answer(id, [soa('cnameclash.test'), { type: 'CNAME', name: 'www.cnameclash.test', ttl: 300, data: 'x.example.net' }, a('WWW.cnameclash.test', '192.0.2.9'), soa('cnameclash.test')]),
  ],
  // The same record twice (its name in another letter case the second time).
  'dup.test': (id) => [answer(id, [soa('dup.test'), a('www.dup.test', '192.0.2.2'), a('WWW.dup.test', '192.0.2.2'), a('www.dup.test', '192.0.2.3'), soa('dup.test')])],
  // Never finishes: the connection stays open without an answer.
  'hang.test': () => [],
  'rdlength.test': (id) => {
    // An A record whose RDLENGTH says 5: dns-packet alone would read 4 bytes and misparse the rest.
    const msg = answer(id, [soa('rdlength.test'), a('www.rdlength.test', '192.0.2.1'), soa('rdlength.test')]);
    const at = msg.indexOf(Buffer.from([0, 4, 192, 0, 2, 1]));
    const bad = Buffer.concat([msg.subarray(0, at), Buffer.from([0, 5, 192, 0, 2, 1, 9]), msg.subarray(at + 6)]);
    return [bad];
  },
};

let server: TestServer;
let key: string;
let masterUdp: UdpSocket;
let masterTcp: Server;
/** How many more AXFRs of timer.test the scripted master refuses. */
let timerFailures = 1;
/** Zones the scripted master was asked to transfer. */
const asked: string[] = [];
let secondary: UdpSocket;
/** NOTIFY messages the scripted secondary received, and how many of them it leaves unanswered. */
const notifies: dnsPacket.Packet[] = [];
let ignoreNotifies = 1;

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.user('peers'));
  masterUdp = createSocket('udp4');
  masterUdp.on('message', (msg, from) => {
    const q = dnsPacket.decode(msg);
    const zone = q.questions?.[0]?.name ?? '';
    masterUdp.send(answer(q.id ?? 0, [soa(zone)]), from.port, from.address);
  });
  await new Promise<void>((r) => masterUdp.bind(53, MASTER, () => r()));
  masterTcp = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', (buf) => {
      const q = dnsPacket.decode(buf.subarray(2));
      const zone = q.questions?.[0]?.name ?? '';
      asked.push(zone);
      for (const msg of transfers[zone]?.(q.id ?? 0) ?? []) {
        const len = Buffer.alloc(2);
        len.writeUInt16BE(msg.length);
        socket.write(Buffer.concat([len, msg]));
      }
      if (zone !== 'hang.test') socket.end();
    });
  });
  await new Promise<void>((r) => masterTcp.listen(53, MASTER, () => r()));
  secondary = createSocket('udp4');
  secondary.on('message', (msg, from) => {
    const q = dnsPacket.decode(msg);
    notifies.push(q);
    if (notifies.length <= ignoreNotifies) return;
    secondary.send(dnsPacket.encode({ type: 'response', id: q.id ?? 0, flags: (4 << 11) | 0x0400, questions: q.questions ?? [] }), from.port, from.address);
  });
  await new Promise<void>((r) => secondary.bind(53, SECONDARY, () => r()));
});

afterAll(async () => {
  await server?.close();
  masterUdp?.close();
  secondary?.close();
  await new Promise((r) => (masterTcp ? masterTcp.close(r) : r(undefined)));
});

async function mirror(zone: string, extra: Record<string, string> = {}): Promise<number> {
  return (await data(server.base, { api_action: 'domain.create', api_key: key, Domain: zone, Type: 'slave', master_ips: MASTER, ...extra })).DomainID;
}

describe('zone mirror transfers from a scripted master', () => {
  needsKdig.it('takes a transfer spread over several messages', async () => {
    const id = await mirror('good.test');
    await eventually('the transfer', async () => (await server.services.mirrors.stateOf(id)).serial === SERIAL);
    expect((await kdig(server, 'mail.good.test', 'A')).answer.map((r) => r.data)).toEqual(['192.0.2.2']);
  });

  needsKdig.it('keeps one copy of a record the master sent twice (RFC 2181 5)', async () => {
    const id = await mirror('dup.test');
    await eventually('the transfer', async () => (await server.services.mirrors.stateOf(id)).serial === SERIAL);
    expect((await kdig(server, 'www.dup.test', 'A')).answer.map((r) => r.data).sort()).toEqual(['192.0.2.2', '192.0.2.3']);
  });

  needsKdig.it('passes a copy on with one TTL per RRset, the one it answers with, when the master sent several', async () => {
    const id = await mirror('ttls.test', { axfr_ips: SECONDARY });
    await eventually('the transfer', async () => (await server.services.mirrors.stateOf(id)).serial === SERIAL);
    expect((await kdig(server, 'www.ttls.test', 'A')).answer.map((r) => r.ttl)).toEqual([60, 60]);
    const axfr = await transfer(server, SECONDARY, 'ttls.test', 'AXFR');
    expect(axfr.raw.split('\n').filter((l) => /^www\.ttls\.test\.\s/i.test(l)).map((l) => l.split(/\s+/)[1])).toEqual(['60', '60']);
  });

  needsKdig.it('takes a TTL received with the most significant bit set as 0 (RFC 2181 8), in answers and in its own AXFR', async () => {
    const id = await mirror('hugettl.test', { axfr_ips: SECONDARY });
    await eventually('the transfer', async () => (await server.services.mirrors.stateOf(id)).serial === SERIAL);
    expect((await kdig(server, 't.hugettl.test', 'A')).answer.map((r) => `${r.ttl} ${r.data}`)).toEqual(['0 192.0.2.3']);
    expect((await kdig(server, 'u.hugettl.test', 'A')).answer.map((r) => r.ttl)).toEqual([0x7fffffff]);
    expect((await kdig(server, 'hugettl.test', 'SOA')).answer.map((r) => r.ttl)).toEqual([0]);
    const axfr = await transfer(server, SECONDARY, 'hugettl.test', 'AXFR');
    const ttls = axfr.raw.split('\n').filter((l) => /^[tu]?\.?hugettl\.test\.\s/i.test(l)).map((l) => l.split(/\s+/).slice(0, 2).join(' '));
    expect(ttls).toEqual(['hugettl.test. 0', 't.hugettl.test. 0', 'u.hugettl.test. 2147483647', 'hugettl.test. 0']);
  });

  needsKdig.it('stops serving a copy once its SOA expire time has passed without a successful check', async () => {
    const id = await mirror('expiring.test');
    await eventually('the transfer', async () => (await server.services.mirrors.stateOf(id)).serial === SERIAL);
    const served = await kdig(server, 'www.expiring.test', 'A');
    // Served until the expire time (five seconds here; the refresh, an hour, brings no check before).
    await eventually('the copy expiring', async () => (await kdig(server, 'www.expiring.test', 'A')).answer.length === 0);
    expect(served.answer.map((r) => r.data)).toEqual(['192.0.2.1']);
    expect((await kdig(server, 'www.expiring.test', 'A')).flags).not.toContain('aa');
  });

  needsKdig.it('retries a failed transfer on the SOA retry timer and checks again on the refresh timer', async () => {
    const id = await mirror('timer.test');
    await eventually('the first, refused attempt', async () => (await server.services.mirrors.stateOf(id)).lastError !== null);
    // Nothing but the retry timer brings the next attempt.
    await eventually('the retry', async () => (await server.services.mirrors.stateOf(id)).serial === SERIAL);
    expect((await kdig(server, 'www.timer.test', 'A')).answer.map((r) => r.data)).toEqual([`192.0.2.${SERIAL}`]);
    (soaFields['timer.test'] as dnsPacket.SoaData).serial = SERIAL + 1;
    // No NOTIFY: the refresh timer finds the new serial.
    await eventually('the refresh', async () => (await kdig(server, 'www.timer.test', 'A')).answer.some((r) => r.data === `192.0.2.${SERIAL + 1}`));
  });

  const bad: [string, RegExp][] = [
    ['outside.test', /www\.elsewhere\.test A: the name is outside the zone/],
    ['mismatch.test', /closing SOA does not match/],
    ['unfinished.test', /closed the connection before the transfer ended/],
    ['nosoa.test', /does not start with an SOA/],
    ['refused.test', /refused the transfer: REFUSED \(rcode 5\)/],
    ['apexcname.test', /apexcname\.test CNAME: .+/],
    ['cnameclash.test', /www\.cnameclash\.test: a CNAME cannot share its name with other records \(CNAME, A\)/],
    ['rdlength.test', /malformed DNS message/],
  ];
  for (const [zone, error] of bad) {
    needsKdig.it(`rejects the whole transfer of ${zone}, keeps no copy and records why`, async () => {
      const id = await mirror(zone);
      await eventually('the failed attempt', async () => (await server.services.mirrors.stateOf(id)).lastError !== null);
      const state = await server.services.mirrors.stateOf(id);
      expect(state.lastError).toMatch(error);
      expect(state.lastError).toContain(MASTER);
      expect(state.serial).toBeNull();
      expect(await server.services.mirrors.zoneOf(id)).toBeNull();
      expect((await kdig(server, `www.${zone}`, 'A')).answer).toEqual([]);
    });
  }
});

describe('a node stopping during a transfer', () => {
  it('cuts the transfer short instead of waiting for it', async () => {
    const node = await startTestServer();
    const { key: k } = await node.user('stopper');
    await data(node.base, { api_action: 'domain.create', api_key: k, Domain: 'hang.test', Type: 'slave', master_ips: MASTER });
    await eventually('the transfer under way', async () => asked.includes('hang.test'));
    // Without the cut, close() would wait for the transfer's two-minute timeout and the test time out.
    await node.close();
    expect(node.dnsAddress).not.toBeNull();
  });
});

describe('NOTIFY to a secondary', () => {
  it('is retried until acknowledged, then stops', async () => {
    notifies.length = 0;
    ignoreNotifies = 1;
    const id = await createDomain(server.base, key, 'notified.test', { axfr_ips: SECONDARY });
    await eventually('a second NOTIFY after the first went unanswered', async () => notifies.length >= 2, 10_000);
    const current = (await server.services.store.domainById(id))?.serial;
    for (const n of notifies) {
      expect(n.flags ?? 0).toBe((4 << 11) | 0x0400); // a query with opcode NOTIFY and AA
      expect(n.questions).toEqual([{ name: 'notified.test', type: 'SOA', class: 'IN' }]);
      expect((n.answers?.[0] as { data: { serial: number } } | undefined)?.data.serial).toBe(current);
    }
    // The next retry would follow two seconds after the second; once acknowledged there is none.
    await new Promise((r) => setTimeout(r, 3000));
    expect(notifies.length).toBe(2);
  });
});
