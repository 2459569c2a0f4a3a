/**
 * The query parser: strict and bounded, reading what dns-packet would not check (every record's bounds,
 * OPT and TSIG placement, option lengths) and keeping the question's labels byte for byte.
 */
import { keyOfLabels, plainNameEnd, plainNameKey, plainNameLabels, readName, WireError } from '../../model/labels.js';
import { readClientSubnet, type ClientSubnet } from './client-subnet.js';
import { cookieLengthValid } from './cookie.js';
import { OPTION } from './edns-options.js';
import { CLASS_ANY, EDNS_DO, FLAG_QR, META_TYPE, OPCODE, u16At } from './message.js';
import { readTsigRdata, type Tsig } from './tsig.js';
import { readRecord } from './wire-record.js';

export interface Edns {
  udpSize: number;
  version: number;
  dnssecOk: boolean;
  /** Where the data of the first COOKIE option starts in the message (RFC 7873: the others are ignored); 0 without one. */
  cookieAt: number;
  cookieLength: number;
  /** Whether the client asks for our NSID (RFC 5001; what the option holds is ignored, 2.1). */
  nsid: boolean;
  /** The first EDNS Client Subnet option (RFC 7871), when the query has one. */
  ecs?: ClientSubnet;
}

/** A parsed query: header fields, the question as received (labels keep their case), EDNS and TSIG. */
export interface Query {
  id: number;
  flags: number;
  opcode: number;
  /** Question name labels as sent (latin1, so every byte survives). */
  readonly labels: readonly string[];
  /** Lower-case lookup key (labels joined by '.', with '.' and '\' inside labels escaped). */
  readonly key: string;
  qtype: number;
  qclass: number;
  edns: Edns | null;
  tsig: Tsig | null;
  /** End of the question in the message when its name is written out in full (no pointer), else 0. */
  questionEnd: number;
}

/** Why a message gets no normal answer: the header could be read, the rest could not. */
export interface Malformed {
  id: number;
  flags: number;
  opcode: number;
  malformed: true;
  /** EDNS of a message whose OPT record could be read all the same: its FORMERR carries OPT (RFC 6891 7). */
  edns: Edns | null;
  /** Whether the only fault is an empty question section (RFC 7873 5.4: a query for a server cookie). */
  noQuestion: boolean;
  /** Whether a COOKIE option of a wrong length is the fault (RFC 7873 5.2.2; counted in /metrics). */
  badCookie: boolean;
}

/**
 * Parses a message sent to the server. Null: not worth an answer (shorter than a header, or a response).
 * Malformed: the header is readable but the rest is not (answered with FORMERR).
 */
