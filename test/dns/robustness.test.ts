/** Malformed and random input over UDP and TCP: clear FORMERR where an answer is possible, and never a crash. */
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import * as dnsPacket from 'dns-packet';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDns } from '../../src/dns/server/server.js';
import { dnsTcp } from '../../src/dns/server/tcp.js';
import { eventually } from '../support/knot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createDomain, createRecord, dig, rrs, udpExchange } from './support.js';
import { peers } from '../support/peers.js';

const needsDig = peers('dig');

const ZONE = 'robust.example';
let server: TestServer;
let port: number;
beforeAll(async () => {
  // Response rate limiting off (--rrl-rate 0): the burst below sends 2,000 copies of one query from one address on purpose.
  server = await startTestServer({ rrl: { rate: 0 } });
  port = server.dnsAddress?.port ?? 0;
  const { key } = await server.user('fuzz');
  const id = await createDomain(server.base, key, ZONE);
  await createRecord(server.base, key, id, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
  await createRecord(server.base, key, id, { Type: 'MX', Name: '', Target: `mail.${ZONE}` });
  await createRecord(server.base, key, id, { Type: 'TXT', Name: 'txt', Target: 'hello' });
});
afterAll(() => server.close());

const query = (name: string, type = 'A', id = 1234, extra: Partial<dnsPacket.Packet> = {}): Buffer =>
  dnsPacket.encode({ type: 'query', id, flags: 0, questions: [{ type: type as 'A', name, class: 'IN' }], ...extra });

const udpFirstReply = (...packets: Buffer[]): Promise<Buffer> => udpExchange(port, packets);

const header = (buf: Buffer) => ({ id: buf.readUInt16BE(0), flags: buf.readUInt16BE(2), rcode: buf.readUInt16BE(2) & 0xf, qd: buf.readUInt16BE(4) });

/** A valid query followed by hand-made damage. */
function raw(bytes: number[]): Buffer {
  return Buffer.from(bytes);
}
const HDR = (qd = 1, an = 0, ns = 0, ar = 0, id = 0x4242, flags = 0) => [id >> 8, id & 0xff, flags >> 8, flags & 0xff, 0, qd, 0, an, 0, ns, 0, ar];
const QNAME = [3, 0x77, 0x77, 0x77, 6, ...Buffer.from('robust'), 7, ...Buffer.from('example'), 0];

describe('malformed queries', () => {
  it.each([
    ['no question', raw(HDR(0))],
    ['two questions', raw([...HDR(2), ...QNAME, 0, 1, 0, 1, ...QNAME, 0, 1, 0, 1])],
    ['question cut short', raw([...HDR(), ...QNAME, 0, 1])],
    ['label past the end', raw([...HDR(), 9, 0x61, 0x62])],
    ['reserved label type', raw([...HDR(), 0x40, 0x61, 0, 0, 1, 0, 1])],
    ['pointer loop', raw([...HDR(), 0xc0, 12, 0, 1, 0, 1])],
    ['pointer forwards', raw([...HDR(), 0xc0, 30, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])],
    ['trailing bytes', raw([...HDR(), ...QNAME, 0, 1, 0, 1, 0xde, 0xad])],
    ['answer count with no answer', raw([...HDR(1, 1), ...QNAME, 0, 1, 0, 1])],
    ['OPT not at the root', raw([...HDR(1, 0, 0, 1), ...QNAME, 0, 1, 0, 1, 1, 0x61, 0, 0, 41, 4, 0xd0, 0, 0, 0, 0, 0, 0])],
    ['two OPT records', raw([...HDR(1, 0, 0, 2), ...QNAME, 0, 1, 0, 1, 0, 0, 41, 4, 0xd0, 0, 0, 0, 0, 0, 0, 0, 0, 41, 4, 0xd0, 0, 0, 0, 0, 0, 0])],
    ['OPT option overrunning its rdata', raw([...HDR(1, 0, 0, 1), ...QNAME, 0, 1, 0, 1, 0, 0, 41, 4, 0xd0, 0, 0, 0, 0, 0, 4, 0, 10, 0, 9])],
    ['name longer than 255 octets', raw([...HDR(), ...Array.from({ length: 5 }, () => [63, ...Buffer.alloc(63, 0x61)]).flat(), 0, 0, 1, 0, 1])],
  ])('answers FORMERR with the query id: %s', async (_what, packet) => {
    const h = header(await udpFirstReply(packet));
    expect(h.id).toBe(0x4242);
    expect(h.flags & 0x8000).toBe(0x8000);
    expect(h.rcode).toBe(1);
  });

  it('carries OPT in a FORMERR when the OPT record itself could be read (RFC 6891 7)', async () => {
    const OPT = [0, 0, 41, 4, 0xd0, 0, 0, 0x80, 0, 0, 0];
    const arcount = (buf: Buffer) => buf.readUInt16BE(10);
    for (const packet of [raw([...HDR(0, 0, 0, 1), ...OPT]), raw([...HDR(2, 0, 0, 1), ...QNAME, 0, 1, 0, 1, ...QNAME, 0, 1, 0, 1, ...OPT]), raw([...HDR(1, 0, 0, 1), ...QNAME, 0, 1, 0, 1, ...OPT, 0xde, 0xad])]) {
      const reply = await udpFirstReply(packet);
      expect(header(reply).rcode).toBe(1);
      // The OPT: root owner, type 41, our UDP size, no extended rcode, version 0, DO echoed.
      expect([arcount(reply), reply.subarray(-11).toString('hex')]).toEqual([1, '00002904d0000080000000']);
    }
    expect(arcount(await udpFirstReply(raw(HDR(0))))).toBe(0);
  });

  it('ignores responses and fragments shorter than a header, answering the next query', async () => {
    const response = raw([...HDR(1, 0, 0, 0, 0x1111, 0x8000), ...QNAME, 0, 1, 0, 1]);
    const reply = await udpFirstReply(response, Buffer.from([1, 2, 3]), Buffer.alloc(0), query(`www.${ZONE}`, 'A', 0x2222));
    expect(header(reply).id).toBe(0x2222);
    expect(header(reply).rcode).toBe(0);
  });

  it('answers a query for qtype OPT with FORMERR and an unknown class with REFUSED', async () => {
    expect(header(await udpFirstReply(raw([...HDR(), ...QNAME, 0, 41, 0, 1]))).rcode).toBe(1);
    expect(header(await udpFirstReply(raw([...HDR(), ...QNAME, 0, 1, 0, 3]))).rcode).toBe(5);
  });
});

/** Random bytes, and valid queries with random damage (bit flips, cuts, splices, count changes). */
const packetArb = fc.oneof(
  fc.uint8Array({ minLength: 0, maxLength: 600 }).map((a) => Buffer.from(a)),
  fc
    .tuple(
      fc.constantFrom(query(`www.${ZONE}`), query(ZONE, 'MX'), query(`txt.${ZONE}`, 'TXT', 7, { additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }] })),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
      fc.option(fc.nat()),
      fc.uint8Array({ maxLength: 40 }),
    )
    .map(([base, flips, cut, tail]) => {
      const b = Buffer.from(base);
      for (const [at, v] of flips) b[at % b.length] = v;
      // Clear QR in half the cases so most damaged packets reach the parser rather than being ignored.
      if (flips.length % 2 === 0 && b.length > 2) b[2] = (b[2] as number) & 0x7f;
      const cutAt = cut === null ? b.length : cut % (b.length + 1);
      return Buffer.concat([b.subarray(0, cutAt), Buffer.from(tail)]);
    }),
);

