/**
 * The load of the update suite: DNS UPDATE messages (RFC 2136) signed with TSIG (hmac-sha256), built with
 * dns-packet and signed with our own codec (src/dns/wire/tsig.ts), one message at a time per client, each answer
 * waited for (and its TSIG checked) before the next is sent, over UDP as nsupdate sends them by default.
 */
import dnsPacket from 'dns-packet';
import type { Socket } from 'node:dgram';
import { connectedUdp } from '../support.js';
import { performance } from 'node:perf_hooks';
import { OPCODE } from '../../src/dns/wire/message.js';
import { findTsig, sign, verify, type TsigSecret } from '../../src/dns/wire/tsig.js';

/** RFC 2136 2.5.4: class NONE deletes one record (dns-packet has no name for it). */
const CLASS_NONE = 254;
const HEADER = 12;

export type Change = { op: 'add' | 'delete'; name: string; type: 'A' | 'TXT'; data: string };

/** The UPDATE message for `changes` in `zone` (names absolute), unsigned. */
export function updateMessage(id: number, zone: string, changes: readonly Change[], ttl = 300): Buffer {
  const records = changes.map((c): dnsPacket.Answer => (c.type === 'A' ? { name: c.name, type: 'A', class: 'IN', ttl, data: c.data } : { name: c.name, type: 'TXT', class: 'IN', ttl, data: [c.data] }));
  const msg = dnsPacket.encode({ type: 'query', id, flags: OPCODE.UPDATE << 11, questions: [{ name: zone, type: 'SOA', class: 'IN' }], authorities: records });
  // Deletions of one record have class NONE and TTL 0: patch them in, walking back from the end
  // (dns-packet writes names uncompressed, so each record's length is its encoding length).
  let end = msg.length;
  for (let i = changes.length - 1; i >= 0; i--) {
    const record = records[i] as dnsPacket.Answer;
    const length = dnsPacket.encodingLength({ answers: [record] }) - HEADER;
    if ((changes[i] as Change).op === 'delete') {
      const fixed = end - length + Buffer.byteLength(record.name) + 2; // the name's length bytes and root label
      msg.writeUInt16BE(CLASS_NONE, fixed + 2);
      msg.writeUInt32BE(0, fixed + 4);
    }
    end -= length;
  }
  return msg;
}

export interface Outcome {
  /** The answer's rcode (extended by its TSIG error, if any), or null when none came in time. */
  rcode: number | null;
  /** The answer was not signed with the key, or its MAC does not verify against our request. */
  badSignature: boolean;
  ms: number;
}

/** One UDP socket "connected" to the server, one signed UPDATE at a time. */
export class UpdateClient {
  private readonly socket: Socket;
  private id = Math.floor(Math.random() * 0xffff);
  private waiting: { id: number; mac: Buffer; start: number; timer: NodeJS.Timeout; resolve: (o: Outcome) => void } | null = null;

  private constructor(
    socket: Socket,
    private readonly key: TsigSecret,
    private readonly timeoutMs: number,
  ) {
    this.socket = socket;
    socket.on('message', (raw) => this.received(raw));
    socket.on('error', () => {});
  }

  static async open(host: string, port: number, key: TsigSecret, timeoutMs = 2000): Promise<UpdateClient> {
    return new UpdateClient(await connectedUdp(host, port), key, timeoutMs);
  }

  /** Signs and sends one UPDATE for `changes`; resolves with the outcome once answered (or timed out). */
  send(zone: string, changes: readonly Change[]): Promise<Outcome> {
    this.id = (this.id + 1) & 0xffff;
    const id = this.id;
    const { message, mac } = sign(updateMessage(id, zone, changes), this.key, { timeSigned: Math.floor(Date.now() / 1000) });
    return new Promise((resolve) => {
      const start = performance.now();
      const timer = setTimeout(() => {
        this.waiting = null;
        resolve({ rcode: null, badSignature: false, ms: performance.now() - start });
      }, this.timeoutMs);
      this.waiting = { id, mac, start, timer, resolve };
      this.socket.send(message);
    });
  }

  private received(raw: Buffer): void {
    const w = this.waiting;
    // A late answer to a message given up on (another id) is dropped.
    if (!w || raw.length < 12 || raw.readUInt16BE(0) !== w.id) return;
    const ms = performance.now() - w.start;
    this.waiting = null;
    clearTimeout(w.timer);
    let rcode = raw.readUInt16BE(2) & 0x0f;
    let badSignature = true;
    try {
      const t = findTsig(raw);
      if (t) {
        if (t.error) rcode = t.error;
        badSignature = verify(raw, t, this.key, { now: Math.floor(Date.now() / 1000), requestMac: w.mac }) !== null;
      }
    } catch {
      badSignature = true;
    }
    w.resolve({ rcode, badSignature, ms });
  }

  close(): void {
    if (this.waiting) clearTimeout(this.waiting.timer);
    this.socket.close();
  }
}
