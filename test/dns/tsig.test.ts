/**
 * TSIG (RFC 8945) with a key nobody created: every signed request (query, zone transfer, NOTIFY) gets NOTAUTH
 * with an unsigned TSIG record saying BADKEY, as knotd answers for a key it does not have; never an unsigned
 * answer. Keys that exist: test/dns/update.test.ts and test/dns/transfer-tsig.test.ts.
 */
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transfer } from '../support/knot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { data } from '../v3/support.js';
import { createDomain, createRecord, kdig, udpExchange } from './support.js';
import { peers } from '../support/peers.js';

const needsKdig = peers('kdig');

const ZONE = 'signed.example';
const MIRROR = 'mirror.example';
/** Allowed to transfer ZONE, and master of MIRROR. */
const PEER = '127.0.31.8';
const KEY = 'hmac-sha256:k1:c2VjcmV0c2VjcmV0c2VjcmV0';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  const { key } = await server.user('tsig');
  const id = await createDomain(server.base, key, ZONE, { axfr_ips: PEER });
  await createRecord(server.base, key, id, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
  await data(server.base, { api_action: 'domain.create', api_key: key, Domain: MIRROR, Type: 'slave', master_ips: PEER });
});
afterAll(() => server.close());

/** A TSIG record as a client signs with (RFC 8945 4.2): key k1, hmac-sha256, a 32-byte MAC. */
function tsigRecord(originalId: number, timeSigned = 1_700_000_000): Buffer {
  const name = (n: string) => Buffer.concat([...n.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])), Buffer.from([0])]);
  const fixed = Buffer.alloc(10);
  fixed.writeUIntBE(timeSigned, 0, 6);
  fixed.writeUInt16BE(300, 6);
  fixed.writeUInt16BE(32, 8);
  const tail = Buffer.alloc(6);
  tail.writeUInt16BE(originalId, 0);
  const rdata = Buffer.concat([name('hmac-sha256'), fixed, Buffer.alloc(32, 7), tail]);
  const head = Buffer.alloc(10);
  head.writeUInt16BE(250, 0); // TSIG
  head.writeUInt16BE(255, 2); // class ANY
  head.writeUInt16BE(rdata.length, 8);
  return Buffer.concat([name('k1'), head, rdata]);
}

/** `msg` with a TSIG record appended to its additional section. */
function signed(msg: Buffer, tsig = tsigRecord(msg.readUInt16BE(0))): Buffer {
  const out = Buffer.concat([msg, tsig]);
  out.writeUInt16BE(out.readUInt16BE(10) + 1, 10);
  return out;
}

const udp = (msg: Buffer, from?: string): Promise<Buffer> => udpExchange(server.dnsAddress?.port, msg, from);

const rcode = (m: Buffer) => m.readUInt16BE(2) & 0xf;

describe('a TSIG-signed request', () => {
  needsKdig.it('is answered NOTAUTH with an unsigned TSIG record saying BADKEY, as knotd does', async () => {
    const a = await kdig(server, `www.${ZONE}`, 'A', '-y', KEY);
    expect(a.status).toBe('BADKEY');
    expect(a.answer).toEqual([]);
    // Key, algorithm and fudge repeated, MAC size 0, error BADKEY, no other data.
    expect(a.raw).toMatch(/^k1\.\s+0\s+ANY\s+TSIG\s+hmac-sha256\. \d+ 300 0 \d+ BADKEY 0$/m);
    // The same, unsigned: answered.
    expect((await kdig(server, `www.${ZONE}`, 'A')).answer.map((r) => r.data)).toEqual(['192.0.2.1']);
  });

  it('gets rcode NOTAUTH (9), with the OPT before the TSIG when the query had one; the request time echoed', async () => {
    const query = dnsPacket.encode({ type: 'query', id: 321, questions: [{ type: 'A', class: 'IN', name: `www.${ZONE}` }], additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232 } as dnsPacket.Answer] });
    const reply = await udp(signed(query, tsigRecord(321, 1234)));
    expect(rcode(reply)).toBe(9);
    const decoded = dnsPacket.decode(reply);
    expect(decoded.answers).toEqual([]);
    expect(decoded.additionals?.map((r) => r.type)).toEqual(['OPT', 'TSIG']);
    const tsig = reply.subarray(reply.length - 16);
    // time signed, fudge, MAC size, original id, error, other length
    expect([tsig.readUIntBE(0, 6), tsig.readUInt16BE(6), tsig.readUInt16BE(8), tsig.readUInt16BE(10), tsig.readUInt16BE(12), tsig.readUInt16BE(14)]).toEqual([1234, 300, 0, 321, 17, 0]);
  });

  needsKdig.it('gets no zone transfer, even from an allowed address', async () => {
    const axfr = await transfer(server, PEER, ZONE, 'AXFR', '-y', KEY);
    expect(axfr.status).toBe('BADKEY');
    expect(axfr.records).toEqual([]);
    expect((await transfer(server, PEER, ZONE, 'AXFR')).records.length).toBeGreaterThan(2);
  });

  it('as NOTIFY from a master is not taken', async () => {
    const notify = dnsPacket.encode({ type: 'query', id: 99, flags: (4 << 11) | 0x0400, questions: [{ type: 'SOA', class: 'IN', name: MIRROR }] });
    expect(rcode(await udp(signed(notify), PEER))).toBe(9);
    expect(rcode(await udp(notify, PEER))).toBe(0);
  });

  it('is FORMERR when the TSIG record is not the last one (RFC 8945 5.1)', async () => {
    const query = dnsPacket.encode({ type: 'query', id: 5, questions: [{ type: 'A', class: 'IN', name: `www.${ZONE}` }] });
    const opt = Buffer.from([0, 0, 41, 4, 0xd0, 0, 0, 0, 0, 0, 0]);
    const bad = Buffer.concat([signed(query), opt]);
    bad.writeUInt16BE(2, 10);
    expect(rcode(await udp(bad))).toBe(1);
  });
});
