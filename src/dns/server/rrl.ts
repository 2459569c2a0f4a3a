/**
 * Response rate limiting (RRL) of answers over UDP, as BIND, Knot and NSD do it: per client network and answer
 * class, at most `rate` answers a second (after a burst of one second's worth); of the answers over the limit,
 * every `slip`th is sent truncated (TC, no records), so that a real client behind a forged flood retries over
 * TCP, and the others are dropped. A forged source can then no longer turn us into an amplifier. TCP,
 * TSIG-signed messages and queries with a valid server cookie are never limited (their source is not forged),
 * nor networks the operator exempts.
 *
 * The answer class (`answerClass`) is a 32-bit token, made once with each answer and kept with it in the
 * response cache, so a hit (on any thread) costs no lookup. The buckets live in one fixed table in a
 * SharedArrayBuffer that every DNS thread updates with Atomics: a flood that the kernel spreads over the
 * threads by source port gets the rate once, not once per thread, and memory does not grow with the number of
 * clients. Each bucket is one "theoretical arrival time" (GCRA, the token bucket as a single word), updated with
 * one compare-and-swap; an idle bucket is the same as an empty one, so buckets are reused freely.
 */
import { randomInt } from 'node:crypto';
import * as ip from '@leichtgewicht/ip-codec';
import { cidrOf } from '../../model/names.js';
import { optRecordAt } from '../wire/edns-options.js';
import { FLAG_TC, RCODE } from '../wire/message.js';
import type { Query } from '../wire/query.js';
import type { Result } from '../zone/result.js';
import type { Zone } from '../zone/zone.js';
import type { UdpSender } from './udp-socket.js';

export interface RrlSettings {
  /** Answers a second per client network and answer class; 0 turns RRL off. */
  rate: number;
  /** Every `slip`th answer over the limit is sent truncated, the others dropped; 0 drops all, 1 truncates all. */
  slip: number;
  /** The client network: prefix lengths of IPv4 and IPv6 addresses. */
  ipv4Prefix: number;
  ipv6Prefix: number;
  /** Networks (CIDR) never limited. */
  exempt: readonly string[];
}

/** NSD's rate, BIND's and Knot's slip, Knot's networks. */
export const DEFAULT_RRL: RrlSettings = { rate: 200, slip: 2, ipv4Prefix: 24, ipv6Prefix: 56, exempt: [] };

/** Buckets: SETS sets of two (a new class takes the idler of the two). 2^17 sets of 2 × 3 words: 3 MiB. */
const SETS = 1 << 17;
const WAYS = 2;
/** Per bucket: tag (which class and network own it, never 0), theoretical arrival time (µs, wrapping), answers over the limit. */
const WORDS = 3;
/** Networks' last logged second (epoch), one word each (a network shares its slot with few others: it is then logged less often, never more). */
const LOG_SLOTS = 1 << 14;
const MINUTE_MS = 60_000;
/**
 * How far apart (µs) two threads' readings of the time may be: each reads the clock once a batch. A bucket up to
 * this much further ahead than any answer could have put it is still counting, not left idle long enough for the
 * 32-bit microsecond clock to wrap (36 minutes), which is the only way to be further ahead.
 */
const SKEW_US = 1_000_000;

/** What a limiter on any thread needs: the settings, the shared table, and the table's hash seeds. */
export interface RrlTable {
  settings: RrlSettings;
  shared: SharedArrayBuffer;
  seeds: [number, number];
}

/** The table for `settings`, or null when RRL is off. Made once, on the main thread; workers get it through workerData. */
export function rrlTable(settings: RrlSettings): RrlTable | null {
  if (settings.rate <= 0) return null;
  for (const net of settings.exempt) networkOf(net); // a bad network fails at start, not on the first flood
  const shared = new SharedArrayBuffer((SETS * WAYS * WORDS + LOG_SLOTS) * 4);
  return { settings, shared, seeds: [randomInt(2 ** 31), randomInt(2 ** 31)] };
}

