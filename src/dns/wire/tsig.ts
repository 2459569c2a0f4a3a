/**
 * TSIG (RFC 8945) on the wire, both ways: reading a message's TSIG record, checking its MAC and time, and
 * signing messages — single ones, the first answer to a signed request (the request's MAC digested first),
 * and the later messages of a transfer (the previous MAC and the timers only, 5.3.1).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { lowerAscii, readName, splitName, WireError } from '../../model/labels.js';
import { TSIG_ALGORITHMS, isTsigAlgorithm, type TsigAlgorithm } from '../../model/tsig-key.js';
import { CLASS_ANY, META_TYPE } from './message.js';
import { readRecord, skipQuestions } from './wire-record.js';

/** TSIG's own error codes (RFC 8945 5.2, IANA "DNS RCODEs"). */
export const TSIG_ERROR = { BADSIG: 16, BADKEY: 17, BADTIME: 18, BADTRUNC: 22 } as const;
/** The time skew we allow and ask for (RFC 8945 10 recommends 300 s). */
export const FUDGE = 300;

/** A message's TSIG record (RFC 8945 4.2), and where it starts. */
export interface Tsig {
  /** Offset of the TSIG record in the message: what precedes it is what the MAC covers. */
  start: number;
  key: string[];
  algorithm: string[];
  timeSigned: number;
  fudge: number;
  mac: Buffer;
  originalId: number;
  error: number;
  other: Buffer;
}

/** A key as the codec needs it: name (labels), algorithm, secret bytes. */
export interface TsigSecret {
  name: string;
  algorithm: TsigAlgorithm;
  secret: Buffer;
}

/** The codec's form of a stored key (a customer's TSIG key, or a mirror's key for its masters). */
export const tsigSecret = (k: { name: string; algorithm: TsigAlgorithm; secret: string }): TsigSecret => ({ name: k.name, algorithm: k.algorithm, secret: Buffer.from(k.secret, 'base64') });

/** The rdata of a TSIG record at `start` (owner `labels`, rdata `rdata`..`end`); throws WireError when it does not add up. */
export function readTsigRdata(buf: Buffer, start: number, labels: string[], rdata: number, end: number): Tsig {
  const algorithm = readName(buf, rdata);
  let at = algorithm.end;
  if (at + 10 > end) throw new WireError('truncated TSIG record');
  const timeSigned = buf.readUIntBE(at, 6);
  const fudge = buf.readUInt16BE(at + 6);
  const macSize = buf.readUInt16BE(at + 8);
  at += 10;
  if (at + macSize + 6 > end) throw new WireError('TSIG MAC runs past its record');
  const mac = buf.subarray(at, at + macSize);
  at += macSize;
  const originalId = buf.readUInt16BE(at);
  const error = buf.readUInt16BE(at + 2);
  const otherLen = buf.readUInt16BE(at + 4);
  at += 6;
  if (at + otherLen !== end) throw new WireError('TSIG other data does not end the record');
  return { start, key: labels, algorithm: algorithm.labels, timeSigned, fudge, mac, originalId, error, other: buf.subarray(at, end) };
}

/** The TSIG record of a received message, or null when it has none; throws WireError when one is misplaced. */
export function findTsig(buf: Buffer): Tsig | null {
  if (buf.length < 12) throw new WireError('short message');
  let pos = skipQuestions(buf);
  const records = buf.readUInt16BE(6) + buf.readUInt16BE(8) + buf.readUInt16BE(10);
  for (let i = 0; i < records; i++) {
    const rr = readRecord(buf, pos);
    pos = rr.end;
    if (rr.type !== META_TYPE.TSIG) continue;
    if (i !== records - 1) throw new WireError('TSIG is not the last record');
    return readTsigRdata(buf, rr.start, rr.labels, rr.rdata, rr.end);
  }
  return null;
}

/** Labels in canonical wire form (lower case, uncompressed): how names enter the digest (RFC 8945 4.3.3). */
function wireName(labels: readonly string[]): Buffer {
  const parts: Buffer[] = [];
  for (const l of labels) parts.push(Buffer.from([l.length]), Buffer.from(lowerAscii(l), 'latin1'));
  parts.push(Buffer.from([0]));
  return Buffer.concat(parts);
}

const u16 = (n: number): Buffer => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
};

/** Time Signed and Fudge, as the record and the digest carry them. */
function timers(timeSigned: number, fudge: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUIntBE(timeSigned, 0, 6);
  b.writeUInt16BE(fudge, 6);
  return b;
}

