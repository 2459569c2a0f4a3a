/**
 * The record-type registry: the one place that knows which types exist. Interfaces, services and the DNS
 * server look types up here; adding a type means adding its module to this list.
 */
import { Problems } from '../errors.js';
import { checkSteering } from '../steering.js';
import { WireError } from '../labels.js';
import { relativeName } from '../names.js';
import { A } from './a.js';
import { AAAA } from './aaaa.js';
import { ALIAS } from './alias.js';
import { CAA } from './caa.js';
import { CDS } from './cds.js';
import { CNAME } from './cname.js';
import { validateOwner, validateTtl } from './common.js';
import { CDNSKEY, DNSKEY } from './dnskey.js';
import { DS } from './ds.js';
import { HTTPS } from './https.js';
import { MX } from './mx.js';
import { NAPTR } from './naptr.js';
import { NS } from './ns.js';
import { NSEC } from './nsec.js';
import { NSEC3 } from './nsec3.js';
import { NSEC3PARAM } from './nsec3param.js';
import { presentName, PresentationError, tokenize, type Token } from './presentation.js';
import { PTR } from './ptr.js';
import { BufferRdataWriter, MessageRdataReader } from './rdata.js';
import { RRSIG } from './rrsig.js';
import { SOA } from './soa.js';
import { SRV } from './srv.js';
import { SSHFP } from './sshfp.js';
import { SVCB } from './svcb.js';
import { TLSA } from './tlsa.js';
import { TXT } from './txt.js';
import type { RecordContext, RecordData, RecordFields, RecordType } from './types.js';

export type { RecordContext, RecordData, RecordFields, RecordType, StoredRecord, V3Columns, V4Columns, V4Fields, RdataWriter, RdataReader, PdnsMapping } from './types.js';
export { V3_DEFAULTS } from './types.js';
export { PresentationError } from './presentation.js';
export { emailOfRname, negativeTtl, rnameOf, soaData, type Soa } from './soa.js';
export { CDNSKEY_DELETE, dnskeyData, type DnskeyFields } from './dnskey.js';
export { CDS_DELETE, dsData, type DsFields } from './ds.js';
export { nsec3Params, type Nsec3Params } from './nsec3param.js';
export { nsec3Data, type Nsec3Fields } from './nsec3.js';
export type { RrsigFields } from './rrsig.js';

/** The types customers can host, in the order interfaces list them. */
export const RECORD_TYPES: readonly RecordType[] = [A, AAAA, CNAME, MX, NS, TXT, SRV, CAA, TLSA, SSHFP, PTR, NAPTR, DS, SVCB, HTTPS, ALIAS];

/**
 * The types the service writes and customers never create (`hosted: false`): SOA, which each zone has, and
 * DNSSEC's, which the signer makes (and zone mirrors may carry).
 */
const SERVICE_TYPES: readonly RecordType[] = [SOA, DNSKEY, CDS, CDNSKEY, RRSIG, NSEC, NSEC3, NSEC3PARAM];

/** Every type the server knows: the hosted ones and the service's. */
const KNOWN: readonly RecordType[] = [...RECORD_TYPES, ...SERVICE_TYPES];
const byName = new Map(KNOWN.map((t) => [t.type, t]));
const byCode = new Map(KNOWN.map((t) => [t.code, t]));

/** The type module for a mnemonic in any letter case (SOA included), or undefined. */
export function recordType(name: string): RecordType | undefined {
  // The mnemonic as the registry spells it first: every record's type is asked for many times a write.
  return byName.get(name) ?? byName.get(name.trim().toUpperCase());
}

export function recordTypeOrThrow(name: string): RecordType {
  const t = recordType(name);
  if (!t) throw new Error(`unknown record type ${name}`);
  return t;
}

/** The type module for a type number, or undefined. */
export const recordTypeByCode = (code: number): RecordType | undefined => byCode.get(code);

/** The types the DNS server singles out by name (delegations, aliases, DNSSEC's), for their `code`. */
export { CDNSKEY, CDS, CNAME, DNSKEY, DS, NS, NSEC, NSEC3, NSEC3PARAM, RRSIG };

/** The type that stands for its target's addresses (ALIAS), and the address types it answers for (A, AAAA). */
export const ADDRESS_ALIAS_TYPE = RECORD_TYPES.find((t) => t.addressAlias) as RecordType;
export const ADDRESS_TYPES: readonly RecordType[] = RECORD_TYPES.filter((t) => t.address);

/** SOA: every zone's first record, which the service writes. */
export const SOA_TYPE: RecordType = SOA;

/** The type that names a zone's name servers at its apex (NS). */
export const NAME_SERVER_TYPE = RECORD_TYPES.find((t) => t.nameServer) as RecordType;