/** murmur3's finalizer: every bit of `h` moves every bit of the result. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** FNV-1a over a string's code units (names are lower-case lookup keys, one byte a character). */
function token(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h | 0;
}

const ERROR_CLASS = token('error');

/**
 * The class an answer counts in, as BIND and Knot define them: the same answer (name, type); NXDOMAIN per zone;
 * NODATA per zone; a referral per delegation; an answer made from a wildcard per wildcard; every error (REFUSED,
 * SERVFAIL, FORMERR, NOTIMP…) one class. So a flood of random names under one zone is one class. `response` is
 * the answer as encoded (SERVFAIL when it did not fit in any message).
 */
export function answerClass(q: Query, result: Result, zone: Zone | null, response: Buffer): number {
  const rcode = (response[3] ?? 0) & 0x0f;
  if (rcode !== RCODE.NOERROR && rcode !== RCODE.NXDOMAIN) return ERROR_CLASS;
  for (const d of result.denial ?? []) {
    if (d.kind === 'referral') return token(`referral\0${d.cut}`);
    if (d.kind === 'wildcard' || d.kind === 'wildcard-nodata') return token(`wildcard\0${d.encloser}`);
  }
  const apex = zone?.key ?? '';
  if (rcode === RCODE.NXDOMAIN) return token(`nxdomain\0${apex}`);
  if (result.answer.length === 0) return token(`nodata\0${apex}`);
  return token(`answer\0${q.key}\0${q.qtype}`);
}

/** The class of any other reply (NOTIFY, UPDATE, FORMERR…): errors together, the rest per opcode. */
export function replyClass(reply: Buffer): number {
  const rcode = (reply[3] ?? 0) & 0x0f;
  return rcode === RCODE.NOERROR || rcode === RCODE.NXDOMAIN ? token(`opcode\0${((reply[2] ?? 0) >> 3) & 0x0f}`) : ERROR_CLASS;
}

/** A network as 16 bytes (IPv4 as IPv4-mapped IPv6, as the UDP layer gives senders) and its prefix in those bytes. */
function networkOf(text: string): { bytes: Uint8Array; prefix: number } {
  const cidr = cidrOf(text);
  if (!cidr) throw new Error(`RRL: '${text}' is not an IP address or CIDR network`);
  const bytes = new Uint8Array(16);
  if (cidr.family === 'ipv6') return { bytes: ip.v6.encode(cidr.address, bytes, 0), prefix: cidr.prefix };
  bytes[10] = bytes[11] = 0xff;
  return { bytes: ip.v4.encode(cidr.address, bytes, 12), prefix: 96 + cidr.prefix };
}

/** The four 32-bit masks of a prefix of a 16-byte address. */
function masks(prefix: number): Int32Array {
  const m = new Int32Array(4);
  for (let i = 0; i < 4; i++) {
    const bits = Math.min(32, Math.max(0, prefix - 32 * i));
    m[i] = bits === 0 ? 0 : -1 << (32 - bits);
  }
  return m;
}

/** The i-th 32-bit word, big-endian, of the 16 bytes at `at`. */
const word = (b: Uint8Array, at: number, i: number): number => {
  const o = at + 4 * i;
  return ((b[o] as number) << 24) | ((b[o + 1] as number) << 16) | ((b[o + 2] as number) << 8) | (b[o + 3] as number);
};

/** What to do with an answer: send it, drop it, or send it truncated. */
export const PASS = 0;
export const DROP = 1;
export const SLIP = 2;
export type Verdict = typeof PASS | typeof DROP | typeof SLIP;

/**
 * One thread's view of the shared table. `onLimited` hears, at most once a minute per network (across threads),
 * the network (as "192.0.2.0/24") whose answers are being limited. `dropped` and `slipped` count this thread's
 * answers (on the main thread, its workers' too as they report them).
 */
