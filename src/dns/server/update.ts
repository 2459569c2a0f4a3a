/**
 * DNS UPDATE messages (RFC 2136) on the wire: the zone, prerequisite and update sections read into the
 * model's terms (model/update.ts), handed to the update service, and its outcome answered as an rcode.
 * Only a message signed with a TSIG key gets this far (the server checks the signature).
 */
import type { Logger } from 'pino';
import { isServedMaster } from '../../model/domain.js';
import { ConflictError, LimitError, ValidationError } from '../../model/errors.js';
import { nameOfLabels, WireError } from '../../model/labels.js';
import { relativeName } from '../../model/names.js';
import { decodeRdata, recordTypeByCode, SOA_TYPE, type RecordData } from '../../model/records/index.js';
import type { NamedTsigKey } from '../../model/tsig-key.js';
import { PrerequisiteFailed, type Prerequisite, type UpdateOp } from '../../model/update.js';
import type { Services } from '../../services/index.js';
import { NotAuthoritative, UpdateRefused } from '../../services/updates.js';
import { CLASS_ANY, CLASS_IN, META_TYPE, RCODE, typeName } from '../wire/message.js';
import { EDE, type ExtendedError } from '../wire/edns-options.js';
import type { Query } from '../wire/query.js';
import { emptyResult, errorResult, type Result } from '../zone/result.js';
import { readRecord, skipQuestions, type WireRecord } from '../wire/wire-record.js';

/** RFC 2136 2.4/2.5: class NONE marks "does not exist" and "delete this record". */
const CLASS_NONE = 254;

/** A message that breaks RFC 2136's rules for its sections: FORMERR, or NOTZONE for a name outside the zone. */
class UpdateFormError extends Error {
  constructor(
    readonly rcode: number,
    message: string,
  ) {
    super(message);
  }
}

/** Meta types (RFC 6895 3.1: 128-255 save ANY) and OPT/TSIG cannot be records of a zone. */
const isMeta = (type: number): boolean => type === META_TYPE.OPT || (type >= 128 && type <= 255);

interface Sections {
  prerequisites: Prerequisite[];
  updates: UpdateOp[];
}

/** One record of an UPDATE message: as on the wire, its name relative to the zone, and its data decoded on demand. */
interface UpdateRecord {
  rr: WireRecord;
  name: string;
  /** The type's name (TYPEnnn for one we do not know). */
  type: string;
  /** The record data; throws UpdateFormError for a type we do not host or data that is malformed. */
  data(): RecordData['data'];
}

/** Reads the record at `pos`; a name outside the zone is NOTZONE. */
function readUpdateRecord(raw: Buffer, pos: number, zone: string): UpdateRecord {
  const rr = readRecord(raw, pos);
  const owner = nameOfLabels(rr.labels);
  const name = relativeName(`${owner}.`, zone);
  if (name === null) throw new UpdateFormError(RCODE.NOTZONE, `${owner} is outside the zone ${zone}`);
  const type = typeName(rr.type);
  const data = (): RecordData['data'] => {
    const t = recordTypeByCode(rr.type);
    if (!t) throw new UpdateFormError(RCODE.REFUSED, `records of type ${type} are not hosted here`);
    try {
      return decodeRdata(t, raw, rr.rdata, rr.rdlength);
    } catch (e) {
      throw new UpdateFormError(RCODE.FORMERR, `${owner} ${type}: the record data is malformed (${(e as Error).message})`);
    }
  };
  return { rr, name, type, data };
}

/** Reads the prerequisite (answer) and update (authority) sections; throws UpdateFormError. */
function readSections(raw: Buffer, zone: string): Sections {
  let pos = skipQuestions(raw);
  const sections: Sections = { prerequisites: [], updates: [] };
  const valued = new Map<string, ValuedPrerequisite>();
  const counts = [raw.readUInt16BE(6), raw.readUInt16BE(8)] as const;
  for (let section = 0; section < 2; section++) {
    for (let i = 0; i < (counts[section] as number); i++) {
      const r = readUpdateRecord(raw, pos, zone);
      pos = r.rr.end;
      if (section === 0) addPrerequisite(sections.prerequisites, valued, r);
      else sections.updates.push(...updateOp(r));
    }
  }
  return sections;
}

type ValuedPrerequisite = Extract<Prerequisite, { kind: 'exists-with' }>;

/**
 * Adds one prerequisite record (RFC 2136 2.4): class ANY or NONE asks whether a name or RRset is in use,
 * class IN whether an RRset is exactly as given (its records gathered in `valued`, one prerequisite per RRset).
 */
