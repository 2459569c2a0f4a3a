/**
 * DNS over UDP: a socket bound on the main thread or on a DNS worker thread (threads.ts), read and written in
 * batches by the native module where it is built (udp-batch.ts), else through Node.js's dgram, one packet per
 * system call. Either way the socket's owner says what to answer at once (`now`) and what needs more (`later`).
 * The handler is imported as a type only, so a worker thread loads none of it.
 */
import { createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import * as ip from '@leichtgewicht/ip-codec';
import type { Logger } from 'pino';
import type { DnsHandler } from './handler.js';
import type { RateLimiter } from './rrl.js';
import { batchedUdp, batchedUdpUnavailable } from './udp-batch.js';
import type { UdpEndpoint, UdpOptions, UdpSender, UdpServe } from './udp-socket.js';

/**
 * The socket's receive buffer: queries that arrive while the thread is busy wait here. Linux's default (208 KiB)
 * holds about 200 small queries, and a burst beyond them is dropped: each drop costs its client a timeout and a
 * retry (seconds), where waiting in a longer queue costs it a millisecond or two. Capped by net.core.rmem_max.
 */
export const RECV_BUFFER_BYTES = 4 * 1024 * 1024;

/** Datagrams read (and answers sent) per system call unless told otherwise: `--udp-batch`. */
export const DEFAULT_UDP_BATCH = 64;

/** Writes an address as a UdpSender's 16 bytes into `out`. */
export function senderBytes(address: string, out: Uint8Array): Uint8Array {
  if (!ip.v4.isFormat(address)) return ip.v6.encode(address, out, 0);
  out.fill(0, 0, 10);
  out[10] = out[11] = 0xff;
  return ip.v4.encode(address, out, 12);
}

/** A UdpSender of its own for a message answered later than it arrived, now. */
export const senderOf = (address: string): UdpSender => ({ bytes: senderBytes(address, new Uint8Array(16)), at: 0, receivedAt: Date.now(), address: () => address });

/** Why the batched path will not serve with `batch`, or null when it will. */
export function udpPathReason(batch: number): string | null {
  return batch === 0 ? '--udp-batch 0 asks for it' : batchedUdpUnavailable();
}

/** Binds a UDP socket on the batched path when it can, else on the dgram path. */
export function listenUdp(opts: UdpOptions, serve: UdpServe): Promise<UdpEndpoint> {
  if (udpPathReason(opts.batch) === null) return Promise.resolve(batchedUdp(opts, serve, RECV_BUFFER_BYTES));
  return dgramUdp(opts, serve);
}

function dgramUdp(opts: UdpOptions, serve: UdpServe): Promise<UdpEndpoint> {
  return new Promise((resolve, reject) => {
    const type = isIPv6(opts.host) ? 'udp6' : 'udp4';
    // Answers go to the address a query came from, always an IP: passed through as it is, so a send does
    // not wait a tick for dns.lookup() to say so.
    const socket = createSocket({ type, recvBufferSize: RECV_BUFFER_BYTES, ...(opts.reusePort ? { reusePort: true } : {}), lookup: (address, _family, done) => done(null, address, type === 'udp6' ? 6 : 4) });
    const endpoint: UdpEndpoint = {
      path: 'dgram',
      port: 0,
      send: (msg, to) => socket.send(msg, to.port, to.address, () => undefined),
      close: () => new Promise<void>((done) => socket.close(() => done())),
    };
    socket.once('error', reject);
    let address = '';
    const sender: UdpSender = { bytes: new Uint8Array(16), at: 0, receivedAt: 0, address: () => address };
    socket.on('message', (msg, from) => {
      address = from.address;
      senderBytes(address, sender.bytes);
      sender.receivedAt = Date.now();
      const answer = serve.now(msg, sender);
      if (answer === 'drop') return;
      if (answer) socket.send(answer, from.port, from.address, () => undefined);
      else serve.later(msg, from, endpoint);
    });
    socket.bind(opts.port, opts.host, () => {
      socket.off('error', reject);
      // Nothing a client sends can make a bound UDP socket fail; whatever does is not worth the process.
      socket.on('error', () => undefined);
      endpoint.port = socket.address().port;
      resolve(endpoint);
    });
  });
}

/**
 * The main thread's answering of UDP: a plain query at once, anything else once the handler has its answers;
 * either through the response rate limiter when there is one (rrl.ts).
 */
export function answerUdp(handler: DnsHandler, limiter: RateLimiter | null, log: Logger): UdpServe {
  return {
    now(msg, from) {
      const a = handler.quickAnswer(msg, 'udp', from);
      if (!a || !limiter) return a?.response ?? null;
      return limiter.outgoing(a.response, a.cls, from, a.validServerCookie) ?? 'drop';
    },
    later(msg, from, endpoint) {
      handler
        .answers(msg, from.address, 'udp')
        .then((a) => {
          const outs = limiter ? limiter.outgoingAll(a.outs, a.cls, senderOf(from.address), a.verifiedClient) : a.outs;
          for (const out of outs) endpoint.send(out, from);
        })
        .catch((e: unknown) => log.warn({ err: (e as Error).message }, 'DNS UDP answer failed'));
    },
  };
}