export function parseQuery(buf: Buffer): Query | Malformed | null {
  if (buf.length < 12) return null;
  const id = u16At(buf, 0);
  const flags = u16At(buf, 2);
  if (flags & FLAG_QR) return null;
  const opcode = (flags >> 11) & 0xf;
  const malformed = (edns: Edns | null = null, noQuestion = false, badCookie = false): Malformed => ({ id, flags, opcode, malformed: true, edns, noQuestion, badCookie });
  const qdcount = u16At(buf, 4);
  const ancount = u16At(buf, 6);
  const nscount = u16At(buf, 8);
  const arcount = u16At(buf, 10);
  try {
    // Every question is read, though only one is answered: a FORMERR for more or none still needs the OPT.
    let question: { labels: string[] | null; end: number } | null = null;
    let pos = 12;
    for (let i = 0; i < qdcount; i++) {
      // The first name as written, without a pointer (the usual question), is only measured here: its labels are
      // read when something asks for them (ParsedQuery), and a cached answer never does.
      const end = i === 0 ? plainNameEnd(buf, pos) : -1;
      const q = end > 0 ? { labels: null, end } : readName(buf, pos);
      if (q.end + 4 > buf.length) return malformed();
      question ??= q;
      pos = q.end + 4;
    }
    // Queries carry no answers; NOTIFY and IXFR carry an SOA in answer or authority, UPDATE its prerequisites
    // and updates. Read and bound them all; a TSIG record there is misplaced (RFC 8945 5.2): FORMERR.
    for (let i = 0; i < ancount + nscount; i++) {
      const rr = readRecord(buf, pos);
      if (rr.type === META_TYPE.TSIG) return malformed();
      pos = rr.end;
    }
    let edns: Edns | null = null;
    let tsig: Tsig | null = null;
    for (let i = 0; i < arcount; i++) {
      const rr = readRecord(buf, pos);
      pos = rr.end;
      if (rr.type === META_TYPE.TSIG) {
        // Only as the last record, and of class ANY (RFC 8945 4.2, 5.2): FORMERR otherwise, as for rdata that does not add up.
        if (i !== arcount - 1 || rr.klass !== CLASS_ANY) return malformed(edns);
        try {
          tsig = readTsigRdata(buf, rr.start, rr.labels, rr.rdata, rr.end);
        } catch {
          return malformed(edns);
        }
        continue;
      }
      if (rr.type !== META_TYPE.OPT) continue;
      if (edns || rr.labels.length !== 0) return malformed();
      edns = { udpSize: rr.klass, version: (rr.ttl >>> 16) & 0xff, dnssecOk: (rr.ttl & EDNS_DO) !== 0, cookieAt: 0, cookieLength: 0, nsid: false };
      let o = rr.rdata;
      let cookieFault = false;
      // Options must tile the rdata exactly.
      while (o < rr.end) {
        if (o + 4 > rr.end) return malformed();
        const code = buf.readUInt16BE(o);
        const length = buf.readUInt16BE(o + 2);
        if (code === OPTION.COOKIE) {
          // Every COOKIE option of a wrong length is FORMERR (RFC 7873 5.2.2), the first of the others counts.
          if (!cookieLengthValid(length)) cookieFault = true;
          else if (edns.cookieAt === 0) {
            edns.cookieAt = o + 4;
            edns.cookieLength = length;
          }
        } else if (code === OPTION.NSID) edns.nsid = true;
        else if (code === OPTION.ECS && !edns.ecs && o + 4 + length <= rr.end) {
          const ecs = readClientSubnet(buf, o + 4, length);
          if (!ecs) return malformed({ ...edns, cookieAt: 0, nsid: false });
          edns.ecs = ecs;
        }
        o += 4 + length;
      }
      if (o !== rr.end) return malformed();
      if (cookieFault) return malformed({ ...edns, cookieAt: 0, nsid: false }, false, true);
    }
    if (pos !== buf.length || qdcount !== 1 || !question) return malformed(edns, pos === buf.length && qdcount === 0 && ancount + nscount === 0 && !tsig);
    const qtype = u16At(buf, question.end);
    const qclass = u16At(buf, question.end + 2);
    const labels = question.labels;
    if (labels === null) return new ParsedQuery(id, flags, opcode, buf, null, qtype, qclass, edns, tsig, question.end + 4);
    return new ParsedQuery(id, flags, opcode, null, labels, qtype, qclass, edns, tsig, 0);
  } catch (e) {
    if (e instanceof WireError) return malformed();
    throw e;
  }
}

/**
 * A query as parseQuery reads it. A question name written out in full is only measured by parseQuery: its labels
 * and the lookup key are read from the message when first asked for (a hit in the response cache, keyed by the
 * question's octets, needs neither). So they must be asked for while the message's buffer holds it: the batched
 * UDP path reuses its block after each batch, and what it hands on is a copy, parsed anew (udp-batch.ts).
 */
class ParsedQuery implements Query {
  private keyMade: string | null = null;

  constructor(
    readonly id: number,
    readonly flags: number,
    readonly opcode: number,
    private message: Buffer | null,
    private labelsRead: readonly string[] | null,
    readonly qtype: number,
    readonly qclass: number,
    readonly edns: Edns | null,
    readonly tsig: Tsig | null,
    readonly questionEnd: number,
  ) {}

  get labels(): readonly string[] {
    if (this.labelsRead === null) {
      this.labelsRead = plainNameLabels(this.message as Buffer, 12, this.questionEnd - 4);
      this.message = null;
    }
    return this.labelsRead;
  }

  get key(): string {
    return (this.keyMade ??= this.message ? plainNameKey(this.message, 12) : keyOfLabels(this.labels));
  }
}

/**
 * The query when it is a plain question — opcode QUERY, unsigned, not a transfer, EDNS version 0 if any — which
 * the zones (or a cache of their answers) answer at once; null for anything that needs the full handling.
 */
export function plainQuery(q: Query | Malformed | null): Query | null {
  if (!q || 'malformed' in q || q.tsig || q.opcode !== OPCODE.QUERY || q.qtype === META_TYPE.AXFR || q.qtype === META_TYPE.IXFR || (q.edns && q.edns.version !== 0)) return null;
  return q;
}
