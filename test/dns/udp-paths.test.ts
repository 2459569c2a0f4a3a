/**
 * DNS over UDP on the path the suite runs (ZONEHOST_UDP_BATCH: batched by the native module by default, dgram
 * with 0; vitest.config.ts runs this file on both): which path answered, and that bursts larger than a batch,
 * damaged and oversized datagrams and clients that vanish mid-batch cost nothing lasting.
 */
import { createSocket, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { udpPathReason } from '../../src/dns/server/udp.js';
import { needs } from '../support/peers.js';
import { startTestServer, UDP_BATCH, type TestServer } from '../support/server.js';
import { createDomain, createRecord, udpExchange } from './support.js';

const ZONE = 'paths.example';
const expectedPath = UDP_BATCH === 0 ? 'dgram' : 'batched';
// With a batch asked for, the native module must be there: a machine without g++ skips (CI fails) rather than
// silently testing dgram twice.
const onThisPath = needs(UDP_BATCH === 0 ? null : udpPathReason(UDP_BATCH));

let server: TestServer;
let port = 0;
beforeAll(async () => {
  // Response rate limiting off (--rrl-rate 0): the bursts below send up to 1,000 copies of one query from one address on purpose.
  server = await startTestServer({ rrl: { rate: 0 } });
  port = server.dnsAddress?.port ?? 0;
  const { key } = await server.user('paths');
  const id = await createDomain(server.base, key, ZONE);
  await createRecord(server.base, key, id, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
});
afterAll(() => server.close());

const query = (id: number, name = `www.${ZONE}`, extra: Partial<dnsPacket.Packet> = {}): Buffer =>
  dnsPacket.encode({ type: 'query', id, flags: 0, questions: [{ type: 'A', name, class: 'IN' }], ...extra });

/** Linux's cap on a socket's receive buffer (208 KiB by default, 4 MiB on CI's machines). */
const rmemMax = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/core/rmem_max', 'utf8'));
  } catch {
    return 212_992;
  }
})();
/**
 * Queries in a burst: many batches long, yet few enough that their answers, sent a batch per system call,
 * fit the client's receive buffer (about 1 KiB each on loopback): a client must read as fast as it asks.
 */
const BURST = Math.min(1000, Math.floor(rmemMax / 2048));

async function bound(type: 'udp4' | 'udp6' = 'udp4', host = '127.0.0.1'): Promise<Socket> {
  const socket = createSocket({ type, recvBufferSize: rmemMax });
  await new Promise<void>((resolve) => socket.bind(0, host, () => resolve()));
  return socket;
}

/** Sends `packets` at once from one socket and collects the answers' ids until `expected` arrived or 5 s passed. */
async function burst(packets: Buffer[], expected: number, type: 'udp4' | 'udp6' = 'udp4', host = '127.0.0.1'): Promise<Set<number>> {
  const socket = await bound(type, host);
  const ids = new Set<number>();
  try {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5000);
      socket.on('message', (m) => {
        if (m.length >= 2) ids.add(m.readUInt16BE(0));
        if (ids.size >= expected) {
          clearTimeout(timer);
          resolve();
        }
      });
      for (const p of packets) socket.send(p, port, host);
    });
    return ids;
  } finally {
    socket.close();
  }
}

const answered = async () => dnsPacket.decode(await udpExchange(port, query(4321))).answers?.map((a) => (a as { data: unknown }).data);

onThisPath.describe(`DNS over UDP on the ${expectedPath} path`, () => {
  it('is the path asked for, and the start-up log said so', () => {
    expect(server.udpPath).toBe(expectedPath);
  });

  it('answers every query of a burst many batches long (the client reading as fast as it asks), each under its own id', async () => {
    const ids = Array.from({ length: BURST }, (_, i) => i + 1);
    expect((await burst(ids.map((id) => query(id)), ids.length)).size).toBe(ids.length);
  });

  it('answers queries that need more than the quick path (BADVERS) beside quick ones in the same burst', async () => {
    const slow = (id: number) => query(id, `www.${ZONE}`, { additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: 0, version: 1 } as unknown as dnsPacket.Answer] });
    const packets = Array.from({ length: Math.min(200, BURST) }, (_, i) => (i % 2 ? slow(i + 1) : query(i + 1)));
    expect((await burst(packets, packets.length)).size).toBe(packets.length);
  });

  it('ignores empty, header-short and oversized datagrams and answers the next query', async () => {
    const huge = Buffer.concat([query(7), Buffer.alloc(60_000, 0xab)]);
    const socket = await bound();
    for (const junk of [Buffer.alloc(0), Buffer.from([1, 2, 3]), Buffer.alloc(65_000, 0xff), huge]) socket.send(junk, port, '127.0.0.1');
    socket.close();
    expect(await answered()).toEqual(['192.0.2.1']);
  });

  it('answers a 60 KB query (a valid question and trailing bytes) under its id without harm', async () => {
    const reply = await udpExchange(port, Buffer.concat([query(77), Buffer.alloc(60_000, 0)]));
    expect(reply.readUInt16BE(0)).toBe(77);
    expect(await answered()).toEqual(['192.0.2.1']);
  });

  it('serves others when clients vanish mid-batch, before their answers are sent', async () => {
    for (let round = 0; round < 5; round++) {
      const gone = await bound();
      for (let i = 0; i < 300; i++) gone.send(query(i), port, '127.0.0.1');
      gone.close();
    }
    const ids = Array.from({ length: BURST }, (_, i) => i + 1);
    expect((await burst(ids.map((id) => query(id)), ids.length)).size).toBe(ids.length);
  });
});

onThisPath.describe(`DNS over UDP on the ${expectedPath} path, over IPv6`, () => {
  let v6: TestServer;
  beforeAll(async () => {
    v6 = await startTestServer({ dns: { host: '::1', port: 0 } });
    const { key } = await v6.user('six');
    const id = await createDomain(v6.base, key, ZONE);
    await createRecord(v6.base, key, id, { Type: 'A', Name: 'www', Target: '192.0.2.6' });
  });
  afterAll(() => v6?.close());

  it('answers quick and slow queries back to the IPv6 sender', async () => {
    port = v6.dnsAddress?.port ?? 0;
    const slow = query(2, `www.${ZONE}`, { additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: 0, version: 1 } as unknown as dnsPacket.Answer] });
    const got = await burst([query(1), slow], 2, 'udp6', '::1');
    port = server.dnsAddress?.port ?? 0;
    expect([...got].sort()).toEqual([1, 2]);
  });
});
