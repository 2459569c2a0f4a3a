/**
 * The helpers of transfers and NOTIFY, both ways, on top of the server's parser and writer (../query.ts,
 * ../writer.ts): multi-message responses; a decoder for the messages we receive as a client that checks
 * every record's RDLENGTH (dns-packet trusts its own parsers, e.g. it reads 4 bytes of A data whatever the
 * length says); one-shot UDP and TCP exchanges as a client; the flags of the queries we send (dns-packet
 * takes opcode only through `flags`); and matching peers against the bare addresses of axfr and master lists.
 */
import * as dnsPacket from 'dns-packet';
import { createSocket } from 'node:dgram';
import { BlockList, isIP, isIPv4, Socket } from 'node:net';
import { checkServerIdentity, connect as connectTls, type ConnectionOptions } from 'node:tls';
import type { MasterTlsAuth } from '../../model/domain.js';
import { nameOfLabels, readName, splitName } from '../../model/labels.js';
import { decodeRdata, recordTypeByCode, type RecordFields } from '../../model/records/index.js';
import type { ZoneRecord } from '../../model/zone.js';
import { CLASS_IN, DOT_ALPN, EDNS_UDP_SIZE, FLAG_AA, FLAG_TC, RCODE, typeCode, typeName } from '../wire/message.js';
import { edeOption, type ExtendedError } from '../wire/edns-options.js';
import { ResponseWriter, toWireRecord } from '../wire/writer.js';

/** dns-packet's record-level codecs, which its published typings leave out. */
type Decoder<T> = { (buf: Buffer, offset: number): T; bytes: number };
const codec = dnsPacket as unknown as { name: { decode: Decoder<string> }; answer: { decode: Decoder<dnsPacket.Answer> } };

export const opcodeOf = (flags: number | undefined): number => ((flags ?? 0) >> 11) & 0xf;
export const rcodeOf = (flags: number | undefined): number => (flags ?? 0) & 0xf;
export const truncated = (flags: number | undefined): boolean => ((flags ?? 0) & FLAG_TC) !== 0;

/** Header flags of a query we send (dns-packet takes opcode and AA only through `flags`). */
export const queryFlags = (opcode: number, aa = false): number => (opcode << 11) | (aa ? FLAG_AA : 0);

/** The client's address as written in `axfr` lists (IPv4-mapped IPv6 shown as IPv4). */
const plainAddress = (addr: string): string => addr.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

/** Whether `addr` is one of `list` (IPv6 compared by value, not spelling). */
export function addressIn(list: readonly string[], addr: string): boolean {
  const plain = plainAddress(addr);
  const family = isIPv4(plain) ? 'ipv4' : 'ipv6';
  const blocks = new BlockList();
  for (const ip of list) {
    const f = isIPv4(ip) ? 'ipv4' : 'ipv6';
    if (f === family) blocks.addAddress(ip, f);
  }
  try {
    return blocks.check(plain, family);
  } catch {
    return false;
  }
}

/** Messages are filled up to about this size; a single larger record gets a message of its own. */
const MESSAGE_TARGET = 16_000;

/**
 * The response(s) to `query` carrying `answers` (AA set), split over as many messages as needed, each
 * about MESSAGE_TARGET bytes at most; names compressed by the server's writer. The question goes in the
 * first message only (RFC 5936 2.2.1 lets later ones leave it out). Every message carries an OPT record
 * when the query had one (RFC 6891 7), as knotd's do, with the Extended DNS Error `ede` if given (RFC 8914).
 */
