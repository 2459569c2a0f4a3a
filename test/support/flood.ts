/**
 * A UDP flood as an attack looks to a DNS server: copies of one query (or random names) at a steady rate from one address (its
 * source port(s) fixed), every reply counted as a full answer or a slipped one (TC set, no records), for
 * response rate limiting's tests (test/dns/rrl.test.ts) and its benchmark against knotd (bench/rrl).
 */
import { createSocket, type Socket } from 'node:dgram';

export interface FloodCount {
  sent: number;
  /** Replies with records (or at least without TC). */
  answered: number;
  /** Replies with TC set: slipped by rate limiting, or too large for UDP. */
  truncated: number;
  /** Full answers by the second of the flood they arrived in (the last one holds the stragglers). */
  answeredBySecond: number[];
  /** From the first query sent to the last reply received: the most time the server spent on the flood (a loaded machine stretches it). */
  spanMs: number;
}

export interface FloodOptions {
  port: number;
  /** The source address (a loopback address: 127.0.0.2, 127.0.1.3…). */
  from: string;
  /** The query, or the i-th query (a flood of random names). */
  query: Buffer | ((i: number) => Buffer);
  perSecond: number;
  seconds: number;
  /** Sockets (source ports) the queries are spread over: the kernel spreads them over a server's threads. */
  sockets?: number;
  host?: string;
}

/**
 * Sends `perSecond × seconds` queries (ids numbered) evenly over `seconds`, and counts the replies until none has
 * come for 500 ms (a loaded server answers late; 10 s at most).
 */
export async function flood(opts: FloodOptions): Promise<FloodCount> {
  const host = opts.host ?? '127.0.0.1';
  const total = Math.round(opts.perSecond * opts.seconds);
  const count: FloodCount = { sent: 0, answered: 0, truncated: 0, answeredBySecond: new Array<number>(Math.ceil(opts.seconds)).fill(0), spanMs: 0 };
  let start = Date.now();
  let last = start;
  const sockets: Socket[] = [];
  for (let i = 0; i < (opts.sockets ?? 1); i++) {
    const s = createSocket({ type: 'udp4', recvBufferSize: 4 * 1024 * 1024 });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.bind(0, opts.from, () => resolve());
    });
    s.on('message', (m) => {
      if (m.length < 12) return;
      last = Date.now();
      count.spanMs = last - start;
      if (m.readUInt16BE(2) & 0x0200) return void count.truncated++;
      count.answered++;
      const second = Math.min(count.answeredBySecond.length - 1, Math.floor((Date.now() - start) / 1000));
      count.answeredBySecond[second] = (count.answeredBySecond[second] ?? 0) + 1;
    });
    sockets.push(s);
  }
  start = Date.now();
  try {
    while (count.sent < total) {
      // As many as are due by now (timers are coarse: a few each millisecond or two).
      const due = Math.min(total, Math.floor(((Date.now() - start) / 1000) * opts.perSecond) + 1);
      for (; count.sent < due; count.sent++) {
        // A copy each: dgram sends after a tick, so a buffer rewritten meanwhile would go out changed.
        const packet = Buffer.from(typeof opts.query === 'function' ? opts.query(count.sent) : opts.query);
        packet.writeUInt16BE(count.sent & 0xffff, 0);
        (sockets[count.sent % sockets.length] as Socket).send(packet, opts.port, host);
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    const sent = Date.now();
    while (Date.now() - Math.max(last, sent) < 500 && Date.now() - sent < 10_000) await new Promise((r) => setTimeout(r, 50));
    return count;
  } finally {
    for (const s of sockets) s.close();
  }
}
