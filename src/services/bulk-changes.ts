/**
 * Bulk changes: many record creates, updates and deletes to one zone as one write, all or nothing. Every item
 * is judged before anything is written, with every problem collected and named by the item's position; then
 * the zone rules are judged on the zone as the whole list leaves it (so an A record replaced by a CNAME of
 * the same name in one request is fine), and the change is applied by applyBatch: one transaction, one
 * serial increase, one `record.batch` journal entry.
 *
 * The work per request is one read of the zone's records, inside the write under the domain's lock, and
 * then work in memory proportional to the items and the names they touch.
 */
import type { StoredDomain } from '../model/domain.js';
import { ConflictError, LimitError, ValidationError, ZoneHostError } from '../model/errors.js';
import { keyOf } from '../model/labels.js';
import { checkRecord, fromV1, recordType, toV1, type RecordData, type RecordType, type StoredRecord } from '../model/records/index.js';
import { checkAtName, hasAddress, inZoneNameServers, nameServerWithoutAddress } from '../model/zone-rules.js';
import { checkRecordWrite, checkWrite } from '../model/key-scope.js';
import { accountLimits, scopeOf, type Actor, type Limits } from './actor.js';
import type { DomainService } from './domains.js';
import { applyBatch, wholeZone, type BatchResult } from './record-batch.js';
import { checkSteeringRefs } from './health-checks.js';
import type { Precondition, ZoneWriter } from './zone-writer.js';
import { touchesNameServers } from './zone-checks.js';

export const CHANGE_OPS = ['create', 'update', 'delete'] as const;
export type ChangeOp = (typeof CHANGE_OPS)[number];

/**
 * One item of a change list as a door received it: `op`, `type`, `id` (update, delete) and the type's own
 * fields (the registry's v1 fields: `name`, `ttl`, `address`, ...). Nothing is trusted: every part is checked.
 */
export interface ChangeItem {
  op: unknown;
  type: unknown;
  id?: unknown;
  fields: Record<string, unknown>;
}

/** What one item did, in the order of the request. */
export type ChangeOutcome = { op: 'create' | 'update'; record: StoredRecord } | { op: 'delete'; record: StoredRecord };

/** One problem of a change list: the item (its index; null for the list as a whole) and its field (a dotted path; null for the item). */
export interface ItemProblem {
  index: number | null;
  field: string | null;
  message: string;
}

/** The change list was refused; nothing was written. Every problem found is listed. */
export class ChangesRejected extends ZoneHostError {
  constructor(readonly problems: ItemProblem[]) {
    super(problems.map((p) => p.message).join(' '));
  }
}

export interface ChangeOptions {
  /** Checked on the locked domain inside the write, before anything is read or changed (interface B's If-Match). */
  precondition?: Precondition<StoredDomain>;
  remoteAddr?: string;
  /**
   * Problems a door already found in items (e.g. against its schema), by index: those items are reported
   * with them and not judged further here, while every other item still is.
   */
  found?: ReadonlyMap<number, readonly ItemProblem[]>;
}

interface Judged {
  remove: { index: number; before: StoredRecord }[];
  change: { index: number; before: StoredRecord; after: RecordData }[];
  add: { index: number; rec: RecordData }[];
  /** For each item, in order: what it is (filled in when it passed). */
  plan: ({ kind: 'add'; at: number } | { kind: 'change'; at: number } | { kind: 'remove'; at: number })[];
}

export class BulkChangeService {
  constructor(
    private readonly writer: ZoneWriter,
    private readonly domains: DomainService,
    private readonly limits: Limits,
  ) {}