interface Variables {
  key: readonly string[];
  algorithm: readonly string[];
  timeSigned: number;
  fudge: number;
  error: number;
  other: Buffer;
}

/** The TSIG variables of the digest (RFC 8945 4.3.3). */
const variables = (v: Variables): Buffer =>
  Buffer.concat([wireName(v.key), u16(CLASS_ANY), Buffer.alloc(4), wireName(v.algorithm), timers(v.timeSigned, v.fudge), u16(v.error), u16(v.other.length), v.other]);

/** What precedes the message in the digest: a request's MAC (first answer) or the previous message's (later ones). */
const macPrefix = (mac: Buffer | undefined): Buffer[] => (mac ? [u16(mac.length), mac] : []);

function hmac(key: TsigSecret, parts: readonly Buffer[]): Buffer {
  const h = createHmac(TSIG_ALGORITHMS[key.algorithm].hash, key.secret);
  for (const p of parts) h.update(p);
  return h.digest();
}

/** The message as its MAC covers it: without its TSIG record, with the id it had when signed. */
function unsignedPart(buf: Buffer, t: Tsig): Buffer {
  const m = Buffer.from(buf.subarray(0, t.start));
  m.writeUInt16BE(t.originalId, 0);
  m.writeUInt16BE(buf.readUInt16BE(10) - 1, 10);
  return m;
}

/** Appends a TSIG record to `msg` (ARCOUNT raised). Names written out in full (RFC 8945 4.2). */
function appendTsig(msg: Buffer, v: Variables & { mac: Buffer }): Buffer {
  const algorithm = wireName(v.algorithm);
  const rdata = Buffer.concat([algorithm, timers(v.timeSigned, v.fudge), u16(v.mac.length), v.mac, u16(msg.readUInt16BE(0)), u16(v.error), u16(v.other.length), v.other]);
  const head = Buffer.alloc(10);
  head.writeUInt16BE(META_TYPE.TSIG, 0);
  head.writeUInt16BE(CLASS_ANY, 2);
  head.writeUInt16BE(rdata.length, 8);
  const out = Buffer.concat([msg, wireName(v.key), head, rdata]);
  out.writeUInt16BE(out.readUInt16BE(10) + 1, 10);
  return out;
}

/** The bytes a TSIG record signed with `key` adds to a message (for the room an answer leaves). */
export const tsigSize = (key: TsigSecret, other = 0): number => wireName(splitName(key.name)).length + 10 + wireName(splitName(key.algorithm)).length + 16 + TSIG_ALGORITHMS[key.algorithm].size + other;

export interface SignOptions {
  /** Seconds since the epoch. */
  timeSigned: number;
  fudge?: number;
  /** Answering a signed request: its MAC. */
  requestMac?: Buffer;
  /** A later message of a multi-message answer: the previous message's MAC (timers only are digested). */
  priorMac?: Buffer;
  error?: number;
  other?: Buffer;
}

/** Signs `msg` (which has no TSIG yet); returns the signed message and its MAC. */
export function sign(msg: Buffer, key: TsigSecret, o: SignOptions): { message: Buffer; mac: Buffer } {
  const v: Variables = { key: splitName(key.name), algorithm: splitName(key.algorithm), timeSigned: o.timeSigned, fudge: o.fudge ?? FUDGE, error: o.error ?? 0, other: o.other ?? Buffer.alloc(0) };
  const parts = o.priorMac ? [...macPrefix(o.priorMac), msg, timers(v.timeSigned, v.fudge)] : [...macPrefix(o.requestMac), msg, variables(v)];
  const mac = hmac(key, parts);
  return { message: appendTsig(msg, { ...v, mac }), mac };
}

/**
 * The unsigned TSIG record of an error answer about the key or the MAC (BADKEY, BADSIG: RFC 8945 5.3.2): no
 * MAC; the key, algorithm, time and fudge of the request repeated. BADTIME and BADTRUNC answers are signed.
 */
export const withTsigError = (msg: Buffer, request: Tsig, error: number): Buffer =>
  appendTsig(msg, { key: request.key, algorithm: request.algorithm, timeSigned: request.timeSigned, fudge: request.fudge, error, other: Buffer.alloc(0), mac: Buffer.alloc(0) });

