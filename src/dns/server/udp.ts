/**
 * DNS over UDP: a socket bound on the main thread or on a DNS worker thread (threads.ts), and the main
 * thread's answering of what arrives on it. The handler is imported as a type only, so a worker thread
 * loads none of it.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { Logger } from 'pino';
import type { DnsHandler } from './handler.js';

/**
 * The socket's receive buffer: queries that arrive while the thread is busy wait here. Linux's default (208 KiB)
 * holds about 200 small queries, and a burst beyond them is dropped: each drop costs its client a timeout and a
 * retry (seconds), where waiting in a longer queue costs it a millisecond or two. Capped by net.core.rmem_max.
 */
const RECV_BUFFER_BYTES = 4 * 1024 * 1024;

export type UdpHandler = (msg: Buffer, from: { address: string; port: number }, socket: UdpSocket) => void;

/**
 * Binds a UDP socket; with `reusePort` (SO_REUSEPORT, Node.js 22.12+ on Linux) several threads bind the same
 * port and the kernel spreads the clients over them.
 */
export function listenUdp(host: string, port: number, onMessage: UdpHandler, reusePort = false): Promise<UdpSocket> {
  return new Promise((resolve, reject) => {
    const type = isIPv6(host) ? 'udp6' : 'udp4';
    // Answers go to the address a query came from, always an IP: passed through as it is, so a send does
    // not wait a tick for dns.lookup() to say so.
    const socket = createSocket({ type, recvBufferSize: RECV_BUFFER_BYTES, ...(reusePort ? { reusePort: true } : {}), lookup: (address, _family, done) => done(null, address, type === 'udp6' ? 6 : 4) });
    socket.once('error', reject);
    socket.on('message', (msg, rinfo) => onMessage(msg, rinfo, socket));
    socket.bind(port, host, () => {
      socket.off('error', reject);
      resolve(socket);
    });
  });
}

/** The main thread's answering of UDP: a plain query at once, anything else once handle() has its answers. */
export function answerUdp(handler: DnsHandler, log: Logger): UdpHandler {
  return (msg, from, socket) => {
    const quick = handler.quickAnswer(msg, 'udp');
    if (quick) {
      socket.send(quick.response, from.port, from.address);
      return;
    }
    handler
      .handle(msg, from.address, 'udp')
      .then((outs) => {
        for (const out of outs) socket.send(out, from.port, from.address, () => undefined);
      })
      .catch((e: unknown) => log.warn({ err: (e as Error).message }, 'DNS UDP answer failed'));
  };
}
