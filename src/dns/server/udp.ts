/** A UDP socket of the DNS server, bound on the main thread or on a DNS worker thread (threads.ts). */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';

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
