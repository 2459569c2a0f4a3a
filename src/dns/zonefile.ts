/**
 * A zone as RFC 1035 master-file text: every name absolute, one record per line, SOA first, one TTL per
 * RRset. Each record goes through the server's own encoder (toWireRecord) before it is written, so the
 * file holds what the server answers with and AXFR sends; a record the server could not serve makes the
 * export throw instead of writing something else. Types without a presentation form here or in their
 * registry module (zoneFileFields) are written in RFC 3597's generic form (`TYPEnn \# len hex`), which every
 * master-file reader accepts.
 */
import { recordType } from '../model/records/index.js';
import { splitName, toWireRecord, TYPE, type WireRecord } from './wire.js';
import { withRRsetTtls, type ZoneContent } from './zone-content.js';

type Answer = ZoneContent['soa'];

/** Letters, digits, `-`, `_` and `*` stand for themselves in a master file; other bytes are escaped. */
const PLAIN = /^[A-Za-z0-9_*-]$/;

const ddd = (byte: number): string => `\\${byte.toString().padStart(3, '0')}`;

/** A name in presentation form, absolute (trailing dot); `\.` in the input is a dot inside a label. */
export function presentName(name: string): string {
  const labels = splitName(name);
  if (labels.length === 0) return '.';
  const escape = (label: string): string => {
    let out = '';
    for (const byte of Buffer.from(label, 'latin1')) {
      const c = String.fromCharCode(byte);
      out += PLAIN.test(c) ? c : byte > 0x20 && byte < 0x7f ? `\\${c}` : ddd(byte);
    }
    return out;
  };
  return labels.map(escape).join('.') + '.';
}

/** One character-string, quoted: `"` and `\` escaped, bytes outside printable ASCII as \DDD. */
export function quoteString(bytes: Buffer): string {
  let out = '"';
  for (const byte of bytes) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else out += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : ddd(byte);
  }
  return out + '"';
}

/** The character-strings of an encoded TXT rdata, each quoted. */
function txtText(rdata: Buffer): string {
  const parts: string[] = [];
  for (let o = 0; o < rdata.length; ) {
    const len = rdata[o] as number;
    parts.push(quoteString(rdata.subarray(o + 1, o + 1 + len)));
    o += 1 + len;
  }
  return parts.join(' ');
}

/** Type mnemonic and rdata text of one encoded record. */
function rdataText(a: Answer, wire: WireRecord): [string, string] {
  const d = wire.rdata as unknown as Record<string, unknown>;
  const given = (a as { data?: unknown }).data;
  switch (wire.type) {
    case TYPE.NS:
    case TYPE.CNAME:
      return [a.type, presentName(wire.rdata as string)];
    case TYPE.MX:
      return [a.type, `${String(d.preference)} ${presentName(String(d.exchange))}`];
    case TYPE.SOA: {
      const times = [d.serial, d.refresh, d.retry, d.expire, d.minimum].map((n) => String(Number(n) >>> 0));
      return [a.type, `${presentName(String(d.mname))} ${presentName(String(d.rname))} ${times.join(' ')}`];
    }
    case TYPE.A:
    case TYPE.AAAA:
      return [a.type, String(given)]; // checked as an address by toWireRecord
    case TYPE.SRV: {
      const s = given as { priority: number; weight: number; port: number; target: string };
      return [a.type, `${s.priority} ${s.weight} ${s.port} ${presentName(s.target)}`];
    }
    case TYPE.TXT:
      return [a.type, txtText(Buffer.from(wire.rdata as string, 'latin1'))];
    default: {
      const fields = recordType(a.type)?.zoneFileFields?.(given);
      if (fields) return [a.type, fields.map((f) => (Buffer.isBuffer(f) ? quoteString(f) : String(f))).join(' ')];
      const rdata = Buffer.from(wire.rdata as string, 'latin1');
      return [`TYPE${wire.type}`, `\\# ${rdata.length}${rdata.length ? ' ' + rdata.toString('hex') : ''}`];
    }
  }
}

function line(a: Answer): string {
  const wire = toWireRecord(a as { name: string; type: string; ttl?: number; data?: unknown });
  const [type, rdata] = rdataText(a, wire);
  return `${presentName(a.name)}\t${wire.ttl}\tIN\t${type}\t${rdata}`;
}

/** The zone's master-file text. Throws (naming the record) when a record cannot be encoded. */
export function zoneFile(content: ZoneContent): string {
  const lines: string[] = [];
  for (const a of [content.soa, ...withRRsetTtls(content.answers.filter((x) => x.type !== 'SOA'))]) {
    try {
      lines.push(line(a));
    } catch (e) {
      throw new Error(`${a.name} ${a.type}: ${(e as Error).message}`);
    }
  }
  return lines.join('\n') + '\n';
}
