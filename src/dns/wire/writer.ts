/**
 * The response writer dns-packet lacks for a server: name compression (case-insensitive), opcode, rcode
 * and flags set by hand, EDNS(0) and TSIG errors, records added only while the message has room. Record
 * data is encoded by the registry (model/records); `encodeRdata` keeps it in the form the writer takes,
 * ahead of time, guarding the wire's limits (labels over 63 octets, TXT strings over 255, bad addresses).
 */
import { checkName, keyOf, keyOfLabels, parentKey, splitName, WireError } from '../../model/labels.js';
import { rdataLatin1, recordType, recordTypeByCode, type RdataWriter, type RecordFields, type RecordType } from '../../model/records/index.js';
import { wireTtl } from '../../model/ttl.js';
import type { ZoneRecord } from '../../model/zone.js';
import { CLASS_IN, EDNS_DO, FLAG_AA, FLAG_CD, FLAG_QR, FLAG_RD, FLAG_TC, META_TYPE, TCP_MAX } from './message.js';

/**
 * One record's rdata as the writer takes it. Types whose names a response may compress (RFC 1035's: NS,
 * CNAME, MX, SOA) keep their fields, and the writer encodes them into each message. Every other type is
 * encoded once, ahead of time, as a latin1 string of its rdata (without RDLENGTH): a string is the smallest
 * thing V8 keeps bytes in, and zones hold a million of them.
 */
export type Rdata = string | RecordFields;

/** A record ready for the writer. */
export interface WireRecord {
  /** Owner as stored (case kept), presentation form. */
  name: string;
  labels: string[];
  type: number;
  ttl: number;
  rdata: Rdata;
}

/** Notes whether a type's encoder writes a name it lets responses compress. */
class CompressionProbe implements RdataWriter {
  compressible = false;
  u8(): void {}
  u16(): void {}
  u32(): void {}
  bytes(): void {}
  name(_name: string, compress?: boolean): void {
    if (compress) this.compressible = true;
  }
}

/** Whether responses may compress names in the type's rdata (RFC 3597 4), by what its encoder writes. */
const compressible = new Map<number, boolean>();
function compresses(t: RecordType, data: RecordFields): boolean {
  let c = compressible.get(t.code);
  if (c === undefined) {
    const probe = new CompressionProbe();
    t.encode(data, probe);
    compressible.set(t.code, (c = probe.compressible));
  }
  return c;
}

/** Encodes the data of one record, checking it fits the wire. Throws WireError (or the type's error) when unusable. */
export function encodeRdata(t: RecordType, data: RecordFields): Rdata {
  const latin1 = rdataLatin1(t, data);
  return compresses(t, data) ? data : latin1;
}

/** The registry's module for a record type name; throws WireError for one we cannot serve. */
export function servedType(name: string): RecordType {
  const t = recordType(name);
  if (!t) throw new WireError(`unsupported type ${name}`);
  return t;
}

/** Turns one zone record into a WireRecord. Throws when unusable. */
export function toWireRecord(a: ZoneRecord): WireRecord {
  const t = servedType(a.type);
  checkName(a.name);
  return { name: a.name, labels: splitName(a.name), type: t.code, ttl: wireTtl(a.ttl), rdata: encodeRdata(t, a.data) };
}

/** Names met in rdata (SOA, NS, MX, CNAME targets…) split and keyed, as every answer that carries them writes them again. */
const rdataNames = new Map<string, { labels: string[]; key: string }>();
/** Beyond this many the memo starts over: what zones hold is not bounded. */
const RDATA_NAMES_KEPT = 10_000;

function rdataName(name: string): { labels: string[]; key: string } {
  let known = rdataNames.get(name);
  if (!known) {
    if (rdataNames.size >= RDATA_NAMES_KEPT) rdataNames.clear();
    known = { labels: splitName(name), key: keyOf(name) };
    rdataNames.set(name, known);
  }
  return known;
}

/**
 * Builds one response message into a scratch buffer, compressing names (case-insensitively). Records are
 * added only while the message is within TCP_MAX: one that does not fit is still written, the ones after
 * it are not, and the caller sees the length past its limit and rolls back.
 */
export class ResponseWriter {
  // Room for a full message plus one maximal record (the one that crosses TCP_MAX) and an OPT record.
  private static scratch = Buffer.alloc(2 * 65536 + 1024);
  private readonly buf = ResponseWriter.scratch;
  private offset = 12;
  private readonly names = new Map<string, number>();
  readonly counts: [number, number, number, number] = [0, 0, 0, 0];
  /** Where the registry's encoders write rdata that holds names this message may compress. */
  private readonly rdataWriter: RdataWriter = {
    u8: (n) => void (this.offset = this.buf.writeUInt8(n, this.offset)),
    u16: (n) => void (this.offset = this.buf.writeUInt16BE(n, this.offset)),
    u32: (n) => void (this.offset = this.buf.writeUInt32BE(n >>> 0, this.offset)),
    bytes: (b) => void (this.offset += b.copy(this.buf, this.offset)),
    name: (name, compress) => {
      const { labels, key } = rdataName(name);
      this.writeName(labels, compress === true, key);
    },
  };

