/**
 * Many record changes to one zone as one write — DNS UPDATE, zone-file imports, bulk changes: records removed,
 * changed and added inside the caller's transaction, then the zone rules judged on the zone as the whole
 * batch leaves it (so a record replaced by a CNAME of the same name in one batch is fine), the record limit,
 * and one journal entry (`record.batch`) whose `before` and `after` list the records as they were and are.
 */
import type { StoredDomain } from '../model/domain.js';
import { LimitError } from '../model/errors.js';
import { keyOf } from '../model/labels.js';
import type { RecordData, StoredRecord } from '../model/records/index.js';
import { checkAtName } from '../model/zone-rules.js';
import type { StoreOps } from '../store/store.js';
import type { Limits } from './actor.js';
import type { JournalEntry } from './write.js';
import { checkNameServerAddresses, touchesNameServers } from './zone-checks.js';

export interface RecordBatch {
  remove: readonly StoredRecord[];
  /** Each stored record with what it becomes (same id and type). */
  change?: readonly { before: StoredRecord; after: RecordData }[];
  add: readonly RecordData[];
}

export interface BatchResult {
  added: StoredRecord[];
  changed: StoredRecord[];
  /** The journal entry to write, or null when the batch changes nothing. */
  journal: JournalEntry | null;
}

/** Applies `batch` to `domain` inside `tx`; throws (rolling the transaction back) on a broken zone rule or limit. */
export async function applyBatch(tx: StoreOps, domain: StoredDomain, batch: RecordBatch, limits: Limits, now: number): Promise<BatchResult> {
  const change = batch.change ?? [];
  if (batch.remove.length === 0 && batch.add.length === 0 && change.length === 0) return { added: [], changed: [], journal: null };
  const grows = batch.add.length - batch.remove.length;
  if (grows > 0 && (await tx.countRecords(domain.id)) + grows > limits.recordsPerDomain) {
    throw new LimitError('records', `A domain may hold at most ${limits.recordsPerDomain} records.`);
  }
  for (const r of batch.remove) await tx.deleteRecord(r.id);
  const changed: StoredRecord[] = [];
  for (const { before, after } of change) {
    await tx.updateRecord(before.id, after, now);
    changed.push({ ...after, type: before.type, id: before.id, domainId: domain.id });
  }
  const added = await tx.insertRecords(domain.id, batch.add, now);
  await checkNames(tx, domain, [...batch.remove, ...change.map((c) => c.before), ...changed, ...added]);
  return { added, changed, journal: { action: 'record.batch', objectId: null, before: [...batch.remove, ...change.map((c) => c.before)], after: [...changed, ...added] } };
}

/** Above this many names touched, the zone's records are read once rather than name by name. */
const NAMES_READ_ONE_BY_ONE = 32;

/** The zone rules at each name the batch touched, as it leaves them, and the apex name servers' addresses. */
async function checkNames(tx: StoreOps, domain: StoredDomain, touched: readonly RecordData[]): Promise<void> {
  const names = new Map<string, string>();
  for (const r of touched) if (!names.has(keyOf(r.name))) names.set(keyOf(r.name), r.name);
  let atName: ((name: string) => Promise<StoredRecord[]>) | null = null;
  if (names.size > NAMES_READ_ONE_BY_ONE) {
    // One read of the zone as the batch leaves it, grouped by name (ordered by id, as recordsAt gives them).
    const byName = new Map<string, StoredRecord[]>();
    for (const r of await tx.listRecords(domain.id)) {
      const key = keyOf(r.name);
      if (!names.has(key)) continue;
      const list = byName.get(key);
      if (list) list.push(r);
      else byName.set(key, [r]);
    }
    atName = async (name) => byName.get(keyOf(name)) ?? [];
  } else atName = (name) => tx.recordsAt(domain.id, name);
  for (const name of names.values()) {
    const problem = checkAtName(await atName(name), domain.domain);
    if (problem) throw problem;
  }
  if (touched.some(touchesNameServers)) await checkNameServerAddresses(tx, domain.id, domain.domain, null);
}
