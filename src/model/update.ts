/**
 * DNS UPDATE (RFC 2136) as zone logic, apart from the wire: its prerequisites (2.4) checked against the zone
 * as served, and its updates (2.5) applied in order to the records at the names they touch. The outcome is
 * a plan — records to remove, records to add — that the update service writes in one transaction and then
 * checks with the zone rules like any other write.
 */
import { keyOf } from './labels.js';
import type { RecordData, StoredRecord } from './records/index.js';
import { dataKey } from './zone-rules.js';

/** The prerequisites of RFC 2136 2.4 (names relative to the zone, "" the apex). */
export type Prerequisite =
  /** 2.4.1: an RRset of the type exists (value-independent). */
  | { kind: 'exists'; name: string; type: string }
  /** 2.4.2: the RRset is exactly these records (value-dependent). */
  | { kind: 'exists-with'; name: string; type: string; records: RecordData[] }
  /** 2.4.3: no RRset of the type. */
  | { kind: 'absent'; name: string; type: string }
  /** 2.4.4: the name owns at least one record. */
  | { kind: 'in-use'; name: string }
  /** 2.4.5: the name owns no record. */
  | { kind: 'unused'; name: string };

/** The updates of RFC 2136 2.5. */
export type UpdateOp =
  | { kind: 'add'; record: RecordData }
  | { kind: 'delete-rrset'; name: string; type: string }
  | { kind: 'delete-name'; name: string }
  | { kind: 'delete-record'; record: RecordData };

/** The rcodes a failed prerequisite answers with (RFC 2136 3.2). */
export type PrerequisiteRcode = 'NXDOMAIN' | 'YXDOMAIN' | 'NXRRSET' | 'YXRRSET';

export class PrerequisiteFailed extends Error {
  constructor(
    readonly rcode: PrerequisiteRcode,
    message: string,
  ) {
    super(message);
  }
}

/** The records at one name: those stored, and those the service makes (the SOA and its own NS records at the apex). */
export interface AtName {
  stored: readonly StoredRecord[];
  service: readonly RecordData[];
}

export interface UpdatePlan {
  remove: StoredRecord[];
  add: RecordData[];
}

const label = (name: string): string => (name === '' ? '@' : name);

/** Checks the prerequisites in order; throws PrerequisiteFailed at the first that does not hold. */
export function checkPrerequisites(prereqs: readonly Prerequisite[], at: (name: string) => AtName): void {
  for (const p of prereqs) {
    const { stored, service } = at(p.name);
    const served: readonly RecordData[] = [...service, ...stored];
    const ofType = (type: string) => served.filter((r) => r.type === type);
    switch (p.kind) {
      case 'exists':
        if (ofType(p.type).length === 0) throw new PrerequisiteFailed('NXRRSET', `${label(p.name)} has no ${p.type} records`);
        break;
      case 'exists-with': {
        const have = new Set(ofType(p.type).map(dataKey));
        const want = new Set(p.records.map(dataKey));
        if (have.size !== want.size || [...want].some((k) => !have.has(k))) throw new PrerequisiteFailed('NXRRSET', `the ${p.type} records of ${label(p.name)} are not the ones given`);
        break;
      }
      case 'absent':
        if (ofType(p.type).length > 0) throw new PrerequisiteFailed('YXRRSET', `${label(p.name)} has ${p.type} records`);
        break;
      case 'in-use':
        if (served.length === 0) throw new PrerequisiteFailed('NXDOMAIN', `${label(p.name)} owns no records`);
        break;
      case 'unused':
        if (served.length > 0) throw new PrerequisiteFailed('YXDOMAIN', `${label(p.name)} owns records`);
        break;
    }
  }
}

/** The name an update touches. */
export const opName = (op: UpdateOp): string => (op.kind === 'add' || op.kind === 'delete-record' ? op.record.name : op.name);

/**
 * Applies the updates in order (RFC 2136 3.4.2) to the records at their names. The SOA and the service's own
 * apex NS records are the service's: adding, deleting or changing them does nothing (3.4.2.2 allows it for
 * the SOA; the service keeps its name servers). Deleting every RRset at the apex keeps its NS records (3.4.2.3).
 * Adding a record whose data is already there only sets its TTL (3.4.2.2). `hosted(type)`: whether a
 * customer can hold records of the type (SOA cannot); `records` must already be checked.
 */
export function planUpdate(ops: readonly UpdateOp[], at: (name: string) => AtName, hosted: (type: string) => boolean, isNameServer: (type: string) => boolean): UpdatePlan {
  // Each record's data key is worked out once, and each name counts the keys it holds: an update may carry
  // thousands of records at one name, and each must not cost a pass over all the others.
  const keys = new Map<RecordData, string>();
  const keyOfData = (r: RecordData): string => {
    let k = keys.get(r);
    if (k === undefined) keys.set(r, (k = dataKey(r)));
    return k;
  };
  const counted = (list: readonly RecordData[]): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const r of list) counts.set(keyOfData(r), (counts.get(keyOfData(r)) ?? 0) + 1);
    return counts;
  };
  /** The working records by name: a stored record keeps its id until it is removed or replaced. */
  const names = new Map<string, { name: string; list: (RecordData | StoredRecord)[]; counts: Map<string, number>; service: Set<string> }>();
  const working = (name: string) => {
    const key = keyOf(name);
    let entry = names.get(key);
    if (!entry) {
      const { stored, service } = at(name);
      names.set(key, (entry = { name, list: [...stored], counts: counted(stored), service: new Set(service.map(keyOfData)) }));
    }
    return entry;
  };
  for (const op of ops) {
    const name = opName(op);
    const entry = working(name);
    const list = entry.list;
    const drop = (pred: (r: RecordData) => boolean) => {
      const kept = list.filter((r) => !pred(r));
      if (kept.length === list.length) return;
      list.splice(0, list.length, ...kept);
      entry.counts = counted(list);
    };
    switch (op.kind) {
      case 'add': {
        const rec = op.record;
        const key = keyOfData(rec);
        if (!hosted(rec.type) || entry.service.has(key)) break;
        if (!entry.counts.get(key)) {
          list.push(rec);
          entry.counts.set(key, 1);
          break;
        }
        const same = list.findIndex((r) => keyOfData(r) === key);
        if ((list[same] as RecordData).ttl !== rec.ttl) list[same] = rec;
        break;
      }
      case 'delete-rrset':
        drop((r) => r.type === op.type);
        break;
      case 'delete-name':
        drop((r) => !(name === '' && isNameServer(r.type)));
        break;
      case 'delete-record': {
        const key = keyOfData(op.record);
        if (entry.counts.get(key)) drop((r) => keyOfData(r) === key);
        break;
      }
    }
  }
  const remove: StoredRecord[] = [];
  const add: RecordData[] = [];
  for (const { name, list } of names.values()) {
    const original = at(name).stored;
    const stillThere = new Set(list.filter((r): r is StoredRecord => 'id' in r).map((r) => r.id));
    for (const r of original) if (!stillThere.has(r.id)) remove.push(r);
    for (const r of list) if (!('id' in r)) add.push(r);
  }
  return { remove, add };
}