  /**
   * Applies `items` to the actor's master domain `domainId`, all or none: throws ChangesRejected (nothing
   * written) when any item or the zone as the items leave it breaks a rule. Returns each item's outcome in
   * order and the zone's serial afterwards (unchanged for an empty list). `items` may be made from the zone's
   * records as read under the domain's lock (a door that names RRsets rather than record ids: PowerDNS's PATCH),
   * so no other write comes between the read they are made from and their write.
   */
  async apply(
    actor: Actor,
    domainId: number,
    itemsOf: readonly ChangeItem[] | ((stored: readonly StoredRecord[], domain: StoredDomain) => readonly ChangeItem[]),
    opts: ChangeOptions = {},
  ): Promise<{ outcomes: ChangeOutcome[]; serial: number }> {
    const { value, serial } = await this.writer.write(actor, async (tx, now) => {
      const domain = await this.domains.locked(tx, actor, domainId);
      if (domain.kind !== 'master') {
        throw ValidationError.one('domain', `The domain ${domain.domain} is a zone mirror (type slave); its records come from its masters and cannot be edited.`);
      }
      const scope = scopeOf(actor);
      checkWrite(scope);
      await opts.precondition?.(domain, tx);
      const stored = await tx.listRecords(domain.id);
      const items = typeof itemsOf === 'function' ? itemsOf(stored, domain) : itemsOf;
      if (items.length === 0) return { value: { outcomes: [] as ChangeOutcome[], serial: domain.serial }, change: null, journal: [] };
      const judged = this.judge(domain, stored, items, opts);
      // The key's scope is one rule for the whole list (403), not a problem of one item.
      for (const r of [...judged.remove.map((x) => x.before), ...judged.change.flatMap((x) => [x.before, x.after]), ...judged.add.map((x) => x.rec)]) {
        checkRecordWrite(scope, r.name, r.type);
      }
      this.checkZone(domain, stored, judged, items.length, (await accountLimits(tx, this.limits, domain.accountId)).recordsPerDomain);
      await checkSteeringRefs(tx, domain.accountId, [...judged.change.map((c) => c.after), ...judged.add.map((a) => a.rec)]);
      let result: BatchResult;
      try {
        result = await applyBatch(
          tx,
          domain,
          { remove: judged.remove.map((r) => r.before), change: judged.change.map(({ before, after }) => ({ before, after })), add: judged.add.map((a) => a.rec) },
          this.limits,
          now,
          // checkZone judged the zone rules on the zone exactly as the list leaves it: not judged again.
          wholeZone(stored, true),
        );
      } catch (e) {
        // The checks above judge what applyBatch checks (the record limit); should it still refuse, the list as a whole is at fault.
        if (e instanceof ConflictError || e instanceof LimitError) throw new ChangesRejected([{ index: null, field: null, message: e.message }]);
        throw e;
      }
      const outcomes: ChangeOutcome[] = judged.plan.map((p) =>
        p.kind === 'add'
          ? { op: 'create', record: result.added[p.at] as StoredRecord }
          : p.kind === 'change'
            ? { op: 'update', record: result.changed[p.at] as StoredRecord }
            : { op: 'delete', record: (judged.remove[p.at] as { before: StoredRecord }).before },
      );
      return {
        value: { outcomes, serial: 0 },
        change: { domainId: domain.id, domain: domain.domain, kind: 'records.changed' },
        journal: result.journal ? [result.journal] : [],
      };
    });
    return { outcomes: value.outcomes, serial: serial || value.serial };
  }

  /** Every item against the registry and the zone's stored records; throws every problem found. */
  private judge(domain: StoredDomain, stored: readonly StoredRecord[], items: readonly ChangeItem[], opts: ChangeOptions): Judged {
    const byId = new Map(stored.map((r) => [r.id, r]));
    const problems: ItemProblem[] = [];
    const seen = new Map<number, number>();
    const out: Judged = { remove: [], change: [], add: [], plan: [] };
    const ctx = { zone: domain.domain, ...(opts.remoteAddr === undefined ? {} : { remoteAddr: opts.remoteAddr }) };
    items.forEach((item, index) => {
      const found = opts.found?.get(index);
      if (found && found.length > 0) {
        problems.push(...found);
        return;
      }
      const bad = (field: string | null, message: string) => problems.push({ index, field, message });
      const op = item.op;
      if (typeof op !== 'string' || !(CHANGE_OPS as readonly string[]).includes(op)) {
        bad('op', `The operation must be one of ${CHANGE_OPS.join(', ')}.`);
        return;
      }
      const t: RecordType | undefined = typeof item.type === 'string' ? recordType(item.type) : undefined;
      if (!t || t.hosted === false) {
        bad('type', `The record type ${JSON.stringify(item.type ?? null)} is not one this service hosts.`);
        return;
      }
      if (op === 'create') {
        if (item.id !== undefined) {
          bad('id', 'A record to create has no id yet (the server gives it one).');
          return;
        }
        const rec = fromV1(t, item.fields);
        const p = checkRecord(rec, ctx);
        if (!p.empty) {
          for (const x of p.list) bad(x.field, x.message);
          return;
        }
        out.plan.push({ kind: 'add', at: out.add.length });
        out.add.push({ index, rec });
        return;
      }
      const current = recordToChange(item, index, t, byId, seen, bad);
      if (!current) return;
      if (op === 'delete') {
        out.plan.push({ kind: 'remove', at: out.remove.length });
        out.remove.push({ index, before: current });
        return;
      }
      // An update lays the given fields over the record as stored, as PATCH does; the type never changes.
      const rec = { ...fromV1(t, { ...toV1(current), ...item.fields }), type: current.type };
      const p = checkRecord(rec, ctx);
      if (!p.empty) {
        for (const x of p.list) bad(x.field, x.message);
        return;
      }
      out.plan.push({ kind: 'change', at: out.change.length });
      out.change.push({ index, before: current, after: rec });
    });
    if (problems.length > 0) throw new ChangesRejected(problems);
    return out;
  }

