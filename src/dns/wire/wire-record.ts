/** Reading one resource record of a received message, bounded: what the query parser and TSIG share. */
import { readName, WireError } from '../../model/labels.js';

export interface WireRecord {
  /** Offset of the record's owner name in the message. */
  start: number;
  labels: string[];
  type: number;
  klass: number;
  ttl: number;
  /** Offset and length of the rdata. */
  rdata: number;
  rdlength: number;
  /** Offset just past the record. */
  end: number;
}

/** Reads the record at `offset`; throws WireError when it runs past the message. */
export function readRecord(buf: Buffer, offset: number): WireRecord {
  const { labels, end } = readName(buf, offset);
  if (end + 10 > buf.length) throw new WireError('truncated record');
  const type = buf.readUInt16BE(end);
  const klass = buf.readUInt16BE(end + 2);
  const ttl = buf.readUInt32BE(end + 4);
  const rdlength = buf.readUInt16BE(end + 8);
  const rdata = end + 10;
  if (rdata + rdlength > buf.length) throw new WireError('rdata runs past the message');
  return { start: offset, labels, type, klass, ttl, rdata, rdlength, end: rdata + rdlength };
}

/** The offset just past the question section. */
export function skipQuestions(buf: Buffer): number {
  let pos = 12;
  for (let i = buf.readUInt16BE(4); i > 0; i--) {
    pos = readName(buf, pos).end + 4;
    if (pos > buf.length) throw new WireError('truncated question');
  }
  return pos;
}

/** Every resource record of a message after its questions, in order (answer, authority, additional). */
export function readRecords(buf: Buffer): WireRecord[] {
  const out: WireRecord[] = [];
  let pos = skipQuestions(buf);
  const count = buf.readUInt16BE(6) + buf.readUInt16BE(8) + buf.readUInt16BE(10);
  for (let i = 0; i < count; i++) {
    const rr = readRecord(buf, pos);
    out.push(rr);
    pos = rr.end;
  }
  return out;
}