function addPrerequisite(prerequisites: Prerequisite[], valued: Map<string, ValuedPrerequisite>, { rr, name, type, data }: UpdateRecord): void {
  if (rr.ttl !== 0) throw new UpdateFormError(RCODE.FORMERR, 'a prerequisite has a TTL other than 0');
  if (rr.klass === CLASS_ANY || rr.klass === CLASS_NONE) {
    if (rr.rdlength !== 0) throw new UpdateFormError(RCODE.FORMERR, 'a prerequisite of class ANY or NONE has data');
    const any = rr.type === META_TYPE.ANY;
    if (rr.klass === CLASS_ANY) prerequisites.push(any ? { kind: 'in-use', name } : { kind: 'exists', name, type });
    else prerequisites.push(any ? { kind: 'unused', name } : { kind: 'absent', name, type });
    return;
  }
  if (rr.klass !== CLASS_IN) throw new UpdateFormError(RCODE.FORMERR, `a prerequisite has class ${rr.klass}`);
  if (isMeta(rr.type)) throw new UpdateFormError(RCODE.FORMERR, `a prerequisite's records cannot be of type ${type}`);
  // A type we do not host cannot be there, so the RRset given cannot be the zone's.
  if (!recordTypeByCode(rr.type)) {
    prerequisites.push({ kind: 'exists', name, type });
    return;
  }
  const key = `${name.toLowerCase()} ${type}`;
  let p = valued.get(key);
  if (!p) {
    p = { kind: 'exists-with', name, type, records: [] };
    valued.set(key, p);
    prerequisites.push(p);
  }
  p.records.push({ type, name, ttl: 0, data: data() });
}

/** What one update record asks (RFC 2136 2.5): add (IN), delete an RRset or a name (ANY), delete a record (NONE). */
function updateOp({ rr, name, type, data }: UpdateRecord): UpdateOp[] {
  const empty = rr.rdlength === 0;
  if (rr.klass === CLASS_IN) {
    if (isMeta(rr.type) || rr.type === META_TYPE.ANY) throw new UpdateFormError(RCODE.FORMERR, `records of type ${type} cannot be added`);
    return [{ kind: 'add', record: { type, name, ttl: rr.ttl, data: data() } }];
  }
  if (rr.klass === CLASS_ANY) {
    if (rr.ttl !== 0 || !empty) throw new UpdateFormError(RCODE.FORMERR, 'a deletion of class ANY has a TTL or data');
    if (rr.type === META_TYPE.ANY) return [{ kind: 'delete-name', name }];
    if (isMeta(rr.type)) throw new UpdateFormError(RCODE.FORMERR, `records of type ${type} cannot be deleted`);
    return [{ kind: 'delete-rrset', name, type }];
  }
  if (rr.klass === CLASS_NONE) {
    if (rr.ttl !== 0) throw new UpdateFormError(RCODE.FORMERR, 'a deletion of class NONE has a TTL');
    if (isMeta(rr.type) || rr.type === META_TYPE.ANY) throw new UpdateFormError(RCODE.FORMERR, `records of type ${type} cannot be deleted one by one`);
    // A type we do not host has no record to delete.
    return recordTypeByCode(rr.type) ? [{ kind: 'delete-record', record: { type, name, ttl: 0, data: data() } }] : [];
  }
  throw new UpdateFormError(RCODE.FORMERR, `an update has class ${rr.klass}`);
}

/**
 * The answer (an rcode, and for a key's scope refusing it Prohibited, RFC 8914) to an UPDATE message signed with
 * `key` (already verified).
 */
export async function handleUpdate(services: Services, q: Query, raw: Buffer, key: NamedTsigKey, ctx: { remoteAddress: string; nameservers: readonly string[]; log: Logger }): Promise<Result> {
  // RFC 2136 3.1.1: one zone, named by an SOA question; our zones are IN zones.
  if (raw.readUInt16BE(4) !== 1 || q.qtype !== SOA_TYPE.code) return emptyResult(RCODE.FORMERR);
  if (q.qclass !== CLASS_IN) return emptyResult(RCODE.NOTAUTH);
  const zone = nameOfLabels(q.labels).toLowerCase();
  const log = (rcode: number, why: string, ede?: ExtendedError) => {
    ctx.log.info({ zone, key: key.name, remoteAddress: ctx.remoteAddress, rcode, why }, 'DNS UPDATE not applied');
    return ede ? errorResult(rcode, ede) : emptyResult(rcode);
  };
  // RFC 2136 3.1.2: a zone we are not the primary for is NOTAUTH, before its sections are looked at (a name
  // outside it would otherwise be NOTZONE). The service checks again inside its transaction.
  const found = await services.zones.byName(zone);
  if (!found || !isServedMaster(found)) return log(RCODE.NOTAUTH, `${zone} is not a zone this server is the primary for`);
  let sections: Sections;
  try {
    sections = readSections(raw, zone);
  } catch (e) {
    if (e instanceof UpdateFormError) return log(e.rcode, e.message);
    if (e instanceof WireError) return log(RCODE.FORMERR, e.message);
    throw e;
  }
  try {
    await services.updates.apply(key, { zone, ...sections, nameservers: ctx.nameservers, remoteAddr: ctx.remoteAddress });
    return emptyResult(RCODE.NOERROR);
  } catch (e) {
    if (e instanceof NotAuthoritative) return log(RCODE.NOTAUTH, e.message);
    if (e instanceof PrerequisiteFailed) return log(RCODE[e.rcode], e.message);
    // Refused by the key's scope, the registry's checks, the zone rules or a limit: the zone stays as it was.
    if (e instanceof UpdateRefused) return log(RCODE.REFUSED, e.message, { code: EDE.PROHIBITED, text: e.message });
    if (e instanceof ValidationError || e instanceof ConflictError || e instanceof LimitError) return log(RCODE.REFUSED, e.message);
    throw e;
  }
}
