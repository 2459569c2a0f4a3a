/**
 * The rules that span records of one zone, as pure functions: every writer (the API services, zone mirrors,
 * and next DNS UPDATE, zone-file imports and bulk changes) checks its result with these.
 *
 * - A CNAME is alone at its name (RFC 1034 3.6.2, RFC 2181 10.1), but for its DNSSEC records (RFC 4035 2.5).
 * - An ALIAS stands beside no A or AAAA record (it answers for them), and a name holds one.
 * - No record twice: two records of a type are one when DNS would serve the same data (RFC 2181 5).
 * - An RRset fits one DNS message.
 * - A type that needs another at its name has it (DS only at a delegation: RFC 4034 5).
 * - Every host inside the zone named by its apex NS records has an address there.
 */
import { ConflictError } from './errors.js';
import { keyOf } from './labels.js';
import { absoluteName, relativeName } from './names.js';
import { mainField, MAX_RRSET_BYTES, recordType, recordWireSize, rrsetWireSize, wireDataKey, type RecordData } from './records/index.js';
import { steeredAliases } from './steered-aliases.js';

/** Which RRset a record belongs to: its owner (letter case aside) and type. */
export const rrsetKey = (a: { name: string; type: string }): string => `${keyOf(a.name)} ${a.type}`;

/** A record's identity as data: two records with the same key are the same record (RFC 2181 5). */
export const dataKey = (rec: RecordData): string => identity(rec).key;

/**
 * dataKey, and the length of the record's rdata (its canonical form is as long as its plain one: only the
 * letter case of names differs), from one encoding.
 */
function identity(rec: RecordData): { key: string; rdataLength: number } {
  const t = recordType(rec.type);
  if (!t) return { key: `${rrsetKey(rec)} ${JSON.stringify(rec.data)}`, rdataLength: 0 };
  const wire = wireDataKey(t, rec.data);
  return { key: `${rrsetKey(rec)} ${wire}`, rdataLength: wire.length };
}

const ownerLabel = (name: string, zone: string): string => absoluteName(name, zone);

/**
 * The conflict `rec` would make among `others`, the zone's other records at its name (any letter case), or
 * null: a CNAME beside other data, a duplicate, or an RRset too large.
 */
export function conflictAtName(rec: RecordData, others: readonly RecordData[], zone: string): ConflictError | null {
  if (others.length === 0) return null;
  if (steeredAliases([rec, ...others])) return others.some((r) => dataKey(r) === dataKey(rec)) ? duplicate(rec, zone) : null;
  if (recordType(rec.type)?.exclusive) return aliasBesideData(rec, others[0] as RecordData, zone);
  const exclusive = others.find((r) => recordType(r.type)?.exclusive);
  if (exclusive) return dataBesideAlias(rec, exclusive, zone);
  const addresses = addressAliasConflict([rec, ...others], zone);
  if (addresses) return addresses;
  const key = dataKey(rec);
  if (others.some((r) => r.type === rec.type && dataKey(r) === key)) return duplicate(rec, zone);
  const size = rrsetWireSize([...others.filter((r) => r.type === rec.type), rec], zone);
  return size > MAX_RRSET_BYTES ? rrsetTooLarge(rec, size, zone) : null;
}

const field = (rec: RecordData): string => {
  const t = recordType(rec.type);
  return t ? mainField(t) : 'name';
};

const aliasBesideData = (rec: RecordData, other: RecordData, zone: string): ConflictError =>
  new ConflictError('name', `A ${rec.type} record cannot share its name with other records, and ${ownerLabel(rec.name, zone)} already has ${other.type} data.`);

const dataBesideAlias = (rec: RecordData, exclusive: RecordData, zone: string): ConflictError =>
  new ConflictError('name', `${ownerLabel(rec.name, zone)} is an alias (${exclusive.type}), so it cannot hold other records.`);

const duplicate = (rec: RecordData, zone: string): ConflictError => new ConflictError(field(rec), `An identical ${rec.type} record for ${ownerLabel(rec.name, zone)} already exists.`);

const rrsetTooLarge = (rec: RecordData, size: number, zone: string): ConflictError =>
  new ConflictError(
    field(rec),
    `The ${rec.type} records of ${ownerLabel(rec.name, zone)} would take ${size} bytes, more than one DNS message can carry (${MAX_RRSET_BYTES}); no query for them could ever be answered. Shorten or remove some first.`,
  );

/**
 * The rules at one name as a write leaves it, for writes that change several records at once (DNS UPDATE):
 * each record against those before it (what conflictAtName finds, from running totals, so that thousands of
 * records take linear time), then the types they require.
 */
export function checkAtName(records: readonly RecordData[], zone: string): ConflictError | null {
  if (records.length > 1 && steeredAliases(records)) return distinctData(records).length < records.length ? duplicate(records.at(-1) as RecordData, zone) : null;
  const keys = new Set<string>();
  const sizes = new Map<string, number>();
  let exclusive: RecordData | undefined;
  for (let i = 0; i < records.length; i++) {
    const rec = records[i] as RecordData;
    const { key, rdataLength } = identity(rec);
    const size = (sizes.get(rec.type) ?? 0) + recordWireSize(rec.name, zone, rdataLength);
    if (i > 0) {
      if (recordType(rec.type)?.exclusive) return aliasBesideData(rec, records[0] as RecordData, zone);
      if (exclusive) return dataBesideAlias(rec, exclusive, zone);
      if (keys.has(key)) return duplicate(rec, zone);
      if (size > MAX_RRSET_BYTES) return rrsetTooLarge(rec, size, zone);
    }
    if (!exclusive && recordType(rec.type)?.exclusive) exclusive = rec;
    keys.add(key);
    sizes.set(rec.type, size);
  }
  return addressAliasConflict(records, zone) ?? missingAtName(records, zone);
}

