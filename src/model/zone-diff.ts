/**
 * IXFR's difference sequences (RFC 1995 section 4) of a master zone, from its records and the journal
 * of changes since the client's serial (services/zone-writer.ts appends one row per change). A pure function:
 * the transfer reads records and journal as one version (services.zones.snapshot) and hands them here; it
 * sits in the model beside zoneContent and withRRsetTtls because what it sends must be exactly what they
 * make of each version, as AXFR sends it.
 */
import type { StoredDomain } from './domain.js';
import { ALIASES_RESOLVED } from './journal.js';
import { absoluteName } from './names.js';
import { recordType, type StoredRecord } from './records/index.js';
import { transferred } from './steering-transfer.js';
import { dataKey, distinctData, rrsetKey } from './zone-rules.js';
import { NONE_DOWN, serialNewer, soaOf, withRRsetTtls, zoneContent, type ZoneRecord } from './zone.js';

/**
 * What the diff reads of a journal row: a record change's `before` and `after` are StoredRecords (null when
 * none), or lists of them for a change of several records at once (`record.batch`, DNS UPDATE).
 */
export interface JournalRow {
  serial: number;
  action: string;
  before: unknown;
  after: unknown;
}

/** The records a journal row's `before` or `after` holds. */
export const recordsOf = (v: unknown): StoredRecord[] => (v == null ? [] : Array.isArray(v) ? (v as StoredRecord[]) : [v as StoredRecord]);

/** The records of `from` whose data is not in `other`, each data once, as a secondary compares them. */
const minus = (from: readonly ZoneRecord[], other: readonly ZoneRecord[]): ZoneRecord[] => distinctData(from, new Set(other.map(dataKey)));

/**
 * The journal rows after `serial` (from `changes`, ordered by id, the rows at `serial` among them), when they
 * take the zone from `serial` to the domain's serial by record changes alone; null when the journal cannot
 * say: `serial` unknown to it, a change other than to records in between, or nothing after it.
 */
export function recordChangesSince<R extends JournalRow>(domain: Pick<StoredDomain, 'serial'>, changes: readonly R[], serial: number): R[] | null {
  if (!changes.some((c) => c.serial === serial)) return null;
  const later = changes.filter((c) => serialNewer(c.serial, serial));
  if (later.some((c) => !c.action.startsWith('record.')) || later.at(-1)?.serial !== domain.serial) return null;
  return later;
}

const isAlias = (r: StoredRecord): boolean => recordType(r.type)?.addressAlias === true;

/**
 * Whether the zone holds ALIAS records, or its changes touched one or its targets' addresses: transfers carry
 * the addresses resolved at the time (dns/alias/transfer.ts), which the journal does not hold, so only the
 * whole zone is sure to be right.
 */
function resolvesAliases(records: readonly StoredRecord[], later: readonly JournalRow[]): boolean {
  return records.some(isAlias) || later.some((c) => c.action === ALIASES_RESOLVED || [...recordsOf(c.before), ...recordsOf(c.after)].some(isAlias));
}

/**
 * The IXFR difference sequences from `clientSerial` to the domain's serial, or null when the journal
 * cannot say (serial unknown to us, or a change other than to records in between) or when there are more
 * changes than records, so the whole zone is the shorter answer.
 *
 * Each version's sequence is worked out per RRset it touched, from the set as served before and after:
 * one TTL for the whole set (RFC 2181 5.2), so when a change moves that TTL, every record of the old set
 * is deleted and every record of the new one added. A secondary applying the differences then holds
 * exactly the records and TTLs an AXFR sends. `down`: the health checks down now, with which the records'
 * steering is transferred (model/steering-transfer.ts); a change of a check's status is journaled as no record
 * change, so the journal cannot span one and the whole zone goes instead.
 */
export function zoneDiff(
  domain: StoredDomain,
  records: readonly StoredRecord[],
  changes: readonly JournalRow[],
  clientSerial: number,
  nameservers: readonly string[],
  zoneSize: number,
  down: ReadonlySet<number> = NONE_DOWN,
): ZoneRecord[] | null {
  const later = recordChangesSince(domain, changes, clientSerial);
  if (!later || later.length > zoneSize || resolvesAliases(records, later)) return null;
  const keyOfRecord = (r: StoredRecord) => rrsetKey({ name: absoluteName(r.name, domain.domain), type: r.type });
  // The records by RRset, as they stood at the client's serial: the current ones with every later change undone.
  const sets = new Map<string, Map<number, StoredRecord>>();
  const put = (r: StoredRecord) => {
    const key = keyOfRecord(r);
    const set = sets.get(key);
    if (set) set.set(r.id, r);
    else sets.set(key, new Map([[r.id, r]]));
  };
  const drop = (r: StoredRecord) => sets.get(keyOfRecord(r))?.delete(r.id);
  const apply = (c: JournalRow, forward: boolean) => {
    const [gone, come] = forward ? [c.before, c.after] : [c.after, c.before];
    for (const r of recordsOf(gone)) drop(r);
    for (const r of recordsOf(come)) put(r);
  };
  for (const r of records) put(r);
  for (let j = later.length - 1; j >= 0; j--) apply(later[j] as JournalRow, false);
  // One RRset as served (the apex NS set includes the configured name servers).
  const served = (key: string) => withRRsetTtls(transferred(zoneContent(domain, [...(sets.get(key)?.values() ?? [])], nameservers, down).answers).filter((a) => rrsetKey(a) === key));
  const out: ZoneRecord[] = [];
  let from = clientSerial;
  let i = 0;
  while (i < later.length) {
    const serial = later[i]?.serial as number;
    const version: JournalRow[] = [];
    for (; i < later.length && later[i]?.serial === serial; i++) version.push(later[i] as JournalRow);
    const touched = new Set<string>();
    for (const c of version) for (const r of [...recordsOf(c.before), ...recordsOf(c.after)]) touched.add(keyOfRecord(r));
    const old = new Map([...touched].map((key) => [key, served(key)]));
    for (const c of version) apply(c, true);
    const removed: ZoneRecord[] = [];
    const added: ZoneRecord[] = [];
    for (const [key, was] of old) {
      const now = served(key);
      const ttlMoved = was.length > 0 && now.length > 0 && was[0]?.ttl !== now[0]?.ttl;
      removed.push(...(ttlMoved ? was : minus(was, now)));
      added.push(...(ttlMoved ? now : minus(now, was)));
    }
    out.push(soaOf({ ...domain, serial: from }, nameservers), ...removed, soaOf({ ...domain, serial }, nameservers), ...added);
    from = serial;
  }
  return out;
}
