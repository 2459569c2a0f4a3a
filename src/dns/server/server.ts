/**
 * The authoritative DNS server: UDP and TCP on one port, answers from the in-memory zones, AXFR/IXFR and
 * NOTIFY handed to transfer/. Every message is handled in its own try/catch and every socket has an error
 * handler, so no input can take the process down.
 */
import type { Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import type * as dnsPacket from 'dns-packet';
import type { Logger } from 'pino';
import { keyOfLabels } from '../../model/labels.js';
import type { StoredTsigKey, TsigKeyRef } from '../../model/tsig-key.js';
import type { Services } from '../../services/index.js';
import { answerQuery } from './answer.js';
import { ResponseCache } from './response-cache.js';
import { secure } from '../dnssec/secure.js';
import { SignatureCache } from '../dnssec/sign.js';
import { handleNotify, handleTransfer, type NotifyTarget, type TransferRequest } from '../transfer/index.js';
import { decodeStrict } from '../transfer/wire.js';
import { CLASS_IN, META_TYPE, OPCODE, RCODE, TCP_MAX } from '../wire/message.js';
import { parseQuery, plainQuery, type Malformed, type Query } from '../wire/query.js';
import { badTimeOther, sign, tsigSecret, tsigSize, TSIG_ERROR, verify, withTsigError, type Tsig, type TsigSecret } from '../wire/tsig.js';
import { handleUpdate } from './update.js';
import { AnswerTooLarge, encodeResponse, udpLimit } from './response.js';
import { emptyResult, type Result } from '../zone/result.js';
import type { Zone } from '../zone/zone.js';
import { ZoneCache } from './zone-cache.js';
import { listenUdp } from './udp.js';
import { singleThreadReason, startDnsThreads, type DnsThreads, type ThreadZone } from './threads.js';

export interface DnsOptions {
  host: string;
  port: number;
  /** The configured name servers: SOA MNAME (the first) and apex NS set of every master zone. */
  nameservers: string[];
  log: Logger;
  /** How long an idle TCP connection stays open (default 10 s). */
  tcpIdleMs?: number;
  /** Where NOTIFY accepted for a zone mirror goes: the node's transfers; without them it is acknowledged only. */
  notifyTarget?: NotifyTarget;
  /** Threads answering UDP (threads.ts); 1 unless given, and 1 where the runtime cannot share the port. */
  threads?: number;
}

export interface RunningDns {
  address: { host: string; port: number };
  zones: ZoneCache;
  close(): Promise<void>;
}

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

type Transport = 'udp' | 'tcp';

export class DnsHandler {
  constructor(
    private readonly services: Services,
    readonly zones: ZoneCache,
    private readonly responses: ResponseCache,
    private readonly signatures: SignatureCache,
    private readonly nameservers: string[],
    private readonly log: Logger,
    private readonly notifyTarget: NotifyTarget | undefined,
  ) {}

  /** The response messages to one received message (none for messages not worth an answer). */
  async handle(raw: Buffer, remoteAddress: string, transport: Transport): Promise<Buffer[]> {
    let q: Query | Malformed | null = null;
    try {
      q = parseQuery(raw);
      if (!q) return [];
      if ('malformed' in q) return [encodeResponse(q, emptyResult(RCODE.FORMERR), TCP_MAX)];
      let limit = transport === 'udp' ? udpLimit(q) : TCP_MAX;
      let signer: Signer | null = null;
      if (q.tsig) {
        const auth = await this.authenticate(q, q.tsig, raw, limit);
        if ('refusal' in auth) return [auth.refusal];
        signer = auth;
        // The answer leaves room for its own TSIG record.
        limit -= tsigSize(signer.secret);
      }
      const out = await this.respond(q, raw, remoteAddress, transport, limit, signer);
      return signer ? signer.sign(out) : out;
    } catch (e) {
      this.log.warn({ err: (e as Error).message, remoteAddress, transport }, 'DNS message could not be answered');
      if (!q) return [];
      try {
        return [encodeResponse(q, emptyResult(RCODE.SERVFAIL), TCP_MAX)];
      } catch {
        return [];
      }
    }
  }

  private async respond(q: Query, raw: Buffer, remoteAddress: string, transport: Transport, limit: number, signer: Signer | null): Promise<Buffer[]> {
    if (q.edns && q.edns.version !== 0) return [encodeResponse(q, emptyResult(RCODE.BADVERS), limit)];
    if (q.opcode === OPCODE.UPDATE) {
      // Only a customer's key may update (a mirror's master key is for NOTIFY); unsigned: REFUSED (RFC 2136 3.3).
      if (!signer?.key) return [encodeResponse(q, emptyResult(RCODE.REFUSED), limit)];
      const rcode = await handleUpdate(this.services, q, raw, signer.key, { remoteAddress, nameservers: this.nameservers, log: this.log });
      return [encodeResponse(q, emptyResult(rcode), limit)];
    }
    if (q.opcode === OPCODE.NOTIFY || (q.opcode === OPCODE.QUERY && (q.qtype === META_TYPE.AXFR || q.qtype === META_TYPE.IXFR))) {
      // Our zones are IN zones: a transfer or NOTIFY of another class (CH, ANY) is NOTIMP, as knotd answers CH.
      if (q.qclass !== CLASS_IN) return [encodeResponse(q, emptyResult(RCODE.NOTIMP), limit)];
      const req = this.transferRequest(raw, remoteAddress, transport, signer);
      if (!req) return [encodeResponse(q, emptyResult(RCODE.FORMERR), limit)];
      return q.opcode === OPCODE.NOTIFY ? [await handleNotify(req, this.notifyTarget)] : await handleTransfer(req);
    }
    if (q.opcode !== OPCODE.QUERY) return [encodeResponse(q, emptyResult(RCODE.NOTIMP), limit)];
    const pending = this.zones.pendingFor(q.key);
    if (pending) await pending;
    return [this.answer(q, raw, limit)];
  }

  /**
   * Checks a signed message (RFC 8945 5.2): its key — a customer's TSIG key, or for a NOTIFY the key a zone
   * mirror holds for its masters — then MAC, time and truncation. A failure is answered NOTAUTH with the TSIG
   * error: an unknown key or a wrong MAC unsigned, a time out of range (5.2.3) or a MAC truncated below our
   * policy (5.2.4) signed (5.3.2).
   */
  private async authenticate(q: Query, t: Tsig, raw: Buffer, limit: number): Promise<Signer | { refusal: Buffer }> {
    const name = keyOfLabels(t.key);
    let key: StoredTsigKey | null = null;
    let ref: TsigKeyRef | null = null;
    if (q.opcode === OPCODE.NOTIFY) {
      const mirror = await this.services.zones.byName(q.key);
      if (mirror?.kind === 'slave' && mirror.masterTsig?.name === name) ref = mirror.masterTsig;
    }
    if (!ref) key = (await this.services.tsigKeys.byName(name)) ?? null;
    const stored = key ?? ref;
    const now = Math.floor(this.services.now() / 1000);
    const unsigned = (rcode: number, error: number) => ({ refusal: withTsigError(encodeResponse(q, emptyResult(rcode), limit), t, error) });
    if (!stored) return unsigned(RCODE.NOTAUTH, TSIG_ERROR.BADKEY);
    const secret = tsigSecret(stored);
    const failure = verify(raw, t, secret, { now });
    if (failure === 1) return { refusal: encodeResponse(q, emptyResult(RCODE.FORMERR), limit) };
    if (failure === TSIG_ERROR.BADTIME) {
      const response = encodeResponse(q, emptyResult(RCODE.NOTAUTH), limit - tsigSize(secret, 6));
      return { refusal: sign(response, secret, { timeSigned: t.timeSigned, fudge: t.fudge, requestMac: t.mac, error: TSIG_ERROR.BADTIME, other: badTimeOther(now) }).message };
    }
    if (failure === TSIG_ERROR.BADTRUNC) {
      const response = encodeResponse(q, emptyResult(RCODE.NOTAUTH), limit - tsigSize(secret));
      return { refusal: sign(response, secret, { timeSigned: now, requestMac: t.mac, error: TSIG_ERROR.BADTRUNC }).message };
    }
    if (failure !== null) return unsigned(RCODE.NOTAUTH, failure);
    return new Signer(secret, key, t.mac, now);
  }

  /** Answers a plain query at once (the hot path); null for anything that needs handle(). */
  answerNow(raw: Buffer, transport: Transport): Buffer | null {
    return this.plainAnswer(raw, transport)?.response ?? null;
  }

  /**
   * A DNS worker thread's message (threads.ts): its answers, and for a plain query what the worker may cache
   * them under (the zone that answered, and until when).
   */
  async answerForThread(raw: Buffer, remoteAddress: string): Promise<{ outs: Buffer[]; cache: { zone: ThreadZone | null; staleAt: number } | null }> {
    let plain: ReturnType<DnsHandler['plainAnswer']> = null;
    try {
      plain = this.plainAnswer(raw, 'udp');
    } catch {
      // handle() answers it again, logging why and sending SERVFAIL.
    }
    if (!plain) return { outs: await this.handle(raw, remoteAddress, 'udp'), cache: null };
    const z = plain.zone;
    return { outs: [plain.response], cache: { zone: z ? { id: z.id, name: z.name, expiresAt: z.expiresAt } : null, staleAt: plain.staleAt } };
  }

  private plainAnswer(raw: Buffer, transport: Transport): { response: Buffer; zone: Zone | null; staleAt: number } | null {
    const q = plainQuery(parseQuery(raw));
    if (!q || this.zones.pendingFor(q.key)) return null;
    return this.answerEntry(q, raw, transport === 'udp' ? udpLimit(q) : TCP_MAX);
  }

  private answer(q: Query, raw: Buffer, limit: number): Buffer {
    return this.answerEntry(q, raw, limit).response;
  }

  private answerEntry(q: Query, raw: Buffer, limit: number): { response: Buffer; zone: Zone | null; staleAt: number } {
    const now = this.services.now();
    let hit = this.responses.get(q, raw, limit, now);
    if (!hit) {
      const { result, zone } = answerQuery(this.zones, q, now);
      const signed = zone && q.edns?.dnssecOk ? this.zones.signed(zone) : undefined;
      // A signed answer is kept only until its signatures are due to be made anew.
      const staleAt = zone && signed ? secure(zone, signed, result, Math.floor(now / 1000)) * 1000 : Infinity;
      hit = { response: this.encode(q, result, zone, limit), zone, staleAt };
      this.responses.put(q, hit.response, limit, zone, staleAt);
    }
    if (hit.zone) this.services.metrics.countQuery(hit.zone.id, hit.zone.name);
    return hit;
  }

  /** The encoded answer; SERVFAIL, logged, for one too large for any DNS message (cached like any other). */
  private encode(q: Query, result: Result, zone: Zone | null, limit: number): Buffer {
    try {
      return encodeResponse(q, result, limit);
    } catch (e) {
      if (!(e instanceof AnswerTooLarge)) throw e;
      this.log.warn({ zone: zone?.name, name: q.key, qtype: q.qtype }, 'answer too large for one DNS message; SERVFAIL');
      return encodeResponse(q, emptyResult(RCODE.SERVFAIL), limit);
    }
  }

  /** transfer/ works on dns-packet's decoding (null when the message does not decode strictly). */
  private transferRequest(raw: Buffer, remoteAddress: string, transport: Transport, signer: Signer | null): TransferRequest | null {
    let query: dnsPacket.Packet;
    try {
      // Strict: dns-packet alone accepts records whose data length disagrees with what it read (A rdata).
      query = decodeStrict(raw);
    } catch {
      return null;
    }
    return { services: this.services, query, raw, remoteAddress, transport, nameservers: this.nameservers, key: signer?.key ?? null, keyName: signer?.secret.name ?? null, signatures: this.signatures };
  }
}

/** Signs the answers to a message that verified: the first with the request's MAC, each later one with the one before (RFC 8945 5.3.1). */
class Signer {
  constructor(
    readonly secret: TsigSecret,
    /** The customer's key; null for a mirror's key for its masters. */
    readonly key: StoredTsigKey | null,
    private readonly requestMac: Buffer,
    private readonly now: number,
  ) {}

  sign(messages: readonly Buffer[]): Buffer[] {
    let prior: Buffer | undefined;
    return messages.map((m) => {
      const { message, mac } = sign(m, this.secret, prior ? { timeSigned: this.now, priorMac: prior } : { timeSigned: this.now, requestMac: this.requestMac });
      prior = mac;
      return message;
    });
  }
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
      chain = chain.then(async () => {
        try {
          for (const out of await handler.handle(msg, remote, 'tcp')) {
            if (socket.destroyed) break;
            await writeFramed(socket, out);
          }
        } catch (e) {
          log.warn({ err: (e as Error).message }, 'DNS TCP answer failed');
        }
        if (--queued < TCP_MAX_QUEUED && socket.isPaused()) {
          socket.resume();
          clock();
        }
      });
    }
    // The clock runs from a message's first byte: more bytes of the same message do not restart it.
    if (!underway || completed || buffered.length === 0) clock();
  });
}

