/**
 * DNS over TCP (RFC 7766) and over TLS (RFC 7858, through tls.ts): the listening server with its limits on
 * connections (in all and per client address), and each connection's length-framed messages. Idle connections,
 * and messages begun but not finished in time, are closed, so a slow or silent client holds nothing for long.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from 'pino';
import type { DnsHandler } from './handler.js';

/** A TCP connection with nothing to do is closed after this long (RFC 7766 suggests seconds, not minutes). */
export const TCP_IDLE_MS = 10_000;
/**
 * A message begun over TCP must be complete within this long, or the connection is closed (RFC 7766 10):
 * long enough for a segment lost mid-message to be sent again after TCP's first 1 s retransmission timeout
 * (RFC 6298), short enough that a client sending a byte now and then holds nothing for long.
 */
const TCP_MESSAGE_MS = 2000;
const TCP_MAX_CONNECTIONS = 1024;
/**
 * Connections one client address may hold at once; one more is closed at once, so a single client cannot
 * take every slot. Ample for a secondary transferring several zones in parallel, or a few resolvers behind NAT.
 */
const TCP_MAX_PER_CLIENT = 32;
/** Messages read ahead (or, out of order, answered at once) on one connection before it is paused. */
const TCP_MAX_QUEUED = 32;

/** What a stream server needs of the DNS handler: the answers to one message. */
export type StreamHandler = Pick<DnsHandler, 'handle'>;

export interface DnsTcp {
  /** Listens on the address (port 0: any), resolving with the port; rejects when it cannot (the port is taken), and may then be asked again. */
  listen(host: string, port: number): Promise<number>;
  /** Closes the open connections and stops listening. */
  close(): Promise<void>;
}

/** How a stream server serves its connections. */
export interface StreamOptions {
  /** How long an idle connection stays open. */
  idleMs: number;
  /**
   * Each message answered after the one before it (TCP, where a pipelined UPDATE may rely on the one before),
   * or as soon as its answer is ready (TLS: RFC 7858 3.3, RFC 7766 6.2.1.1), the client matching them by id.
   */
  inOrder: boolean;
  /** The event that hands over a connection to serve: `connection` (TCP), `secureConnection` (after a TLS handshake). */
  ready: 'connection' | 'secureConnection';
  /** Answers padded (RFC 8467: over TLS). */
  padded: boolean;
  /** The transport's name in the log. */
  name: string;
}

/** The DNS server's TCP side; `idleMs` is how long an idle connection stays open. */
export function dnsTcp(handler: StreamHandler, log: Logger, idleMs = TCP_IDLE_MS): DnsTcp {
  return dnsStreams(createServer(), handler, log, { idleMs, inOrder: true, ready: 'connection', padded: false, name: 'TCP' });
}

/**
 * Serves DNS on the connections of `server`, a TCP server or a TLS one (whose sockets are sockets too): the
 * limits are counted on the TCP connections as they come, before any handshake, so a client that never
 * completes one still holds one of its slots only, and only until the handshake times out.
 */
export function dnsStreams(server: Server, handler: StreamHandler, log: Logger, opts: StreamOptions): DnsTcp {
  const sockets = new Set<Socket>();
  const perClient = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const client = socket.remoteAddress ?? '';
    const open = (perClient.get(client) ?? 0) + 1;
    if (open > TCP_MAX_PER_CLIENT) {
      log.debug({ remoteAddress: client }, `DNS ${opts.name} connection closed: too many from this address`);
      socket.destroy();
      return;
    }
    perClient.set(client, open);
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      const left = (perClient.get(client) ?? 1) - 1;
      if (left > 0) perClient.set(client, left);
      else perClient.delete(client);
    });
  });
  server.on(opts.ready, (socket: Socket) => {
    if (!socket.destroyed) serveStream(socket, handler, log, opts);
  });
  server.maxConnections = TCP_MAX_CONNECTIONS;
  server.on('error', (e) => log.warn({ err: e.message }, `DNS ${opts.name} server error`));
  return {
    listen: (host, port) => listenTcp(server, host, port),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function listenTcp(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const bound = server.address();
      resolve(bound && typeof bound === 'object' ? bound.port : port);
    });
  });
}

