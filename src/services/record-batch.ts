/**
 * Many record changes to one zone as one write — DNS UPDATE, zone-file imports, bulk changes: the zone rules
 * judged on the zone as the whole batch leaves it (so a record replaced by a CNAME of the same name in one
 * batch is fine) and the record limit, then records removed, changed and added inside the caller's
 * transaction, and one journal entry (`record.batch`) whose `before` and `after` list the records as they were and are.
 */
import type { StoredDomain } from '../model/domain.js';
import { LimitError } from '../model/errors.js';
import { keyOf } from '../model/labels.js';
import type { RecordData, StoredRecord } from '../model/records/index.js';
import { recordType } from '../model/records/index.js';
import { checkAtName, hasAddress, inZoneNameServers, nameServerWithoutAddress } from '../model/zone-rules.js';
import type { RecordStore } from '../store/records.js';
import type { AccountStore } from '../store/accounts.js';
import { accountLimits, type Limits } from './actor.js';
import type { JournalEntry } from './zone-writer.js';
import { checkNameServerAddresses, touchesNameServers } from './zone-checks.js';

export interface RecordBatch {
  remove: readonly StoredRecord[];
  /** Each stored record with what it becomes (same id and type). */
  change?: readonly { before: StoredRecord; after: RecordData }[];
  add: readonly RecordData[];
}

/**
 * What a caller already read of the zone in this transaction, under the domain's lock, so that the batch is
 * judged in memory before anything is written, with no reads after (each read is a round trip on PostgreSQL,
 * made while the zone's lock is held): the whole zone (imports and bulk changes read it to plan), or the names
 * a DNS UPDATE message names.
 */
export interface KnownZone {
  /** Records in the zone before the batch. */
  count: number;
  /** The records at a name as stored before the batch, ordered by id (as recordsAt gives them); every name the batch touches is known. */
  atName(name: string): readonly StoredRecord[];
  /** The zone's apex records as stored before the batch. */
  apex: readonly StoredRecord[];
  /** Every name is known (the whole zone was read), not only those the batch touches. */
  whole: boolean;
  /**
   * The caller has judged the zone rules on the zone exactly as the batch leaves it (a zone file is the whole
   * zone, and checkFileRecords judged it to name each broken rule by its line; a bulk change's checkZone, to
   * name the items at fault): not judged again.
   */
  judged?: boolean;
}