async function stillAnswers(): Promise<void> {
  expect(rrs((await dig(server, `www.${ZONE}`, 'A')).answer)).toEqual([`www.${ZONE}. 86400 A 192.0.2.1`]);
  expect(rrs((await dig(server, `www.${ZONE}`, 'A', '+tcp')).answer)).toEqual([`www.${ZONE}. 86400 A 192.0.2.1`]);
  expect((await dig(server, `nx.${ZONE}`, 'A')).status).toBe('NXDOMAIN');
}

describe('fuzzing', () => {
  needsDig.it('keeps answering after thousands of random and damaged UDP packets', async () => {
    const packets = fc.sample(packetArb, { numRuns: 5000, seed: 4242 });
    const socket = createSocket('udp4');
    let replies = 0;
    const bad: string[] = [];
    socket.on('message', (m) => {
      replies++;
      // Whatever comes back is a well-formed response.
      if (m.length < 12 || (m.readUInt16BE(2) & 0x8000) === 0) bad.push(m.toString('hex'));
    });
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
    for (let i = 0; i < packets.length; i += 50) {
      await Promise.all(packets.slice(i, i + 50).map((p) => new Promise((resolve) => socket.send(p, port, '127.0.0.1', resolve))));
      await new Promise((resolve) => setImmediate(resolve));
    }
    // A final query with its own id; UDP may drop it under this load, so it is repeated until answered.
    const done = new Promise<void>((resolve) => socket.on('message', (m) => m.readUInt16BE(0) === 0xfeed && resolve()));
    const repeat = setInterval(() => socket.send(query(`www.${ZONE}`, 'A', 0xfeed), port, '127.0.0.1'), 250);
    socket.send(query(`www.${ZONE}`, 'A', 0xfeed), port, '127.0.0.1');
    await done;
    clearInterval(repeat);
    socket.close();
    expect(bad).toEqual([]);
    expect(replies).toBeGreaterThan(100);
    await stillAnswers();
  }, 60_000);

  needsDig.it('keeps answering after random and damaged messages over TCP, framed and unframed', async () => {
    const packets = fc.sample(packetArb, { numRuns: 2000, seed: 77 });
    const streams: Buffer[] = [];
    // 20 connections at once, within what one client address may hold.
    for (let i = 0; i < packets.length; i += 100) {
      const batch = packets.slice(i, i + 100);
      if ((i / 100) % 4 === 3) {
        // Unframed garbage, or a length prefix promising more than is sent.
        streams.push(Buffer.concat([...batch, Buffer.from([0xff, 0xff, 1, 2, 3])]));
      } else {
        streams.push(Buffer.concat(batch.map((p) => Buffer.concat([Buffer.from([p.length >> 8, p.length & 0xff]), p]))));
      }
    }
    await Promise.all(
      streams.map(
        (data) =>
          new Promise<void>((resolve) => {
            const s = connect(port, '127.0.0.1', () => {
              s.end(data);
            });
            s.on('data', () => undefined);
            s.on('error', () => resolve());
            s.on('close', () => resolve());
          }),
      ),
    );
    await stillAnswers();
  }, 60_000);

  it('answers framed queries sent in one write, in order, on one connection', async () => {
    const qs = [query(`www.${ZONE}`, 'A', 1), query(`nx.${ZONE}`, 'A', 2), query('example.org', 'A', 3), query(ZONE, 'MX', 4)];
    const framed = Buffer.concat(qs.map((q) => Buffer.concat([Buffer.from([0, q.length]), q])));
    const replies = await new Promise<dnsPacket.Packet[]>((resolve, reject) => {
      const out: dnsPacket.Packet[] = [];
      let buf = Buffer.alloc(0);
      const s = connect(port, '127.0.0.1', () => {
        // Split across writes at an awkward place: in the middle of a length prefix.
        s.write(framed.subarray(0, 1));
        setImmediate(() => s.write(framed.subarray(1)));
      });
      s.on('data', (d: Buffer) => {
        buf = Buffer.concat([buf, d]);
        while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          out.push(dnsPacket.decode(buf.subarray(2, 2 + buf.readUInt16BE(0))));
          buf = buf.subarray(2 + buf.readUInt16BE(0));
        }
        if (out.length === qs.length) {
          s.end();
          resolve(out);
        }
      });
      s.on('error', reject);
    });
    expect(replies.map((r) => [r.id, (r as { rcode?: string }).rcode])).toEqual([
      [1, 'NOERROR'],
      [2, 'NXDOMAIN'],
      [3, 'REFUSED'],
      [4, 'NOERROR'],
    ]);
  });
});

