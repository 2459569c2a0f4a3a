/**
 * Zone transfers out and NOTIFY, against a real Knot secondary, and kdig as a transfer client.
 * The secondary listens on a spare loopback address with port 53, since NOTIFY goes to the bare
 * addresses of the domain's axfr list on the standard port.
 */
import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, kdigAt, startKnot, transfer, zonehostPrimary, type Knot } from '../support/knot.js';
import { startTestServer, UDP_BATCH, type TestServer } from '../support/server.js';
import { data } from '../v3/support.js';
import { createDomain, createRecord, kdig, rrs } from './support.js';
import { peers } from '../support/peers.js';

const needsKdig = peers('kdig');
/** The tests of the Knot secondary started before them all (when installed). */
const needsKnot = peers('kdig', 'knotd', 'knotc');

const run = promisify(execFile);

/** The secondary's address: in the zone's axfr list, and the source of its transfers (`via`). */
// The file runs in both vitest projects (batched UDP and dgram), at once: each copy's knotd needs its own port 53.
const SECONDARY = UDP_BATCH === 0 ? '127.0.31.21' : '127.0.31.1';
const ZONE = 'sec.test';
/** A second zone the secondary follows, for RRsets whose records are given different TTLs. */
const TTL_ZONE = 'ttl.test';

let server: TestServer;
let knot: Knot;
let key: string;
let domainId: number;
let ttlZoneId: number;

const serialOf = (records: string[]): number => Number(records[0]?.split(' ')[4]);

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.user('xfr'));
  domainId = await createDomain(server.base, key, ZONE, { axfr_ips: SECONDARY });
  await createRecord(server.base, key, domainId, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
  ttlZoneId = await createDomain(server.base, key, TTL_ZONE, { axfr_ips: SECONDARY });
  if (needsKnot.reason === null) knot = await startKnot({
    address: SECONDARY,
    config: `${zonehostPrimary(server)}  - id: transfer_to_tests
    address: 127.0.0.0/8
    action: transfer
zone:
  - domain: ${ZONE}
    master: zonehost
    acl: notify_from_zonehost
    storage: "{dir}"
  - domain: ${TTL_ZONE}
    master: zonehost
    acl: [notify_from_zonehost, transfer_to_tests]
    storage: "{dir}"
`,
  });
});

afterAll(async () => {
  await knot?.stop();
  await server?.close();
});

describe('a Knot secondary replicating from us', () => {
  needsKnot.it('pulls the zone, and after each API change receives NOTIFY and serves the new data', async () => {
    await eventually(`knot serving www.${ZONE}\n${knot.log()}`, async () => {
      const a = await kdigAt(knot, `www.${ZONE}`, 'A');
      return a.answer.some((r) => r.data === '192.0.2.1');
    });
    // Our SOA refresh is hours: only NOTIFY makes the secondary look again this soon.
    const added = await createRecord(server.base, key, domainId, { Type: 'A', Name: 'new', Target: '192.0.2.2' });
    await eventually(`knot serving new.${ZONE}\n${knot.log()}`, async () => {
      const a = await kdigAt(knot, `new.${ZONE}`, 'A');
      return a.answer.some((r) => r.data === '192.0.2.2');
    });
    await data(server.base, { api_action: 'domain.resource.delete', api_key: key, DomainID: domainId, ResourceID: added });
    await eventually(`knot dropping new.${ZONE}\n${knot.log()}`, async () => (await kdigAt(knot, `new.${ZONE}`, 'A')).status === 'NXDOMAIN');
    // The secondary took the changes incrementally (IXFR from the journal), not by whole-zone transfers.
    expect(knot.log()).toMatch(/IXFR, incoming.*finished/);
    expect(knot.log()).not.toMatch(/AXFR-style IXFR/);
  });
});

/** A zone's records by AXFR from a server (`from` the source address), as sorted "name ttl type data" lines. */
async function axfrLines(port: number, at: string, from: string, zone: string): Promise<string[]> {
  const { stdout } = await run('kdig', ['-b', from, '-p', String(port), `@${at}`, '+noall', '+answer', '+time=3', '+retry=0', zone, 'AXFR'], { timeout: 20_000 });
  return stdout.split('\n').filter((l) => l.trim() && !l.startsWith(';')).map((l) => l.split(/\s+/).join(' ')).sort();
}