/** Items grouped by the lookup key of their owner name, each group in the order given. */
function byName<T>(items: readonly T[], nameOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(nameOf(item));
    const list = groups.get(key);
    if (list) list.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** The whole zone as read (ordered by id) as a KnownZone; `judged` as KnownZone's. */
export function wholeZone(records: readonly StoredRecord[], judged = false): KnownZone {
  const grouped = byName(records, (r) => r.name);
  const atName = (name: string) => grouped.get(keyOf(name)) ?? [];
  return { count: records.length, atName, apex: atName(''), whole: true, judged };
}

/**
 * Whether `known` is enough to judge `batch` before writing: always for the whole zone; for some names only
 * when the apex NS set stays (a new in-zone name server needs an address at a name not read).
 */
export function judgeableInMemory(batch: RecordBatch, known: Pick<KnownZone, 'whole'>): boolean {
  return known.whole || (![...batch.remove, ...batch.add, ...(batch.change ?? []).flatMap((c) => [c.before, c.after])].some((r) => r.name === '' && recordType(r.type)?.nameServer));
}

export interface BatchResult {
  added: StoredRecord[];
  changed: StoredRecord[];
  /** The journal entry to write, or null when the batch changes nothing. */
  journal: JournalEntry | null;
}

/**
 * Applies `batch` to `domain` inside `tx`; throws on a broken zone rule or limit. Without `known` the rules are
 * judged on the zone as stored after the writes (the transaction rolls back on a refusal); with it (when
 * judgeableInMemory) they are judged before any write, so a refusal writes nothing.
 */
export async function applyBatch(tx: RecordStore & Pick<AccountStore, 'accountById'>, domain: StoredDomain, batch: RecordBatch, limits: Limits, now: number, known?: KnownZone): Promise<BatchResult> {
  const change = batch.change ?? [];
  if (batch.remove.length === 0 && batch.add.length === 0 && change.length === 0) return { added: [], changed: [], journal: null };
  const grows = batch.add.length - batch.remove.length;
  if (grows > 0) {
    const { recordsPerDomain } = await accountLimits(tx, limits, domain.accountId);
    if ((known ? known.count : await tx.countRecords(domain.id)) + grows > recordsPerDomain) {
      throw new LimitError('records', `A domain may hold at most ${recordsPerDomain} records.`);
    }
  }
  const judged = known !== undefined && judgeableInMemory(batch, known);
  if (judged && !known.judged) judgeNames(domain, batch, known);
  for (const r of batch.remove) await tx.deleteRecord(r.id);
  const changed: StoredRecord[] = [];
  for (const { before, after } of change) {
    await tx.updateRecord(before.id, after, now);
    changed.push({ ...after, type: before.type, id: before.id, domainId: domain.id });
  }
  const added = await tx.insertRecords(domain.id, batch.add, now);
  if (!judged) await checkNames(tx, domain, [...batch.remove, ...change.map((c) => c.before), ...changed, ...added]);
  return { added, changed, journal: { action: 'record.batch', objectId: null, before: [...batch.remove, ...change.map((c) => c.before)], after: [...changed, ...added] } };
}

/** checkNames on the zone as `known` and the batch (judgeableInMemory) leave it, before anything is written. */
function judgeNames(domain: StoredDomain, batch: RecordBatch, known: KnownZone): void {
  const change = batch.change ?? [];
  const gone = new Set([...batch.remove.map((r) => r.id), ...change.map((c) => c.before.id)]);
  const touched = [...batch.remove, ...change.flatMap((c) => [c.before, c.after]), ...batch.add];
  const names = new Map<string, string>();
  for (const r of touched) if (!names.has(keyOf(r.name))) names.set(keyOf(r.name), r.name);
  // Changed and added records by name, grouped once: a batch of 10,000 names must not scan itself per name.
  const changedAt = byName(change, (c) => c.after.name);
  const addedAt = byName(batch.add, (r) => r.name);
  /** The records at a name as stored after the writes: by id (a changed record keeps its id), the added last. */
  const after = (name: string): RecordData[] => {
    const key = keyOf(name);
    if (!names.has(key)) return [...known.atName(name)];
    const kept: { id: number; rec: RecordData }[] = known.atName(name).filter((r) => !gone.has(r.id)).map((r) => ({ id: r.id, rec: r }));
    for (const c of changedAt.get(key) ?? []) kept.push({ id: c.before.id, rec: c.after });
    kept.sort((a, b) => a.id - b.id);
    return [...kept.map((k) => k.rec), ...(addedAt.get(key) ?? [])];
  };
  for (const name of names.values()) {
    const problem = checkAtName(after(name), domain.domain);
    if (problem) throw problem;
  }
  // The apex NS set's hosts inside the zone keep an address: all of them when that set changes, else those touched.
  if (!touched.some(touchesNameServers)) return;
  const apexChanged = touched.some((r) => r.name === '' && recordType(r.type)?.nameServer);
  for (const { name, host } of inZoneNameServers(names.has('') ? after('') : known.apex, domain.domain)) {
    if ((apexChanged || names.has(keyOf(name))) && !hasAddress(after(name))) throw nameServerWithoutAddress(host, domain.domain, null);
  }
}

/** Above this many names touched, the zone's records are read once rather than name by name. */
const NAMES_READ_ONE_BY_ONE = 32;

/** The zone rules at each name the batch touched, as the store holds them after the writes, and the apex name servers' addresses. */
async function checkNames(tx: Pick<RecordStore, 'recordsAt' | 'listRecords'>, domain: StoredDomain, touched: readonly RecordData[]): Promise<void> {
  const names = new Map<string, string>();
  for (const r of touched) if (!names.has(keyOf(r.name))) names.set(keyOf(r.name), r.name);
  let atName: ((name: string) => Promise<readonly StoredRecord[]>) | null = null;
  if (names.size > NAMES_READ_ONE_BY_ONE) {
    // One read of the zone as the batch leaves it, grouped by name (ordered by id, as recordsAt gives them).
    const grouped = byName(await tx.listRecords(domain.id), (r) => r.name);
    atName = async (name) => grouped.get(keyOf(name)) ?? [];
  } else atName = (name) => tx.recordsAt(domain.id, name);
  for (const name of names.values()) {
    const problem = checkAtName(await atName(name), domain.domain);
    if (problem) throw problem;
  }
  if (touched.some(touchesNameServers)) await checkNameServerAddresses(tx, domain.id, domain.domain, null);
}
