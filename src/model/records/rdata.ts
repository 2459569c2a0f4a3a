/**
 * Rdata on the wire without a message around it: a writer into a scratch buffer (names written in full,
 * optionally in RFC 4034 6.2 canonical form) and a reader over rdata inside a received message (names may
 * point back into the message).
 */
import { checkName, lowerAscii, nameOfLabels, readName, splitName, WireError } from '../labels.js';
import type { RdataReader, RdataWriter } from './types.js';

/** The largest rdata: what RDLENGTH can say. */
export const MAX_RDATA = 65535;

export class BufferRdataWriter implements RdataWriter {
  private readonly buf = Buffer.alloc(MAX_RDATA + 1024);
  private offset = 0;
  private canonical = false;

  /**
   * Starts again, empty (one writer serves every record encoded). `canonical`: names lower-cased (RFC 4034
   * 6.2), so equal data is equal bytes; the caller passes false for a type whose names keep their case
   * (RecordType.caseSensitiveNames).
   */
  reset(canonical = false): this {
    this.offset = 0;
    this.canonical = canonical;
    return this;
  }

  private room(n: number): void {
    if (this.offset + n > MAX_RDATA) throw new WireError('rdata too long');
  }
  u8(n: number): void {
    this.room(1);
    this.buf.writeUInt8(n, this.offset++);
  }
  u16(n: number): void {
    this.room(2);
    this.offset = this.buf.writeUInt16BE(n, this.offset);
  }
  u32(n: number): void {
    this.room(4);
    this.offset = this.buf.writeUInt32BE(n >>> 0, this.offset);
  }
  bytes(b: Buffer): void {
    this.room(b.length);
    this.offset += b.copy(this.buf, this.offset);
  }
  name(name: string): void {
    checkName(name);
    for (const label of splitName(this.canonical ? lowerAscii(name) : name)) {
      this.u8(label.length);
      this.room(label.length);
      this.offset += this.buf.write(label, this.offset, 'latin1');
    }
    this.u8(0);
  }
  /** The rdata written, as a new Buffer. */
  done(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.offset));
  }
  /** The rdata written, as a latin1 string (one byte per character: the smallest thing V8 keeps bytes in). */
  latin1(): string {
    return this.buf.toString('latin1', 0, this.offset);
  }
}

export class MessageRdataReader implements RdataReader {
  private pos: number;
  private readonly end: number;

  /** Rdata at `offset`, `length` octets long, inside `message` (where its names may point). */
  constructor(
    private readonly message: Buffer,
    offset: number,
    length: number,
  ) {
    this.pos = offset;
    this.end = offset + length;
    if (this.end > message.length) throw new WireError('rdata runs past the message');
  }
  get left(): number {
    return this.end - this.pos;
  }
  private take(n: number): number {
    if (this.pos + n > this.end) throw new WireError('rdata too short');
    const at = this.pos;
    this.pos += n;
    return at;
  }
  u8(): number {
    return this.message.readUInt8(this.take(1));
  }
  u16(): number {
    return this.message.readUInt16BE(this.take(2));
  }
  u32(): number {
    return this.message.readUInt32BE(this.take(4));
  }
  bytes(n: number): Buffer {
    const at = this.take(n);
    return Buffer.from(this.message.subarray(at, at + n));
  }
  name(): string {
    const { labels, end } = readName(this.message, this.pos);
    if (end > this.end) throw new WireError('name runs past the rdata');
    this.pos = end;
    return nameOfLabels(labels);
  }
}