/** Why a TSIG record does not verify: a TSIG error, or FORMERR (1) for a MAC size RFC 8945 5.2.2.1 rules out. */
export type TsigFailure = 1 | (typeof TSIG_ERROR)[keyof typeof TSIG_ERROR];

export interface VerifyOptions {
  /** Seconds since the epoch. */
  now: number;
  /** Checking an answer to our signed request: the request's MAC. */
  requestMac?: Buffer;
  /** A later message of a transfer: the previous signed message's MAC, and the unsigned messages since. */
  priorMac?: Buffer;
  unsigned?: readonly Buffer[];
}

/** The algorithm name of a TSIG record, when it is one we know. */
export function algorithmOf(t: Tsig): TsigAlgorithm | null {
  const name = lowerAscii(t.algorithm.join('.'));
  return isTsigAlgorithm(name) ? name : null;
}

/**
 * Checks the TSIG record `t` of `buf` against `key`, in RFC 8945 5.2's order: algorithm (BADKEY), MAC size
 * (FORMERR), MAC (BADSIG), time (BADTIME), then truncation (BADTRUNC: we take full MACs only). Null when it verifies.
 */
export function verify(buf: Buffer, t: Tsig, key: TsigSecret, o: VerifyOptions): TsigFailure | null {
  if (algorithmOf(t) !== key.algorithm) return TSIG_ERROR.BADKEY;
  const size = TSIG_ALGORITHMS[key.algorithm].size;
  if (t.mac.length > size || t.mac.length < Math.max(10, size / 2)) return 1;
  const msg = unsignedPart(buf, t);
  const v: Variables = { key: t.key, algorithm: t.algorithm, timeSigned: t.timeSigned, fudge: t.fudge, error: t.error, other: t.other };
  const parts = o.priorMac ? [...macPrefix(o.priorMac), ...(o.unsigned ?? []), msg, timers(t.timeSigned, t.fudge)] : [...macPrefix(o.requestMac), msg, variables(v)];
  const expected = hmac(key, parts).subarray(0, t.mac.length);
  if (!timingSafeEqual(expected, t.mac)) return TSIG_ERROR.BADSIG;
  if (Math.abs(o.now - t.timeSigned) > t.fudge) return TSIG_ERROR.BADTIME;
  if (t.mac.length < size) return TSIG_ERROR.BADTRUNC;
  return null;
}

/** A BADTIME answer is signed and tells the client our time in its other data (RFC 8945 5.2.3). */
export function badTimeOther(now: number): Buffer {
  const b = Buffer.alloc(6);
  b.writeUIntBE(now, 0, 6);
  return b;
}

const errorName = (code: number): string => Object.entries(TSIG_ERROR).find(([, c]) => c === code)?.[0] ?? String(code);

/**
 * Our side of a signed exchange as a client (a zone mirror asking its masters): the request signed, then
 * each answer message checked in turn. Later messages of a transfer may come unsigned, up to 99 in a row,
 * each then digested into the next signed one; the last must be signed (RFC 8945 5.3.1).
 */
export class SignedExchange {
  readonly request: Buffer;
  private prior: Buffer;
  private unsigned: Buffer[] = [];
  private first = true;

  constructor(
    query: Buffer,
    private readonly key: TsigSecret,
    private readonly now: () => number,
  ) {
    const { message, mac } = sign(query, key, { timeSigned: now() });
    this.request = message;
    this.prior = mac;
  }

  /** Checks one answer message; throws when it is not signed as it must be. */
  check(msg: Buffer): void {
    const t = findTsig(msg);
    if (!t) {
      if (this.first) throw new Error(`the answer is not signed with the key ${this.key.name}`);
      if (this.unsigned.length >= 99) throw new Error('more than 99 unsigned messages in a row');
      this.unsigned.push(Buffer.from(msg));
      return;
    }
    if (t.error !== 0) throw new Error(`the server refused the key ${this.key.name} (${errorName(t.error)})`);
    const now = this.now();
    const failure = verify(msg, t, this.key, this.first ? { now, requestMac: this.prior } : { now, priorMac: this.prior, unsigned: this.unsigned });
    if (failure !== null) throw new Error(`the answer's signature does not verify with the key ${this.key.name} (${failure === 1 ? 'malformed MAC' : errorName(failure)})`);
    this.prior = t.mac;
    this.unsigned = [];
    this.first = false;
  }

  /** Whether the messages checked so far end on a signed one. */
  get complete(): boolean {
    return !this.first && this.unsigned.length === 0;
  }
}