describe('RRset TTLs through transfers', () => {
  needsKnot.it('sends one TTL per RRset, the one queries get, and a secondary following by IXFR serves exactly what we do', async () => {
    const ours = () => axfrLines(server.dnsAddress?.port ?? 0, '127.0.0.1', SECONDARY, TTL_ZONE);
    const secondarys = () => axfrLines(knot.port, knot.address, '127.0.0.1', TTL_ZONE);
    const www = `www.${TTL_ZONE}`;
    /** Waits for the secondary to take our current serial, then compares its answers and its whole zone with ours. */
    const inStep = async () => {
      const serial = (await kdig(server, TTL_ZONE, 'SOA')).answer[0]?.data.split(' ')[2];
      await eventually(`knot at serial ${serial}\n${knot.log()}`, async () => (await kdigAt(knot, TTL_ZONE, 'SOA')).answer[0]?.data.split(' ')[2] === serial);
      expect(rrs((await kdigAt(knot, www, 'A')).answer)).toEqual(rrs((await kdig(server, www, 'A')).answer));
      expect(await secondarys()).toEqual(await ours());
      return rrs((await kdig(server, www, 'A')).answer);
    };
    const first = await createRecord(server.base, key, ttlZoneId, { Type: 'A', Name: 'www', Target: '192.0.2.1', TTL_sec: 3600 });
    expect(await inStep()).toEqual([`${www}. 3600 A 192.0.2.1`]);
    // A second record with a lower TTL lowers the whole set's TTL, in queries and in the AXFR alike.
    const second = await createRecord(server.base, key, ttlZoneId, { Type: 'A', Name: 'www', Target: '192.0.2.2', TTL_sec: 300 });
    expect((await ours()).filter((l) => l.startsWith(`${www}. `))).toEqual([`${www}. 300 IN A 192.0.2.1`, `${www}. 300 IN A 192.0.2.2`]);
    expect(await inStep()).toEqual([`${www}. 300 A 192.0.2.1`, `${www}. 300 A 192.0.2.2`]);
    // Raising one record's TTL raises the set's to the next lowest; removing the other raises it to its own.
    await data(server.base, { api_action: 'domain.resource.update', api_key: key, DomainID: ttlZoneId, ResourceID: second, TTL_sec: 7200 });
    expect(await inStep()).toEqual([`${www}. 3600 A 192.0.2.1`, `${www}. 3600 A 192.0.2.2`]);
    await data(server.base, { api_action: 'domain.resource.delete', api_key: key, DomainID: ttlZoneId, ResourceID: first });
    expect(await inStep()).toEqual([`${www}. 7200 A 192.0.2.2`]);
    // A change leaving the TTL alone sends that record only.
    const serial = (await kdig(server, TTL_ZONE, 'SOA')).answer[0]?.data.split(' ')[2];
    await createRecord(server.base, key, ttlZoneId, { Type: 'A', Name: 'www', Target: '192.0.2.3', TTL_sec: 7200 });
    const ixfr = await transfer(server, SECONDARY, TTL_ZONE, `IXFR=${serial}`);
    expect(ixfr.records.filter((r) => !r.includes(' SOA '))).toEqual([`${www}. A 192.0.2.3`]);
    expect(await inStep()).toEqual([`${www}. 7200 A 192.0.2.2`, `${www}. 7200 A 192.0.2.3`]);
    // Every step went over IXFR.
    expect(knot.log()).toMatch(new RegExp(`\\[${TTL_ZONE}\\.\\] IXFR, incoming.*finished`));
    expect(knot.log()).not.toMatch(new RegExp(`\\[${TTL_ZONE}\\.\\] .*AXFR-style IXFR`));
  });
});