  /**
   * Writes a name, pointing at an earlier copy of its longest known suffix. `key` is the name's lookup key
   * (keyOfLabels), where the caller has it; each suffix's key is the part of it after a label (parentKey).
   */
  writeName(labels: readonly string[], compress = true, key = keyOfLabels(labels)): void {
    for (let i = 0; i < labels.length; i++, key = parentKey(key)) {
      const at = compress ? this.names.get(key) : undefined;
      if (at !== undefined) {
        this.buf.writeUInt16BE(0xc000 | at, this.offset);
        this.offset += 2;
        return;
      }
      if (this.offset < 0x3fff && !this.names.has(key)) this.names.set(key, this.offset);
      // Octet by octet: Buffer#write checks its arguments and calls into C++, which costs more than a label's few octets.
      const label = labels[i] as string;
      const b = this.buf;
      const start = this.offset;
      for (let j = 0; j < label.length; j++) b[start + 1 + j] = label.charCodeAt(j);
      b[start] = label.length;
      this.offset = start + 1 + label.length;
    }
    this.buf[this.offset++] = 0;
  }

  question(labels: readonly string[], qtype: number, qclass: number, key?: string): void {
    this.writeName(labels, true, key);
    this.buf.writeUInt16BE(qtype, this.offset);
    this.buf.writeUInt16BE(qclass, this.offset + 2);
    this.offset += 4;
    this.counts[0]++;
  }

  /** Appends a record to section 1 (answer), 2 (authority) or 3 (additional); `owner` overrides its name. */
  record(section: 1 | 2 | 3, r: WireRecord, owner: readonly string[] = r.labels, ttl = r.ttl): void {
    this.rrset(section, owner, r.type, ttl, [r.rdata]);
  }

  /** Appends every record of a set under one owner, which is written once and pointed at after that. */
  rrset(section: 1 | 2 | 3, owner: readonly string[], type: number, ttl: number, items: readonly Rdata[]): void {
    for (const item of items) {
      if (this.offset > TCP_MAX) return;
      this.writeName(owner);
      this.rdata(type, ttl, item);
      this.counts[section]++;
    }
  }

  /** Type, class, TTL, RDLENGTH and rdata of a record whose owner has just been written. */
  private rdata(type: number, ttl: number, rdata: Rdata): void {
    const b = this.buf;
    b.writeUInt16BE(type, this.offset);
    b.writeUInt16BE(CLASS_IN, this.offset + 2);
    b.writeUInt32BE(ttl, this.offset + 4);
    const lenAt = this.offset + 8;
    this.offset += 10;
    if (typeof rdata === 'string') this.offset += b.write(rdata, this.offset, 'latin1');
    else (recordTypeByCode(type) as RecordType).encode(rdata, this.rdataWriter);
    b.writeUInt16BE(this.offset - lenAt - 2, lenAt);
  }

  /** The OPT record: our UDP size, the upper rcode bits, DO echoed, and `options` (encoded, RFC 6891 6.1.2). */
  opt(udpSize: number, rcode: number, dnssecOk: boolean, options: Buffer | null = null): void {
    const b = this.buf;
    b[this.offset] = 0;
    b.writeUInt16BE(META_TYPE.OPT, this.offset + 1);
    b.writeUInt16BE(udpSize, this.offset + 3);
    b[this.offset + 5] = (rcode >> 4) & 0xff;
    b[this.offset + 6] = 0;
    b.writeUInt16BE(dnssecOk ? EDNS_DO : 0, this.offset + 7);
    b.writeUInt16BE(options ? options.length : 0, this.offset + 9);
    this.offset += 11;
    if (options) this.offset += options.copy(b, this.offset);
    this.counts[3]++;
  }

  get length(): number {
    return this.offset;
  }

  /** Marks a point to roll back to (a section that turned out not to fit). */
  mark(): { offset: number; counts: number[] } {
    return { offset: this.offset, counts: [...this.counts] };
  }

  rollback(m: { offset: number; counts: number[] }): void {
    this.offset = m.offset;
    for (let i = 0; i < 4; i++) this.counts[i] = m.counts[i] as number;
    for (const [k, at] of this.names) if (at >= m.offset) this.names.delete(k);
  }

  /** Copies the message out with its header: QR, opcode, AA, TC, RD and CD as given, RA clear. */
  finish(id: number, queryFlags: number, rcode: number, aa: boolean, tc: boolean): Buffer {
    const b = this.buf;
    const flags = FLAG_QR | (queryFlags & (0x7800 | FLAG_RD | FLAG_CD)) | (aa ? FLAG_AA : 0) | (tc ? FLAG_TC : 0) | (rcode & 0xf);
    b.writeUInt16BE(id, 0);
    b.writeUInt16BE(flags, 2);
    for (let i = 0; i < 4; i++) b.writeUInt16BE(this.counts[i] as number, 4 + 2 * i);
    return Buffer.from(b.subarray(0, this.offset));
  }
}