export class RateLimiter {
  dropped = 0;
  slipped = 0;
  private readonly words: Int32Array;
  private readonly logged: Int32Array;
  /** µs between answers (the emission interval) and the burst tolerance: `rate` answers at once. */
  private readonly interval: number;
  private readonly burst: number;
  private readonly slip: number;
  private readonly seed: number;
  private readonly tagSeed: number;
  private readonly v4: Int32Array;
  private readonly v6: Int32Array;
  private readonly prefixes: { v4: number; v6: number };
  private readonly exempt: { net: Int32Array; mask: Int32Array }[];
  /** The last sender read: its address's words, and its network's (masked) for the log line. */
  private readonly address = new Int32Array(4);
  private readonly net = new Int32Array(4);

  constructor(
    table: RrlTable,
    readonly onLimited: (network: string) => void,
  ) {
    const { settings, shared, seeds } = table;
    this.words = new Int32Array(shared, 0, SETS * WAYS * WORDS);
    this.logged = new Int32Array(shared, SETS * WAYS * WORDS * 4, LOG_SLOTS);
    this.interval = Math.max(1, Math.round(1_000_000 / settings.rate));
    this.burst = this.interval * (Math.max(1, Math.round(settings.rate)) - 1);
    this.slip = settings.slip;
    [this.seed, this.tagSeed] = seeds;
    this.v4 = masks(96 + settings.ipv4Prefix);
    this.v6 = masks(settings.ipv6Prefix);
    this.prefixes = { v4: settings.ipv4Prefix, v6: settings.ipv6Prefix };
    this.exempt = settings.exempt.map((text) => {
      const { bytes, prefix } = networkOf(text);
      const mask = masks(prefix);
      const net = new Int32Array(4);
      for (let i = 0; i < 4; i++) net[i] = word(bytes, 0, i) & (mask[i] as number);
      return { net, mask };
    });
  }

  /**
   * Counts an answer of class `cls` to `from` (its address and when its query arrived), and says what to do with
   * it. `verifiedClient`: the query was TSIG-signed or carried a valid server cookie, so its source is real.
   */
  verdict(cls: number, from: UdpSender, verifiedClient: boolean): Verdict {
    if (verifiedClient) return PASS;
    const net = this.network(from.bytes, from.at);
    // Not counted either, so an exempt host leaves its network's budget to the others.
    if (this.exempt.length > 0 && this.isExempt()) return PASS;
    const h = mix(net ^ mix(cls ^ this.seed));
    const tag = mix(Math.imul(net, 0x9e3779b1) ^ cls ^ this.tagSeed) | 1;
    const now = (from.receivedAt * 1000) | 0;
    const k = this.bucket((h & (SETS - 1)) * WAYS * WORDS, tag, now);
    const w = this.words;
    for (;;) {
      const tat = Atomics.load(w, k + 1);
      let ahead = (tat - now) | 0;
      if (ahead < 0 || ahead > this.burst + this.interval + SKEW_US) ahead = 0; // idle (or left so long that the clock wrapped)
      if (ahead > this.burst) break;
      if (Atomics.compareExchange(w, k + 1, tat, (now + ahead + this.interval) | 0) === tat) return PASS;
    }
    this.noteLimited(net, from.receivedAt);
    const over = Atomics.add(w, k + 2, 1) + 1;
    if (this.slip > 0 && over % this.slip === 0) {
      this.slipped++;
      return SLIP;
    }
    this.dropped++;
    return DROP;
  }

  /** What to send for `answer` (of class `cls`) to `from`: the answer, its truncated form, or null: nothing. */
  outgoing(answer: Buffer, cls: number, from: UdpSender, verifiedClient: boolean): Buffer | null {
    const v = this.verdict(cls, from, verifiedClient);
    return v === PASS ? answer : v === SLIP ? truncated(answer) : null;
  }

  /** outgoing() for all the answers to one message (a transfer may have several): all, the first truncated, or none. */
  outgoingAll(outs: Buffer[], cls: number, from: UdpSender, verifiedClient: boolean): Buffer[] {
    const first = outs[0];
    if (!first) return outs;
    const out = this.outgoing(first, cls, from, verifiedClient);
    return out === first ? outs : out ? [out] : [];
  }

