/**
 * DNS over TLS (RFC 7858) and zone transfers over it (RFC 9103): a TLS server negotiating the ALPN "dot" (BIND's
 * XoT secondary refuses a primary that does not, RFC 9103 7.1) over the TCP side's framing, limits and timers
 * (tcp.ts). Queries on one connection are answered as they are ready, each padded (RFC 8467) when it carries
 * EDNS, a TSIG-signed one before it is signed (handler.ts). A handshake not done in time is cut (src/tls.ts), so a client that stalls or sends something else than
 * TLS costs one connection slot for that long at most.
 */
import { createServer } from 'node:tls';
import type { Logger } from 'pino';
import type { TlsFiles } from '../../config.js';
import { tlsServerOptions } from '../../tls.js';
import { DOT_ALPN } from '../wire/message.js';
import type { DnsHandler } from './handler.js';
import { dnsStreams, type DnsTcp } from './tcp.js';


/** The DNS server's TLS side, with the node's certificate; `idleMs` is how long an idle connection stays open (as over TCP). */
export function dnsTls(handler: DnsHandler, log: Logger, files: TlsFiles, idleMs: number): DnsTcp {
  const server = createServer({ ...tlsServerOptions(files), ALPNProtocols: [DOT_ALPN] });
  // Listened to, the error no longer destroys the socket by itself (Node.js): a failed handshake must.
  server.on('tlsClientError', (e, socket) => {
    log.debug({ err: e.message, remoteAddress: socket.remoteAddress }, 'DNS TLS handshake failed');
    socket.destroy();
  });
  return dnsStreams(server, handler, log, { idleMs, inOrder: false, ready: 'secureConnection', padded: true, name: 'TLS' });
}