/**
 * The data of a record of NAME_SERVER_TYPE naming `host`, one object per host: every zone's apex names the
 * configured name servers, and a zone keeps the data of such a record.
 */
export function nameServerData(host: string): RecordFields {
  let data = nameServers.get(host);
  if (!data) nameServers.set(host, (data = Object.freeze(NAME_SERVER_TYPE.parse(tokenize(presentName(host)), ''))));
  return data;
}
const nameServers = new Map<string, RecordFields>();

export const RECORD_TYPE_NAMES: readonly string[] = RECORD_TYPES.map((t) => t.type);

/** The types interface A knows (those the real Linode API had), which it creates and lists. */
export const V3_TYPES: readonly RecordType[] = RECORD_TYPES.filter((t) => t.v3);

/** The types Linode's API v4 has (the v4 door creates and lists them). */
export const V4_TYPES: readonly RecordType[] = RECORD_TYPES.filter((t) => t.v4);

/**
 * Normalises and checks a record for a zone: owner name made relative, TTL rounded, then the type's
 * own rules. Returns the problems found (empty when valid); `rec` is updated in place.
 */
export function checkRecord(rec: RecordData, ctx: RecordContext): Problems {
  const p = new Problems();
  const t = recordType(rec.type);
  // DNSSEC's types only as a master sent them to a zone mirror; SOA never (a zone's SOA is checked apart).
  if (!t || (t.hosted === false && !(t.dnssec && ctx.transferred))) {
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
  if (!rec.data || typeof rec.data !== 'object') rec.data = {};
  t.validate(rec, ctx, p);
  if (rec.steering !== undefined) rec.steering = checkSteering(rec.steering, p);
  // Data that passed the type's rules must also fit the wire (a name's labels and length, say); the
  // encoding is the one the zone rules' identity of the record uses next, so it is made once.
  if (p.empty) {
    try {
      wireDataKey(t, rec.data);
    } catch (e) {
      p.add(mainField(t), `The ${t.type} data cannot be written in DNS: ${(e as Error).message}.`);
    }
  }
  return p;
}

/** The v1 fields of a type besides the owner name and TTL: its data fields. */
const dataFields = (t: RecordType): readonly string[] => DATA_FIELDS.get(t) ?? [];
/** Worked out once: every record an interface B list shows goes through them. */
const DATA_FIELDS = new Map(KNOWN.map((t) => [t, Object.keys(t.v1Fields).filter((f) => f !== 'name' && f !== 'ttl')]));

/** The field a problem with the data as a whole is reported under: the type's last, its value (A's address, MX's mail server). */
export const mainField = (t: RecordType): string => dataFields(t).at(-1) ?? 'name';

/** The one writer every encoding goes through: an encoder never encodes another record meanwhile. */
const writer = new BufferRdataWriter();

/**
 * The rdata of a record on the wire, names in full; `canonical`: in RFC 4034 6.2 canonical form, names
 * lower-cased unless the type keeps their case (`caseSensitiveNames`).
 */
export function rdataOf(t: RecordType, data: RecordFields, canonical = false): Buffer {
  return written(t, data, canonical).done();
}

/** The rdata as a latin1 string (see BufferRdataWriter.latin1); `canonical` as for rdataOf. */
export function rdataLatin1(t: RecordType, data: RecordFields, canonical = false): string {
  return written(t, data, canonical).latin1();
}

/** `data` encoded into the one writer (read it before the next encoding). */
function written(t: RecordType, data: RecordFields, canonical: boolean): BufferRdataWriter {
  const w = writer.reset(canonical && !t.caseSensitiveNames);
  t.encode(data, w);
  return w;
}

/** Decodes the rdata at `offset` (`length` octets) in `message`; throws WireError unless the type takes exactly all of it. */
export function decodeRdata(t: RecordType, message: Buffer, offset: number, length: number): RecordFields {
  const r = new MessageRdataReader(message, offset, length);
  const data = t.decode(r);
  if (r.left !== 0) throw new WireError(`${r.left} octets after the ${t.type} data`);
  return data;
}

/**
 * Equal for two records of one type exactly when DNS would serve the same data (RFC 2181 5): their
 * canonical rdata (host names compare without regard to case, text with it, and so do the names of a type
 * that keeps their case, RFC 4034 6.2).
 */
export function wireDataKey(t: RecordType, data: RecordFields): string {
  const kept = wireKeys.get(data);
  if (kept?.t === t) return kept.wire;
  const wire = rdataLatin1(t, data, true);
  wireKeys.set(data, { t, wire });
  return wire;
}

/**
 * wireDataKey's answers, kept with the data object they were made from: an import or a bulk change asks for
 * the same records' key several times (checkRecord's check that the data fits the wire, duplicates in the
 * file, the rules at each name, the difference with the zone). Data is not changed once validated (a change
 * to a record validates a new data object), so a kept key stays right.
 */
const wireKeys = new WeakMap<object, { t: RecordType; wire: string }>();

/**
 * The most an RRset may take on the wire so that one DNS message can carry it whole: 65535 bytes less the
 * header, the longest question and an OPT record. A larger one could never be answered.
 */
export const MAX_RRSET_BYTES = 65535 - 12 - (255 + 4) - 11;

/** Bytes the records (one RRset: same name and type) take in an answer, without name compression. */
export function rrsetWireSize(records: readonly RecordData[], zone: string): number {
  let size = 0;
  for (const r of records) size += recordWireSize(r.name, zone, rdataOf(recordTypeOrThrow(r.type), r.data).length);
  return size;
}

/** Bytes one record at `name` (relative to `zone`) with `rdataLength` octets of rdata takes in an answer, without name compression. */
export function recordWireSize(name: string, zone: string, rdataLength: number): number {
  const owner = name === '' ? zone : `${name}.${zone}`;
  return Buffer.byteLength(owner, 'latin1') + 2 + 10 + rdataLength;
}

/**
 * Master-file rdata text -> the type's fields, relative names completed with `origin`. Takes the type's own
 * form and RFC 3597's generic one (`\# <length> <hex>`). Throws PresentationError.
 */
export function parseRdata(t: RecordType, text: string | Token[], origin: string): RecordFields {
  const tokens = typeof text === 'string' ? tokenize(text) : text;
  if (tokens[0]?.text === '\\#' && !tokens[0].quoted) {
    const length = Number(tokens[1]?.text);
    const hex = tokens.slice(2).map((x) => x.text).join('');
    if (!Number.isInteger(length) || !/^([0-9a-fA-F]{2})*$/.test(hex) || hex.length !== length * 2) {
      throw new PresentationError('generic data (\\#) must give its length and then that many octets in hexadecimal');
    }
    const rdata = Buffer.from(hex, 'hex');
    try {
      return decodeRdata(t, rdata, 0, rdata.length);
    } catch (e) {
      throw new PresentationError(`the generic data is not valid ${t.type} data: ${(e as Error).message}`);
    }
  }
  return t.parse(tokens, origin);
}

/** A record as interface B shows it (without id and type); `steering` last, when the record has it. */
export function toV1(rec: RecordData): Record<string, unknown> {
  const t = byName.get(rec.type) ?? recordTypeOrThrow(rec.type);
  if (t.toV1) return withSteering(t.toV1(rec), rec);
  const out: Record<string, unknown> = { name: rec.name };
  for (const f of dataFields(t)) if (rec.data[f] !== undefined) out[f] = rec.data[f];
  out.ttl = rec.ttl;
  return withSteering(out, rec);
}

function withSteering(out: Record<string, unknown>, rec: RecordData): Record<string, unknown> {
  if (rec.steering) out.steering = rec.steering;
  return out;
}

/**
 * An interface B body as a canonical record (not checked yet: checkRecord does that). A body is the whole
 * record, so one without `steering` has none (null: removed on a write).
 */
export function fromV1(t: RecordType, body: Record<string, unknown>): RecordData {
  const rec = t.fromV1 ? t.fromV1(body) : plainFromV1(t, body);
  rec.steering = (body.steering as RecordData['steering']) ?? null;
  return rec;
}

function plainFromV1(t: RecordType, body: Record<string, unknown>): RecordData {
  const data: RecordFields = {};
  for (const f of dataFields(t)) if (body[f] !== undefined) data[f] = body[f];
  return { type: t.type, name: typeof body.name === 'string' ? body.name : '', ttl: typeof body.ttl === 'number' ? body.ttl : 0, data };
}

/** A record's data as the PowerDNS door shows it: PowerDNS's presentation format, names absolute with the dot. */
export function toPdns(t: RecordType, data: RecordFields): string {
  return t.pdns?.present ? t.pdns.present(data) : t.present(data);
}

/** Text compared as PowerDNS compares a content with its own form of it: without regard to case or runs of blanks. */
const pdnsForm = (text: string): string => text.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * A PowerDNS content -> the type's fields. As PowerDNS, the content must be the form PowerDNS itself presents
 * (so a name without its final dot, `mail` for `mail.`, is refused rather than read as something else), unless
 * the type takes any form (`pdns.anyForm`). Throws PresentationError saying what it was read as.
 */
export function fromPdns(t: RecordType, content: string): RecordFields {
  const data = parseRdata(t, content, '');
  if (t.pdns?.anyForm) return data;
  const shown = toPdns(t, data);
  if (pdnsForm(shown) !== pdnsForm(content)) throw new PresentationError(`Not in expected format (parsed as '${shown}')`);
  return data;
}