  /** The sender's network hashed (the address and the network kept in `this.address` and `this.net`). */
  private network(addr: Uint8Array, at: number): number {
    const a = this.address;
    for (let i = 0; i < 4; i++) a[i] = word(addr, at, i);
    const m = a[0] === 0 && a[1] === 0 && a[2] === 0xffff ? this.v4 : this.v6;
    const n = this.net;
    for (let i = 0; i < 4; i++) n[i] = (a[i] as number) & (m[i] as number);
    return mix(mix(mix(mix(this.seed ^ (n[0] as number)) ^ (n[1] as number)) ^ (n[2] as number)) ^ (n[3] as number));
  }

  /** The bucket of `tag` in the set at `set`; a class not there takes the idler of the set's buckets (keeping its debt). */
  private bucket(set: number, tag: number, now: number): number {
    const w = this.words;
    if (w[set] === tag) return set;
    const other = set + WORDS;
    if (w[other] === tag) return other;
    const k = this.ahead(set, now) <= this.ahead(other, now) ? set : other;
    // Taken over with its arrival time: a class that collides with a busy one is limited sooner, never later.
    Atomics.store(w, k, tag);
    Atomics.store(w, k + 2, 0);
    return k;
  }

  /** How far ahead of now a bucket's arrival time is (-1: idle). */
  private ahead(k: number, now: number): number {
    const a = ((this.words[k + 1] as number) - now) | 0;
    return a < 0 || a > this.burst + this.interval + SKEW_US ? -1 : a;
  }

  /** Whether the sender's address (not its network: an exemption may be narrower) is in an exempt network. */
  private isExempt(): boolean {
    const a = this.address;
    for (const e of this.exempt) {
      let inside = true;
      for (let i = 0; i < 4 && inside; i++) inside = ((a[i] as number) & (e.mask[i] as number)) === e.net[i];
      if (inside) return true;
    }
    return false;
  }

  /**
   * Tells `onLimited` of the network, unless some thread did so in the last minute: a minute counted from that
   * time, not a clock minute, so a flood across a minute's turn is told once too.
   */
  private noteLimited(net: number, nowMs: number): void {
    const second = Math.floor(nowMs / 1000);
    const slot = net & (LOG_SLOTS - 1);
    const last = Atomics.load(this.logged, slot);
    if ((last !== 0 && second - last < MINUTE_MS / 1000) || Atomics.compareExchange(this.logged, slot, last, second) !== last) return;
    this.onLimited(this.networkText());
  }

  private networkText(): string {
    const bytes = new Uint8Array(16);
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) bytes[4 * i + j] = ((this.net[i] as number) >>> (24 - 8 * j)) & 0xff;
    const v4 = this.net[0] === 0 && this.net[1] === 0 && this.net[2] === 0xffff;
    return v4 ? `${ip.v4.decode(bytes, 12)}/${this.prefixes.v4}` : `${ip.v6.decode(bytes)}/${this.prefixes.v6}`;
  }
}

/**
 * A slipped answer: the answer's header and question with TC set and no records but its OPT record (the last, as
 * our answers write it: the client's cookie and NSID stay in it), so the client asks again over TCP, or with
 * the server cookie it now has.
 */
function truncated(answer: Buffer): Buffer {
  let end = 12;
  for (let i = answer.readUInt16BE(4); i > 0 && end < answer.length; i--) {
    let len: number;
    while ((len = answer[end] ?? 0) !== 0 && len < 0xc0) end += len + 1;
    end += (len >= 0xc0 ? 2 : 1) + 4;
  }
  const opt = optRecordAt(answer);
  const out = Buffer.concat([answer.subarray(0, end), opt < 0 ? Buffer.alloc(0) : answer.subarray(opt)]);
  out.writeUInt16BE(out.readUInt16BE(2) | FLAG_TC, 2);
  out.writeUInt32BE(0, 6);
  out.writeUInt16BE(opt < 0 ? 0 : 1, 10);
  return out;
}
