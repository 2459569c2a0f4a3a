/**
 * EDNS options in responses (RFC 6891 6.1.2): their codes, the Extended DNS Error codes (RFC 8914) we answer,
 * and the appending of options to an encoded response, whose OPT record is its last (TSIG is added after).
 * What depends on the client (its cookie, NSID) is appended to an answer on its way out, so the answer
 * itself can be cached for every client.
 */
import { readRecord } from './wire-record.js';
import { META_TYPE } from './message.js';

export const OPTION = { NSID: 3, ECS: 8, COOKIE: 10, EDE: 15 } as const;

/** The Extended DNS Error codes zonehost answers (RFC 8914 4; IANA's registry). */
export const EDE = { OTHER: 0, STALE_ANSWER: 3, RRSIGS_MISSING: 10, NOT_READY: 14, PROHIBITED: 18, NOT_AUTHORITATIVE: 20, NETWORK_ERROR: 23 } as const;

/** An Extended DNS Error: its INFO-CODE and, for the person debugging, EXTRA-TEXT. */
export interface ExtendedError {
  code: number;
  text?: string;
}

/** One option as it goes into OPT's rdata: code, length, data. */
export function ednsOption(code: number, data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(4 + data.length);
  out.writeUInt16BE(code, 0);
  out.writeUInt16BE(data.length, 2);
  out.set(data, 4);
  return out;
}

/** The EDE option of an error (RFC 8914 2). */
export function edeOption(e: ExtendedError): Buffer {
  const text = Buffer.from(e.text ?? '', 'utf8');
  const data = Buffer.allocUnsafe(2 + text.length);
  data.writeUInt16BE(e.code, 0);
  text.copy(data, 2);
  return ednsOption(OPTION.EDE, data);
}

/** Offset of the OPT record in a message (ours: after the question and every other record), or -1 without one. */
export function optRecordAt(msg: Buffer): number {
  let pos = 12;
  for (let i = msg.readUInt16BE(4); i > 0; i--) pos = readRecordName(msg, pos) + 4;
  const records = msg.readUInt16BE(6) + msg.readUInt16BE(8) + msg.readUInt16BE(10);
  for (let i = 0; i < records; i++) {
    const rr = readRecord(msg, pos);
    if (rr.type === META_TYPE.OPT) return pos;
    pos = rr.end;
  }
  return -1;
}

/** Just past the name at `pos` (a pointer ends it). */
function readRecordName(msg: Buffer, pos: number): number {
  for (;;) {
    const len = msg[pos] as number;
    if (len === 0) return pos + 1;
    if (len >= 0xc0) return pos + 2;
    pos += len + 1;
  }
}

/**
 * `msg` with `options` appended to its OPT record, which starts at `optAt` and ends the message: a copy,
 * RDLENGTH raised. The caller made the message `options.length` shorter than the client's limit.
 */
export function withEdnsOptions(msg: Buffer, optAt: number, options: Buffer): Buffer {
  const out = Buffer.allocUnsafe(msg.length + options.length);
  msg.copy(out, 0);
  options.copy(out, msg.length);
  const rdlength = optAt + 9;
  out.writeUInt16BE(out.readUInt16BE(rdlength) + options.length, rdlength);
  return out;
}