describe('transfers to kdig', () => {
  needsKdig.it('refuses AXFR and IXFR to an address not in the axfr list', async () => {
    const axfr = await transfer(server, '127.0.31.9', ZONE, 'AXFR');
    expect(axfr.status).toBe('REFUSED');
    expect(axfr.records).toEqual([]);
    const ixfr = await transfer(server, '127.0.0.1', ZONE, 'IXFR=1');
    expect(ixfr.status).toBe('REFUSED');
  });

  needsKdig.it('refuses transfers of a disabled domain, even to a listed address', async () => {
    const off = await createDomain(server.base, key, 'off.test', { axfr_ips: SECONDARY });
    expect((await transfer(server, SECONDARY, 'off.test', 'AXFR')).status).toBe('NOERROR');
    await data(server.base, { api_action: 'domain.update', api_key: key, DomainID: off, status: 0 });
    expect((await transfer(server, SECONDARY, 'off.test', 'AXFR')).status).toBe('REFUSED');
  });

  needsKdig.it('sends the whole zone by AXFR to a listed address, starting and ending with the SOA', async () => {
    const axfr = await transfer(server, SECONDARY, ZONE, 'AXFR');
    expect(axfr.status).toBe('NOERROR');
    expect(axfr.records[0]).toMatch(new RegExp(`^${ZONE}\\. SOA `));
    expect(axfr.records.at(-1)).toBe(axfr.records[0]);
    expect(axfr.records).toContain(`www.${ZONE}. A 192.0.2.1`);
    expect(axfr.records).toContain(`${ZONE}. NS ns1.zonehost.test.`);
  });

  needsKdig.it('answers IXFR with the differences since the client serial, from the journal', async () => {
    const before = serialOf((await transfer(server, SECONDARY, ZONE, 'AXFR')).records);
    const mail = await createRecord(server.base, key, domainId, { Type: 'MX', Name: '', Target: 'mail.example.net', Priority: 5 });
    const www = (await data(server.base, { api_action: 'domain.resource.list', api_key: key, DomainID: domainId })).find((r: any) => r.NAME === 'www');
    await data(server.base, { api_action: 'domain.resource.update', api_key: key, DomainID: domainId, ResourceID: www.RESOURCEID, Target: '192.0.2.10' });
    const ixfr = await transfer(server, SECONDARY, ZONE, `IXFR=${before}`);
    expect(ixfr.status).toBe('NOERROR');
    const soa = ixfr.records.filter((r) => r.includes(' SOA '));
    const current = serialOf(ixfr.records);
    expect(current).toBeGreaterThan(before);
    // current SOA, then per change: old SOA, deletions, new SOA, additions; then the current SOA again.
    const lines = ixfr.records.map((r) => (r.includes(' SOA ') ? `SOA ${r.split(' ')[4]}` : r));
    const [s1, s2] = [Number(lines[4]?.split(' ')[1]), current];
    expect(lines).toEqual([
      `SOA ${current}`,
      `SOA ${before}`,
      `SOA ${s1}`,
      `${ZONE}. MX 5 mail.example.net.`,
      `SOA ${s1}`,
      `www.${ZONE}. A 192.0.2.1`,
      `SOA ${s2}`,
      `www.${ZONE}. A 192.0.2.10`,
      `SOA ${current}`,
    ]);
    expect(soa.length).toBe(6);
    expect(mail).toBeGreaterThan(0);
  });

  needsKdig.it('answers an up-to-date IXFR with the SOA alone, over UDP too', async () => {
    const current = serialOf((await transfer(server, SECONDARY, ZONE, 'AXFR')).records);
    for (const transport of ['+tcp', '+notcp']) {
      const ixfr = await transfer(server, SECONDARY, ZONE, `IXFR=${current}`, transport);
      expect(ixfr.records.map((r) => r.split(' ')[1])).toEqual(['SOA']);
      expect(serialOf(ixfr.records)).toBe(current);
    }
  });

  needsKdig.it('falls back to the whole zone when the journal cannot answer', async () => {
    // A serial we never had, and a change to the domain itself (SOA fields), both need a full answer.
    const unknown = await transfer(server, SECONDARY, ZONE, 'IXFR=7');
    const axfr = await transfer(server, SECONDARY, ZONE, 'AXFR');
    expect(unknown.records).toEqual(axfr.records);
    const before = serialOf(axfr.records);
    await data(server.base, { api_action: 'domain.update', api_key: key, DomainID: domainId, Refresh_sec: 7200 });
    const after = await transfer(server, SECONDARY, ZONE, `IXFR=${before}`);
    expect(after.records.filter((r) => r.includes(' SOA ')).length).toBe(2);
    expect(after.records).toContain(`www.${ZONE}. A 192.0.2.10`);
    expect(after.records[0]).toMatch(/ 7200 /);
  });

  needsKdig.it('sends the whole zone when it is shorter than the changes since the client serial', async () => {
    const churn = await createDomain(server.base, key, 'churn.test', { axfr_ips: SECONDARY });
    const rec = await createRecord(server.base, key, churn, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
    const before = serialOf((await transfer(server, SECONDARY, 'churn.test', 'AXFR')).records);
    for (let i = 2; i <= 6; i++) {
      await data(server.base, { api_action: 'domain.resource.update', api_key: key, DomainID: churn, ResourceID: rec, Target: `192.0.2.${i}` });
    }
    // Five changes against three records (two NS and the A): the whole zone, not five difference sequences.
    const ixfr = await transfer(server, SECONDARY, 'churn.test', `IXFR=${before}`);
    expect(ixfr.records).toEqual((await transfer(server, SECONDARY, 'churn.test', 'AXFR')).records);
    expect(ixfr.records).toContain('www.churn.test. A 192.0.2.6');
  });

  needsKdig.it('splits a large zone over several messages', async () => {
    const big = await createDomain(server.base, key, 'big.test', { axfr_ips: SECONDARY });
    const text = 'x'.repeat(2000);
    for (let i = 0; i < 40; i++) await createRecord(server.base, key, big, { Type: 'TXT', Name: `t${i}`, Target: `${i}${text}` });
    const axfr = await transfer(server, SECONDARY, 'big.test', 'AXFR');
    expect(axfr.records.filter((r) => r.includes(' TXT ')).length).toBe(40);
    const messages = Number(/\((\d+) messages/.exec(axfr.raw)?.[1]);
    expect(messages).toBeGreaterThan(1);
  });
});

describe('EDNS in transfer and NOTIFY responses', () => {
  const OPT = { type: 'OPT', name: '.', udpPayloadSize: 4096, flags: 0x8000 } as dnsPacket.Answer;
  const message = (type: 'AXFR' | 'IXFR' | 'SOA', zone: string, extra: Partial<dnsPacket.Packet> = {}) =>
    dnsPacket.encode({ type: 'query', id: 77, flags: 0, questions: [{ type, name: zone, class: 'IN' }], ...extra });

  /** The response messages to one query sent over TCP from `from`. */
  const overTcp = (query: Buffer, from: string) =>
    new Promise<dnsPacket.Packet[]>((resolve, reject) => {
      const out: dnsPacket.Packet[] = [];
      let buf = Buffer.alloc(0);
      let soas = 0;
      const s = connect({ port: server.dnsAddress?.port ?? 0, host: '127.0.0.1', localAddress: from }, () => s.write(Buffer.concat([Buffer.from([query.length >> 8, query.length & 0xff]), query])));
      s.on('data', (d: Buffer) => {
        buf = Buffer.concat([buf, d]);
        while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          const m = dnsPacket.decode(buf.subarray(2, 2 + buf.readUInt16BE(0)));
          buf = buf.subarray(2 + buf.readUInt16BE(0));
          out.push(m);
          soas += (m.answers ?? []).filter((a) => a.type === 'SOA').length;
          // Done: the closing SOA, an error, or an up-to-date IXFR's lone SOA.
          if (soas >= 2 || (m.flags ?? 0) & 0xf || (out.length === 1 && m.answers?.length === 1)) {
            s.destroy();
            resolve(out);
          }
        }
      });
      s.on('error', reject);
    });
  /** What each message says of EDNS: our UDP size and the DO bit echoed, or null without OPT. */
  const ednsOf = (m: dnsPacket.Packet) => {
    const opt = (m.additionals ?? []).find((a): a is dnsPacket.OptAnswer => a.type === 'OPT');
    return opt ? `udp ${opt.udpPayloadSize}${opt.flag_do ? ' do' : ''}` : null;
  };

  needsKdig.it('answers AXFR, IXFR and NOTIFY of a class other than IN with NOTIMP, echoing the class asked (knotd: NOTIMP for CH)', async () => {
    for (const klass of ['CH', 'ANY'] as const) {
      for (const type of ['AXFR', 'IXFR'] as const) {
        const question = { type, name: ZONE, class: klass };
        const soa = { type: 'SOA', name: ZONE, class: klass, ttl: 0, data: { mname: 'a', rname: 'b', serial: 1, refresh: 0, retry: 0, expire: 0, minimum: 0 } } as dnsPacket.Answer;
        const query = dnsPacket.encode({ type: 'query', id: 79, flags: 0, questions: [question], ...(type === 'IXFR' ? { authorities: [soa] } : {}) });
        const replies = await overTcp(query, SECONDARY);
        expect(replies.map((m) => [(m.flags ?? 0) & 0xf, m.questions, m.answers])).toEqual([[4, [question], []]]);
      }
    }
    expect((await transfer(server, SECONDARY, ZONE, 'AXFR', '-c', 'CH')).status).toBe('NOTIMPL');
    // NOTIFY likewise (knotd: NOTIMP).
    const socket = createSocket('udp4');
    try {
      const reply = new Promise<Buffer>((resolve) => socket.once('message', (m) => resolve(m)));
      const question = { type: 'SOA', name: ZONE, class: 'CH' } as const;
      socket.send(dnsPacket.encode({ type: 'query', id: 80, flags: (4 << 11) | 0x0400, questions: [question] }), server.dnsAddress?.port, '127.0.0.1');
      const m = dnsPacket.decode(await reply);
      expect([(m.flags ?? 0) & 0xf, m.questions]).toEqual([4, [question]]);
    } finally {
      socket.close();
    }
  });

  it('carries OPT in every message when the query had one (RFC 6891 7), and none otherwise', async () => {
    const id = await createDomain(server.base, key, 'edns.test', { axfr_ips: SECONDARY });
    for (let i = 0; i < 20; i++) await createRecord(server.base, key, id, { Type: 'TXT', Name: `t${i}`, Target: `${i}${'e'.repeat(2000)}` });
    const axfr = await overTcp(message('AXFR', 'edns.test', { additionals: [OPT] }), SECONDARY);
    expect(axfr.length).toBeGreaterThan(1);
    expect(axfr.map(ednsOf)).toEqual(axfr.map(() => 'udp 1232 do'));
    const plain = await overTcp(message('AXFR', 'edns.test'), SECONDARY);
    expect(plain.map(ednsOf)).toEqual(plain.map(() => null));
    // Refused, and an up-to-date IXFR (the SOA alone).
    const refused = await overTcp(message('AXFR', 'edns.test', { additionals: [OPT] }), '127.0.31.9');
    expect(refused.map((m) => [(m.flags ?? 0) & 0xf, ednsOf(m)])).toEqual([[5, 'udp 1232 do']]);
    const soa = axfr[0]?.answers?.[0] as dnsPacket.Answer;
    const ixfr = await overTcp(message('IXFR', 'edns.test', { authorities: [soa], additionals: [OPT] }), SECONDARY);
    expect(ixfr.map((m) => [m.answers?.map((a) => a.type), ednsOf(m)])).toEqual([[['SOA'], 'udp 1232 do']]);
    // NOTIFY for a zone that is not a mirror of ours: refused, with OPT.
    const socket = createSocket('udp4');
    try {
      const reply = new Promise<Buffer>((resolve) => socket.once('message', (m) => resolve(m)));
      const notify = dnsPacket.encode({ type: 'query', id: 78, flags: (4 << 11) | 0x0400, questions: [{ type: 'SOA', name: 'edns.test', class: 'IN' }], additionals: [{ ...OPT, flags: 0 } as dnsPacket.Answer] });
      socket.send(notify, server.dnsAddress?.port, '127.0.0.1');
      const m = dnsPacket.decode(await reply);
      expect([(m.flags ?? 0) & 0xf, ednsOf(m)]).toEqual([5, 'udp 1232']);
    } finally {
      socket.close();
    }
  });
});
