/**
 * DNS over TCP (RFC 7766): the listening server with its limits on connections (in all and per client
 * address), and each connection's length-framed messages, answered in order. Idle connections, and messages
 * begun but not finished in time, are closed, so a slow or silent client holds nothing for long.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from 'pino';
import type { DnsHandler } from './handler.js';

/** A TCP connection with nothing to do is closed after this long (RFC 7766 suggests seconds, not minutes). */
const TCP_IDLE_MS = 10_000;
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
/** Messages read ahead on one connection before it is paused. */
const TCP_MAX_QUEUED = 32;

export interface DnsTcp {
  /** Listens on the address; rejects when it cannot (the port is taken), and may then be asked again. */
  listen(host: string, port: number): Promise<void>;
  /** Closes the open connections and stops listening. */
  close(): Promise<void>;
}

/** The DNS server's TCP side; `idleMs` is how long an idle connection stays open. */
export function dnsTcp(handler: DnsHandler, log: Logger, idleMs = TCP_IDLE_MS): DnsTcp {
  const sockets = new Set<Socket>();
  const perClient = new Map<string, number>();
  const server = createServer((socket) => {
    const client = socket.remoteAddress ?? '';
    const open = (perClient.get(client) ?? 0) + 1;
    if (open > TCP_MAX_PER_CLIENT) {
      log.debug({ remoteAddress: client }, 'DNS TCP connection closed: too many from this address');
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
    serveTcp(socket, handler, log, idleMs);
  });
  server.maxConnections = TCP_MAX_CONNECTIONS;
  server.on('error', (e) => log.warn({ err: e.message }, 'DNS TCP server error'));
  return {
    listen: (host, port) => listenTcp(server, host, port),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function listenTcp(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Serves one TCP connection: several length-framed messages, answered in order; closed when idle, and
 * when a message begun is not complete within TCP_MESSAGE_MS (every byte resets the idle timer).
 */
function serveTcp(socket: Socket, handler: DnsHandler, log: Logger, idleMs: number): void {
  socket.setNoDelay(true);
  socket.setTimeout(idleMs, () => socket.destroy());
  socket.on('error', (e) => log.debug({ err: e.message }, 'DNS TCP connection error'));
  const remote = socket.remoteAddress ?? '';
  let buffered: Buffer = Buffer.alloc(0);
  let queued = 0;
  let chain: Promise<void> = Promise.resolve();
  let unfinished: NodeJS.Timeout | undefined;
  /** Starts the clock of the message under way; stops it when there is none, or while we are not reading. */
  const clock = () => {
    clearTimeout(unfinished);
    unfinished = buffered.length > 0 && !socket.isPaused() ? setTimeout(() => socket.destroy(), TCP_MESSAGE_MS) : undefined;
  };
  /** Answers one message after those before it; reading resumes once few enough wait. */
  const answer = async (msg: Buffer) => {
    await answerTcp(socket, handler, log, msg, remote);
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
      chain = chain.then(() => answer(msg));
    }
    // The clock runs from a message's first byte: more bytes of the same message do not restart it.
    if (!underway || completed || buffered.length === 0) clock();
  });
}

/** Writes the answers to one message, as long as the connection is open. */
async function answerTcp(socket: Socket, handler: DnsHandler, log: Logger, msg: Buffer, remote: string): Promise<void> {
  try {
    for (const out of await handler.handle(msg, remote, 'tcp')) {
      if (socket.destroyed) break;
      await writeFramed(socket, out);
    }
  } catch (e) {
    log.warn({ err: (e as Error).message }, 'DNS TCP answer failed');
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