/**
 * Serves one connection: several length-framed messages, answered in order or as they are ready; closed when
 * idle, and when a message begun is not complete within TCP_MESSAGE_MS (every byte resets the idle timer).
 */
function serveStream(socket: Socket, handler: StreamHandler, log: Logger, opts: StreamOptions): void {
  socket.setNoDelay(true);
  socket.on('error', (e) => log.debug({ err: e.message }, `DNS ${opts.name} connection error`));
  const remote = socket.remoteAddress ?? '';
  let buffered: Buffer = Buffer.alloc(0);
  let queued = 0;
  let chain: Promise<void> = Promise.resolve();
  // One response's messages are written together (a transfer's are not interleaved with other answers).
  let writing: Promise<void> = Promise.resolve();
  let unfinished: NodeJS.Timeout | undefined;
  // A connection waiting for an answer still being worked out (a large zone signed for its first AXFR on a
  // loaded machine) is not idle: the timer starts over, and closes it only once nothing is left to answer.
  const idle = () => (queued > 0 ? socket.setTimeout(opts.idleMs, idle) : socket.destroy());
  socket.setTimeout(opts.idleMs, idle);
  /** Starts the clock of the message under way; stops it when there is none, or while we are not reading. */
  const clock = () => {
    clearTimeout(unfinished);
    unfinished = buffered.length > 0 && !socket.isPaused() ? setTimeout(() => socket.destroy(), TCP_MESSAGE_MS) : undefined;
  };
  /** Answers one message and writes the answers; reading resumes once few enough wait. */
  const answer = async (msg: Buffer) => {
    const out = await answers(handler, log, msg, remote, opts);
    writing = writing.then(() => writeAll(socket, out));
    await writing;
    if (--queued < TCP_MAX_QUEUED && socket.isPaused()) {
      socket.resume();
      clock();
    }
  };
  socket.on('close', () => clearTimeout(unfinished));
  socket.on('data', (chunk: Buffer) => {
    const underway = buffered.length > 0;
    let completed = false;
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    while (buffered.length >= 2) {
      const len = buffered.readUInt16BE(0);
      if (buffered.length < 2 + len) break;
      const msg = Buffer.from(buffered.subarray(2, 2 + len));
      buffered = buffered.subarray(2 + len);
      completed = true;
      if (++queued >= TCP_MAX_QUEUED) socket.pause();
      if (opts.inOrder) chain = chain.then(() => answer(msg));
      else void answer(msg);
    }
    // The clock runs from a message's first byte: more bytes of the same message do not restart it.
    if (!underway || completed || buffered.length === 0) clock();
  });
}

/** The answers to one message; none when answering failed (logged). */
async function answers(handler: StreamHandler, log: Logger, msg: Buffer, remote: string, opts: StreamOptions): Promise<Buffer[]> {
  try {
    // Over TLS as over TCP: a connection, so the TCP rules hold (size, transfers).
    return await handler.handle(msg, remote, 'tcp', opts.padded);
  } catch (e) {
    log.warn({ err: (e as Error).message }, `DNS ${opts.name} answer failed`);
    return [];
  }
}

/** Writes messages, as long as the connection is open. */
async function writeAll(socket: Socket, out: Buffer[]): Promise<void> {
  for (const msg of out) {
    if (socket.destroyed) return;
    await writeFramed(socket, msg);
  }
}

/** Writes a message with its 2-byte length, waiting while the peer is slow (large transfers). */
function writeFramed(socket: Socket, msg: Buffer): Promise<void> {
  const frame = Buffer.allocUnsafe(2 + msg.length);
  frame.writeUInt16BE(msg.length, 0);
  msg.copy(frame, 2);
  if (socket.write(frame)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}