/**
 * The records at one name hold an ALIAS (`addressAlias`) beside an address record (A, AAAA), which it answers
 * for, or beside another ALIAS (allowed when every one has steering: an answer holds one of them); null
 * otherwise. The first record is the one a single write adds.
 */
export function addressAliasConflict(records: readonly RecordData[], zone: string): ConflictError | null {
  const aliases = records.filter((r) => recordType(r.type)?.addressAlias);
  if (aliases.length === 0) return null;
  const first = records[0] as RecordData;
  const owner = ownerLabel(first.name, zone);
  const address = records.find((r) => recordType(r.type)?.address);
  if (address) {
    return new ConflictError(
      'name',
      `${owner} cannot hold both an ${(aliases[0] as RecordData).type} record and ${address.type} records: the ${(aliases[0] as RecordData).type} answers A and AAAA queries there with its target's addresses. Delete one of them first.`,
    );
  }
  if (aliases.length > 1 && !steeredAliases(aliases)) {
    return new ConflictError('name', `${owner} already has an ${(aliases[0] as RecordData).type} record; a name holds one (change its target instead), or several when each has steering.`);
  }
  return null;
}

/** The records at one name lack a type one of them requires (DS without NS), or null. */
export function missingAtName(records: readonly RecordData[], zone: string): ConflictError | null {
  for (const r of records) {
    const needs = recordType(r.type)?.requires;
    if (needs && !records.some((o) => o.type === needs)) {
      return new ConflictError(
        null,
        `${ownerLabel(r.name, zone)} has ${r.type} records, which are only allowed where the name has ${needs} records (a delegated sub-domain); add the ${needs} records first, and delete the ${r.type} records before the last ${needs} record.`,
      );
    }
  }
  return null;
}

/** The hosts inside the zone that its apex NS records name (relative names), each once. */
export function inZoneNameServers(apex: readonly RecordData[], zone: string): { name: string; host: string }[] {
  const out = new Map<string, { name: string; host: string }>();
  for (const ns of apex) {
    const t = recordType(ns.type);
    if (!t?.nameServer || ns.name !== '') continue;
    const host = t.additionalTarget?.(ns.data);
    // The host is absolute: with its dot, one outside the zone is null.
    const name = host ? relativeName(`${host}.`, zone) : null;
    if (host && name !== null) out.set(keyOf(name), { name, host });
  }
  return [...out.values()];
}

/** Whether the records at a name include an address (A, AAAA). */
export const hasAddress = (records: readonly RecordData[]): boolean => records.some((r) => recordType(r.type)?.address);

export function nameServerWithoutAddress(host: string, zone: string, field: string | null): ConflictError {
  return new ConflictError(
    field,
    `${host} is a name server of ${zone} (an NS record at its apex) and lies inside it, so it needs an A or AAAA record there: ` +
      'create the address before such an NS record, and delete or change the NS record before its last address.',
  );
}

/**
 * The records whose data (dataKey) is not in `seen`, each data once, in order: an RRset holds a data once
 * (RFC 2181 5). `seen` takes in the keys of the records kept.
 */
export function distinctData<T extends RecordData>(records: readonly T[], seen = new Set<string>()): T[] {
  const kept: T[] = [];
  for (const r of records) {
    const key = dataKey(r);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(r);
  }
  return kept;
}

/**
 * A whole zone's records as a master sent them (a mirror) or a file gives them: duplicates dropped (RFC 2181
 * 5), and an error for a CNAME beside other data (DNSSEC's records aside: RRSIG, NSEC and NSEC3 may sit
 * beside it) or a type missing the type it needs at its name.
 */
export function checkZone(records: readonly RecordData[], zone: string): { kept: RecordData[]; error: string | null } {
  const kept = distinctData(records);
  const byName = new Map<string, RecordData[]>();
  for (const r of kept) {
    const owner = keyOf(r.name);
    const at = byName.get(owner);
    if (at) at.push(r);
    else byName.set(owner, [r]);
  }
  for (const [, at] of byName) {
    // A signed zone's RRSIG and NSEC records sit beside its CNAMEs (RFC 4035 2.5, RFC 2181 10.1).
    const data = at.filter((r) => !recordType(r.type)?.dnssec);
    if (data.length > 1 && data.some((r) => recordType(r.type)?.exclusive)) {
      return { kept, error: `${ownerLabel(data[0]?.name ?? '', zone)}: a CNAME cannot share its name with other records (${data.map((r) => r.type).join(', ')})` };
    }
    const missing = addressAliasConflict(at, zone) ?? missingAtName(at, zone);
    if (missing) return { kept, error: missing.message };
  }
  return { kept, error: null };
}