export function responses(query: dnsPacket.Packet, rcode: number, answers: readonly ZoneRecord[] = [], ede?: ExtendedError): Buffer[] {
  const q = query.questions?.[0];
  const opt = query.additionals?.find((a): a is dnsPacket.OptAnswer => a.type === 'OPT');
  const records = answers.map(toWireRecord);
  const out: Buffer[] = [];
  const finish = (w: ResponseWriter) => {
    if (opt) w.opt(EDNS_UDP_SIZE, rcode, opt.flag_do, ede ? edeOption(ede) : null);
    out.push(w.finish(query.id ?? 0, query.flags ?? 0, rcode, rcode === RCODE.NOERROR, false));
  };
  let w = new ResponseWriter();
  // Only IN questions come here (the server answers other classes NOTIMP).
  if (q) w.question(splitName(q.name), typeCode(q.type) ?? 0, CLASS_IN);
  for (const r of records) {
    const mark = w.mark();
    w.record(1, r);
    if (w.length > MESSAGE_TARGET && w.counts[1] > 1) {
      w.rollback(mark);
      finish(w);
      w = new ResponseWriter();
      w.record(1, r);
    }
  }
  finish(w);
  return out;
}

/** A single response without records (REFUSED, FORMERR, a NOTIFY acknowledgement). */
export const response = (query: dnsPacket.Packet, rcode: number, ede?: ExtendedError): Buffer => responses(query, rcode, [], ede)[0] as Buffer;

/**
 * Decodes a message, refusing one whose records do not each end exactly where their RDLENGTH says or
 * that has bytes left over: such a message was misread and its records cannot be trusted.
 */
export function decodeStrict(buf: Buffer): dnsPacket.Packet {
  let packet: dnsPacket.Packet;
  try {
    packet = dnsPacket.decode(buf);
  } catch {
    throw new Error('malformed DNS message');
  }
  if (dnsPacket.decode.bytes !== buf.length) throw new Error('malformed DNS message (trailing bytes)');
  let offset = 12;
  for (const _q of packet.questions ?? []) {
    codec.name.decode(buf, offset);
    offset += codec.name.decode.bytes + 4;
  }
  const count = (packet.answers?.length ?? 0) + (packet.authorities?.length ?? 0) + (packet.additionals?.length ?? 0);
  for (let i = 0; i < count; i++) {
    codec.name.decode(buf, offset);
    const rdataAt = offset + codec.name.decode.bytes + 10;
    // dns-packet already read this far, so the header is inside the buffer.
    const rdlength = buf.readUInt16BE(rdataAt - 2);
    codec.answer.decode(buf, offset);
    const end = offset + codec.answer.decode.bytes;
    if (end !== rdataAt + rdlength) throw new Error('malformed DNS message (record data length mismatch)');
    offset = end;
  }
  return packet;
}

/** A record received in the answer section of a message, its data read by its type's registry module. */
export interface ReceivedRecord {
  /** Owner, in the model's form (no trailing dot). */
  name: string;
  /** The registry's mnemonic, or the type's own (`TYPE<n>` when it has none) for one it does not know (no data then). */
  type: string;
  klass: number;
  ttl: number;
  data: RecordFields | null;
}

/**
 * The answer section of a message (already checked by decodeStrict), each record's data decoded by the
 * registry from the wire. Throws when a record's data is not what its type says.
 */
export function receivedAnswers(buf: Buffer): ReceivedRecord[] {
  let pos = 12;
  for (let i = buf.readUInt16BE(4); i > 0; i--) pos = readName(buf, pos).end + 4;
  const out: ReceivedRecord[] = [];
  for (let i = buf.readUInt16BE(6); i > 0; i--) {
    const { labels, end } = readName(buf, pos);
    const code = buf.readUInt16BE(end);
    const rdlength = buf.readUInt16BE(end + 8);
    const t = recordTypeByCode(code);
    const name = nameOfLabels(labels);
    let data: RecordFields | null = null;
    try {
      data = t ? decodeRdata(t, buf, end + 10, rdlength) : null;
    } catch (e) {
      throw new Error(`${name} ${t?.type ?? code}: the record data is malformed (${(e as Error).message})`);
    }
    out.push({ name, type: t?.type ?? typeName(code), klass: buf.readUInt16BE(end + 2), ttl: buf.readUInt32BE(end + 4), data });
    pos = end + 10 + rdlength;
  }
  return out;
}

/**
 * One UDP exchange: sends `query` to `host` and resolves with the first message from that address that
 * `accept` takes (returns other than null; one it throws on, or returns null for, is waited past).
 * Rejects when none comes within `timeoutMs`.
 */