  /**
   * The zone rules on the zone as the items leave it, at every name they touch, and the record limit; the
   * problems name the items that touch the name at fault.
   */
  private checkZone(domain: StoredDomain, stored: readonly StoredRecord[], j: Judged, itemCount: number, maxRecords: number): void {
    const zone = domain.domain;
    const gone = new Set<number>([...j.remove.map((r) => r.before.id), ...j.change.map((c) => c.before.id)]);
    const atName = new Map<string, RecordData[]>();
    const put = (rec: RecordData) => {
      const key = keyOf(rec.name);
      const list = atName.get(key);
      if (list) list.push(rec);
      else atName.set(key, [rec]);
    };
    for (const r of stored) if (!gone.has(r.id)) put(r);
    for (const c of j.change) put(c.after);
    for (const a of j.add) put(a.rec);

    // Which items touch each name: the names their records leave (removes, updates) and reach (updates, creates).
    const touching = new Map<string, { index: number; reaches: boolean }[]>();
    const touch = (name: string, index: number, reaches: boolean) => {
      const key = keyOf(name);
      const list = touching.get(key);
      if (list) list.push({ index, reaches });
      else touching.set(key, [{ index, reaches }]);
    };
    for (const r of j.remove) touch(r.before.name, r.index, false);
    for (const c of j.change) {
      touch(c.before.name, c.index, false);
      touch(c.after.name, c.index, true);
    }
    for (const a of j.add) touch(a.rec.name, a.index, true);

    const problems: ItemProblem[] = [];
    const blame = (key: string, field: string | null, message: string) => {
      const involved = touching.get(key) ?? [];
      const indexes = [...new Set(involved.map((t) => t.index))].sort((a, b) => a - b);
      if (indexes.length === 0) problems.push({ index: null, field: null, message });
      for (const index of indexes) {
        const reaches = involved.some((t) => t.index === index && t.reaches);
        problems.push({ index, field: reaches ? field : null, message });
      }
    };

    const count = stored.length - j.remove.length + j.add.length;
    if (j.add.length > j.remove.length && count > maxRecords) {
      problems.push({ index: null, field: null, message: `A domain may hold at most ${maxRecords} records; these ${itemCount} changes would leave ${count}.` });
    }
    for (const key of touching.keys()) {
      const problem = checkAtName(atName.get(key) ?? [], zone);
      if (problem) blame(key, problem.field, problem.message);
    }
    const records = [...j.remove.map((r) => r.before), ...j.change.flatMap((c) => [c.before, c.after]), ...j.add.map((a) => a.rec)];
    if (records.some(touchesNameServers)) {
      const apexNs = apexNameServerItems(j);
      for (const { name, host } of inZoneNameServers(atName.get('') ?? [], zone)) {
        if (hasAddress(atName.get(keyOf(name)) ?? [])) continue;
        const error = nameServerWithoutAddress(host, zone, null);
        // At fault: the items that touch the apex name servers or the host's addresses.
        const hostItems = (touching.get(keyOf(name)) ?? []).map((t) => t.index);
        const involved = [...new Set([...apexNs, ...hostItems])].sort((a, b) => a - b);
        if (involved.length === 0) problems.push({ index: null, field: null, message: error.message });
        for (const index of involved) problems.push({ index, field: null, message: error.message });
      }
    }
    if (problems.length > 0) throw new ChangesRejected(problems);
  }
}


/**
 * The stored record an update or delete item names; null once every reason it cannot be changed is reported.
 * `seen`: the ids earlier items named (a record may appear once), which this one's is added to.
 */
function recordToChange(
  item: ChangeItem,
  index: number,
  t: RecordType,
  byId: ReadonlyMap<number, StoredRecord>,
  seen: Map<number, number>,
  bad: (field: string | null, message: string) => void,
): StoredRecord | null {
  // A delete takes no fields; they are named along with any problem of its id.
  const extra = item.op === 'delete' ? Object.keys(item.fields) : [];
  const fieldProblems = () => {
    for (const f of extra) bad(f, 'is not a field of a delete (it takes op, type and id).');
  };
  const refuse = (field: string, message: string): null => {
    bad(field, message);
    fieldProblems();
    return null;
  };
  const id = item.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1) return refuse('id', 'The id of the record to change must be a positive integer.');
  const current = byId.get(id);
  if (!current) return refuse('id', `The domain has no record ${id}.`);
  const earlier = seen.get(id);
  if (earlier !== undefined) return refuse('id', `Record ${id} is already changed by item ${earlier}; a record may appear once in a change list.`);
  seen.set(id, index);
  if (current.type !== t.type) return refuse('type', `Record ${id} is a ${current.type} record, not ${t.type}.`);
  if (extra.length > 0) {
    fieldProblems();
    return null;
  }
  return current;
}
/** The items that remove, change or add an NS record at the apex. */
function apexNameServerItems(j: Judged): number[] {
  const ns = (r: RecordData) => Boolean(recordType(r.type)?.nameServer) && r.name === '';
  return [
    ...j.remove.filter((r) => ns(r.before)).map((r) => r.index),
    ...j.change.filter((c) => ns(c.before) || ns(c.after)).map((c) => c.index),
    ...j.add.filter((a) => ns(a.rec)).map((a) => a.index),
  ];
}
