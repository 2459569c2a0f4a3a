/**
 * The record-type registry: the one place that knows which types exist. Interfaces, services and
 * the DNS server look types up here; adding a type means adding its module to this list.
 */
import * as dnsPacket from 'dns-packet';
import { Problems } from '../errors.js';
import { absoluteName, relativeName } from '../names.js';
import { A } from './a.js';
import { AAAA } from './aaaa.js';
import { CAA } from './caa.js';
import { CNAME } from './cname.js';
import { validateOwner, validateTtl } from './common.js';
import { MX } from './mx.js';
import { NS } from './ns.js';
import { SRV } from './srv.js';
import { TXT } from './txt.js';
import type { RecordContext, RecordData, RecordType } from './types.js';

export type { RecordContext, RecordData, RecordType, StoredRecord } from './types.js';
export { V3_DEFAULTS } from './types.js';

export const RECORD_TYPES: readonly RecordType[] = [A, AAAA, CNAME, MX, NS, TXT, SRV, CAA];

const byName = new Map(RECORD_TYPES.map((t) => [t.type, t]));

/** The type module for a mnemonic in any letter case, or undefined. */
export function recordType(name: string): RecordType | undefined {
  return byName.get(name.trim().toUpperCase());
}

export function recordTypeOrThrow(name: string): RecordType {
  const t = recordType(name);
  if (!t) throw new Error(`unknown record type ${name}`);
  return t;
}

export const RECORD_TYPE_NAMES: readonly string[] = RECORD_TYPES.map((t) => t.type);

/**
 * Normalises and checks a record for a zone: owner name made relative, TTL rounded, then the type's
 * own rules. Returns the problems found (empty when valid); `rec` is updated in place.
 */
export function checkRecord(rec: RecordData, ctx: RecordContext): Problems {
  const p = new Problems();
  const t = recordType(rec.type);
  if (!t) {
    p.add('type', `The record type '${rec.type}' is not supported; use one of ${RECORD_TYPE_NAMES.join(', ')}.`);
    return p;
  }
  rec.type = t.type;
  const rel = relativeName(rec.name, ctx.zone);
  if (rel === null) p.add('name', `The name '${rec.name}' is not inside the domain ${ctx.zone}.`);
  else {
    rec.name = rel;
    validateOwner(rec, ctx.zone, p);
    if (rel === '' && !t.apexAllowed) p.add('name', `A ${t.type} record cannot be placed at the domain itself; give it a name.`);
  }
  validateTtl(rec, p);
  t.validate(rec, ctx, p);
  return p;
}

/**
 * The most an RRset may take on the wire so that one DNS message can carry it whole: 65535 bytes less the
 * header, the longest question and an OPT record. A larger one could never be answered.
 */
export const MAX_RRSET_BYTES = 65535 - 12 - (255 + 4) - 11;

/** Bytes the records (one RRset: same name and type) take in an answer, without name compression. */
export function rrsetWireSize(records: readonly RecordData[], zone: string): number {
  const answers = records.map((r) => {
    const t = recordTypeOrThrow(r.type);
    return { name: absoluteName(r.name, zone), type: t.type, data: t.toWire(r, zone) } as dnsPacket.Answer;
  });
  // dns-packet measures whole messages: less its 12-byte header.
  return dnsPacket.encodingLength({ type: 'response', answers }) - 12;
}

/**
 * Equal for two records of one type exactly when DNS would serve the same data (RFC 2181 section 5), given
 * their wire form (toWire's, or as received): host names compare without regard to case, text with it.
 */
export function wireDataKey(t: RecordType, wire: unknown): string {
  const key = JSON.stringify(wire);
  return t.caseSensitiveTarget ? key : key.toLowerCase();
}