export async function startDns(services: Services, opts: DnsOptions): Promise<RunningDns> {
  const responses = new ResponseCache();
  const signatures = new SignatureCache();
  let threads: DnsThreads | null = null;
  const zones = new ZoneCache(services, {
    nameservers: opts.nameservers,
    log: opts.log,
    changed: () => {
      responses.clear();
      threads?.changed();
    },
    signatures,
  });
  await zones.start();
  const gauges = [
    services.metrics.gauge('zonehost_dns_zones', 'Zones the DNS server answers for from memory.', () => zones.size),
    services.metrics.gauge('zonehost_dns_zones_loading', 'Zones listed at start that are not in memory yet (0 once the start-up load is done).', () => zones.loading),
  ];
  gauges.push(services.metrics.gauge('zonehost_dnssec_signatures_made', 'RRSIG records this node has made since it started (signatures are cached: this grows with changes, not with queries).', () => signatures.signed));
  const handler = new DnsHandler(services, zones, responses, signatures, opts.nameservers, opts.log, opts.notifyTarget);
  const onUdp = (msg: Buffer, from: { address: string; port: number }, socket: UdpSocket) => {
    let out: Buffer | null = null;
    try {
      out = handler.answerNow(msg, 'udp');
    } catch {
      // handle() answers it again, logging why and sending SERVFAIL.
    }
    if (out) {
      socket.send(out, from.port, from.address);
      return;
    }
    handler
      .handle(msg, from.address, 'udp')
      .then((outs) => {
        for (const out of outs) socket.send(out, from.port, from.address, () => undefined);
      })
      .catch((e: unknown) => opts.log.warn({ err: (e as Error).message }, 'DNS UDP answer failed'));
  };
  const sockets = new Set<Socket>();
  const perClient = new Map<string, number>();
  const tcp = createServer((socket) => {
    const client = socket.remoteAddress ?? '';
    const open = (perClient.get(client) ?? 0) + 1;
    if (open > TCP_MAX_PER_CLIENT) {
      opts.log.debug({ remoteAddress: client }, 'DNS TCP connection closed: too many from this address');
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
    serveTcp(socket, handler, opts.log, opts.tcpIdleMs ?? TCP_IDLE_MS);
  });
  tcp.maxConnections = TCP_MAX_CONNECTIONS;
  tcp.on('error', (e) => opts.log.warn({ err: e.message }, 'DNS TCP server error'));

  const wanted = opts.threads ?? 1;
  const oneThread = wanted > 1 ? singleThreadReason() : null;
  if (oneThread) opts.log.warn(`DNS answers on one thread, not ${wanted}: ${oneThread}`);
  const shared = wanted > 1 && !oneThread;
  // With port 0 the UDP port is chosen first and TCP takes the same number; retried if that one is busy.
  let udp: UdpSocket | null = null;
  for (let attempt = 0; ; attempt++) {
    udp = await listenUdp(opts.host, opts.port, onUdp, shared);
    try {
      await listenTcp(tcp, opts.host, udp.address().port);
      break;
    } catch (e) {
      udp.close();
      if (opts.port !== 0 || attempt >= 10) {
        zones.stop();
        for (const off of gauges) off();
        throw e;
      }
    }
  }
  const udpSocket = udp;
  udpSocket.on('error', (e) => opts.log.warn({ err: e.message }, 'DNS UDP socket error'));
  const address = { host: opts.host, port: udpSocket.address().port };
  if (shared) {
    try {
      threads = await startDnsThreads(wanted, udpSocket, handler, services, opts.log);
    } catch (e) {
      zones.stop();
      for (const off of gauges) off();
      udpSocket.close();
      tcp.close();
      throw e;
    }
  }
  const count = threads?.count ?? 1;
  opts.log.info({ dns: address, zones: zones.size, threads: count }, `DNS listening (UDP on ${count === 1 ? 'one thread' : `${count} threads`})`);
  return {
    address,
    zones,
    async close() {
      zones.stop();
      for (const off of gauges) off();
      await threads?.close();
      await new Promise<void>((resolve) => udpSocket.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}