describe('TCP connections', () => {
  it('closes a connection that stays idle, after answering on it', async () => {
    const dns = await startDns(server.services, { host: '127.0.0.1', port: 0, nameservers: ['ns1.zonehost.test'], log: pino({ level: 'silent' }), tcpIdleMs: 300 });
    try {
      const q = query(`www.${ZONE}`, 'A', 9);
      const events: string[] = [];
      await new Promise<void>((resolve) => {
        const s = connect(dns.address.port, '127.0.0.1', () => s.write(Buffer.concat([Buffer.from([0, q.length]), q])));
        s.on('data', (d: Buffer) => events.push(`answer ${d.readUInt16BE(2)}`));
        s.on('error', () => events.push('error'));
        s.on('close', () => resolve());
      });
      // The answer came, then the server hung up on its own (the client never closed).
      expect(events).toEqual([`answer 9`]);
    } finally {
      await dns.close();
    }
  });
  it('keeps a connection open while its answer takes longer than the idle time, then closes it once idle', async () => {
    // A handler as slow as signing a large zone for its first AXFR on a loaded machine: 3 idle times.
    const slow = { handle: (msg: Buffer) => new Promise<Buffer[]>((r) => setTimeout(() => r([msg]), 600)) };
    const tcp = dnsTcp(slow, pino({ level: 'silent' }), 200);
    const tcpPort = await tcp.listen('127.0.0.1', 0);
    try {
      const q = query(`www.${ZONE}`, 'A', 12);
      const events: string[] = [];
      const started = Date.now();
      await new Promise<void>((resolve) => {
        const s = connect(tcpPort, '127.0.0.1', () => s.write(Buffer.concat([Buffer.from([0, q.length]), q])));
        s.on('data', (d: Buffer) => events.push(`answer ${d.readUInt16BE(2)}`));
        s.on('error', () => events.push('error'));
        s.on('close', () => resolve());
      });
      expect(events).toEqual(['answer 12']);
      expect(Date.now() - started).toBeGreaterThanOrEqual(600 + 200);
    } finally {
      await tcp.close();
    }
  });
  it('closes a connection whose message stays unfinished, however often a byte of it arrives', async () => {
    const q = query(`www.${ZONE}`, 'A', 11);
    const events: string[] = [];
    const s = connect(port, '127.0.0.1');
    const closed = new Promise<void>((resolve) => s.on('close', () => resolve()));
    s.on('data', (d: Buffer) => events.push(`answer ${d.readUInt16BE(2)}`));
    s.on('error', () => undefined);
    s.write(Buffer.concat([Buffer.from([0, q.length]), q]));
    await eventually('the answer', async () => events.length === 1);
    // A message of 200 bytes, sent a byte every 200 ms: each byte would keep an idle timer (10 s) from firing.
    s.write(Buffer.from([0, 200]));
    const trickle = setInterval(() => s.write(Buffer.from([0x61])), 200);
    const stillOpenAfter = await Promise.race([closed.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 15_000))]);
    clearInterval(trickle);
    s.destroy();
    expect(stillOpenAfter).toBe(false);
    expect(events).toEqual(['answer 11']);
  }, 30_000);

  it('limits the connections one client address may hold: one more is closed at once, other clients are served', async () => {
    const dns = await startDns(server.services, { host: '127.0.0.1', port: 0, nameservers: ['ns1.zonehost.test'], log: pino({ level: 'silent' }) });
    /** Connects from `from`, sends a query and resolves to its answer's id, or to 'closed' when the server hangs up first. */
    const ask = (from: string, id: number, keep: Socket[] = []) =>
      new Promise<number | 'closed'>((resolve) => {
        const q = query(`www.${ZONE}`, 'A', id);
        const s = connect({ port: dns.address.port, host: '127.0.0.1', localAddress: from }, () => s.write(Buffer.concat([Buffer.from([0, q.length]), q])));
        keep.push(s);
        s.on('data', (d: Buffer) => resolve(d.readUInt16BE(2)));
        s.on('error', () => resolve('closed'));
        s.on('close', () => resolve('closed'));
      });
    const held: Socket[] = [];
    try {
      // 32 connections from one address, each answered and kept open.
      expect(await Promise.all(Array.from({ length: 32 }, (_, i) => ask('127.0.0.1', i, held)))).toEqual(Array.from({ length: 32 }, (_, i) => i));
      expect(await ask('127.0.0.1', 100, held)).toBe('closed');
      expect(await ask('127.0.0.2', 101, held)).toBe(101);
      // A connection given up frees its slot.
      held[0]?.destroy();
      await eventually('a slot free again', async () => (await ask('127.0.0.1', 102, held)) === 102);
    } finally {
      for (const s of held) s.destroy();
      await dns.close();
    }
  });
});

/** Linux's cap on a socket's receive buffer; the burst below needs about 2 MiB of it. */
const rmemMax = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/core/rmem_max', 'utf8'));
  } catch {
    return 0;
  }
})();

describe('a burst while the server is busy', () => {
  it.skipIf(rmemMax < 4 * 1024 * 1024)('queues 2,000 queries in the socket and answers every one (Linux drops them past its 208 KiB default)', async () => {
    const client = createSocket({ type: 'udp4', recvBufferSize: 4 * 1024 * 1024 });
    const answered = new Set<number>();
    client.on('message', (m) => answered.add(m.readUInt16BE(0)));
    await new Promise<void>((resolve) => client.connect(port, '127.0.0.1', resolve));
    try {
      // The server runs on this thread: while the loop below spins, every query waits in its socket.
      for (let id = 0; id < 2000; id++) client.send(query(`www.${ZONE}`, 'A', id));
      const until = Date.now() + 300;
      while (Date.now() < until);
      await eventually('every query answered', async () => answered.size === 2000, 5000);
      expect(answered.size).toBe(2000);
    } finally {
      client.close();
    }
  });
});