export function udpExchange<T>(host: string, port: number, query: Buffer, accept: (msg: Buffer) => T | null, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIPv4(host) ? 'udp4' : 'udp6');
    let settled = false;
    const done = (err: Error | null, answer?: T) => {
      if (settled) return;
      settled = true;
      clearTimeout(t);
      socket.close();
      if (err) reject(err);
      else resolve(answer as T);
    };
    const t = setTimeout(() => done(new Error(`no answer from ${host} within ${timeoutMs / 1000} s`)), timeoutMs);
    socket.on('error', (e) => done(e));
    socket.on('message', (msg, rinfo) => {
      if (!addressIn([host], rinfo.address)) return;
      try {
        const answer = accept(msg);
        if (answer !== null) done(null, answer);
      } catch {
        // Not a usable answer; keep waiting for one.
      }
    });
    socket.send(query, port, host);
  });
}

/**
 * How we connect to a master over TLS (RFC 9103: ALPN "dot"): with `auth`, its certificate must be issued by
 * `auth.ca` (else a CA the system trusts) and valid for `auth.name`; without, it is not verified —
 * opportunistic, as BIND's `tls ephemeral` and RFC 9103 9 allow: private against eavesdroppers, TSIG
 * authenticates the zone (docs/dns.md).
 */
function tlsToMaster(host: string, port: number, auth: MasterTlsAuth | null): ConnectionOptions {
  const to = { host, port, ALPNProtocols: [DOT_ALPN] };
  if (!auth) return { ...to, rejectUnauthorized: false };
  return {
    ...to,
    rejectUnauthorized: true,
    ...(auth.ca ? { ca: auth.ca } : {}),
    // SNI takes host names only; the certificate is checked against the name whatever the address dialled.
    ...(isIP(auth.name) ? {} : { servername: auth.name }),
    checkServerIdentity: (_host, cert) => checkServerIdentity(auth.name, cert),
  };
}

/**
 * One TCP exchange, or with `tls` one over TLS (verified with `tlsAuth`: tlsToMaster): sends `query` and hands
 * each framed response message to `onMessage` until it returns true (done). Rejects on timeout, on a
 * connection closed early, above `maxBytes` received, or when `signal` aborts.
 */
export function tcpExchange(
  host: string,
  port: number,
  query: Buffer,
  onMessage: (msg: Buffer) => boolean,
  opts: { timeoutMs: number; maxBytes: number; signal?: AbortSignal; tls?: boolean; tlsAuth?: MasterTlsAuth | null },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const transport = opts.tls ? 'TLS' : 'TCP';
    const send = () => {
      const frame = Buffer.alloc(2);
      frame.writeUInt16BE(query.length);
      socket.write(Buffer.concat([frame, query]));
    };
    const socket: Socket = opts.tls ? connectTls(tlsToMaster(host, port, opts.tlsAuth ?? null), send) : new Socket();
    let buffered = Buffer.alloc(0);
    let received = 0;
    let settled = false;
    const finish = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', abort);
      socket.destroy();
      if (err) reject(err);
      else resolve();
    };
    const timer = setTimeout(() => finish(new Error(`no complete answer from ${host} within ${opts.timeoutMs / 1000} s`)), opts.timeoutMs);
    const abort = () => finish(new Error('stopped'));
    if (opts.signal?.aborted) return abort();
    opts.signal?.addEventListener('abort', abort, { once: true });
    socket.on('error', (e) => finish(new Error(`${transport} to ${host}: ${e.message}`)));
    socket.on('close', () => finish(new Error(`${host} closed the connection before the transfer ended`)));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > opts.maxBytes) return finish(new Error(`the answer from ${host} exceeds ${opts.maxBytes} bytes`));
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2) {
        const len = buffered.readUInt16BE(0);
        if (buffered.length < len + 2) break;
        const msg = buffered.subarray(2, len + 2);
        buffered = buffered.subarray(len + 2);
        try {
          if (onMessage(msg)) return finish();
        } catch (e) {
          return finish(e as Error);
        }
      }
    });
    if (!opts.tls) socket.connect(port, host, send);
  });
}
