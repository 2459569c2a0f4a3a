/**
 * DNS UPDATE (RFC 2136) as a write: the key's scope, the prerequisites, the updates, then the zone rules on
 * the names it touched, applied whole or not at all, with at most one serial increase and one journal entry
 * naming the key.
 * The DNS door (src/dns/server/update.ts) turns the message into prerequisites and updates and the outcome into an rcode.
 */
import { isServedMaster, type StoredDomain } from '../model/domain.js';
import { keyOf } from '../model/labels.js';
import { checkRecord, recordType, type RecordData } from '../model/records/index.js';
import { memberWrites } from '../model/roles.js';
import { updatesName, updatesRecord, type NamedTsigKey, type StoredTsigKey } from '../model/tsig-key.js';
import { ConflictError, LimitError, ValidationError } from '../model/errors.js';
import { checkPrerequisites, opName, planUpdate, PrerequisiteFailed, type AtName, type Prerequisite, type UpdateOp } from '../model/update.js';
import { zoneContent } from '../model/zone.js';
import type { DomainStore } from '../store/domains.js';
import type { AccountStore } from '../store/accounts.js';
import type { RecordStore } from '../store/records.js';
import type { SavepointStore } from '../store/savepoints.js';
import type { Actor, Limits } from './actor.js';
import { applyBatch, judgeableInMemory } from './record-batch.js';
import type { StoredRecord } from '../model/records/index.js';
import type { JournalEntry, ZoneWriter } from './zone-writer.js';

/** The zone is not one of our master zones (a mirror, or not ours at all): NOTAUTH. */
export class NotAuthoritative extends Error {}
/** The key may not make this change: REFUSED. */
export class UpdateRefused extends Error {}

export interface UpdateRequest {
  /** The zone section's name, normalised. */
  zone: string;
  prerequisites: Prerequisite[];
  updates: UpdateOp[];
  /** The configured name servers (the SOA and apex NS the service makes). */
  nameservers: readonly string[];
  remoteAddr: string;
}

/** The label the journal gives changes made with a TSIG key. */
export const tsigKeyLabel = (key: StoredTsigKey): string => `tsig:${key.name}.`;

/** Messages applied in one transaction at most (a burst beyond it waits for the next). */
const MAX_GROUP = 100;

interface Queued {
  key: NamedTsigKey;
  req: UpdateRequest;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** Why a message is not applied, found before it wrote anything (the DNS door answers each with its rcode). */
const isRefusal = (e: unknown): boolean =>
  e instanceof UpdateRefused || e instanceof NotAuthoritative || e instanceof PrerequisiteFailed || e instanceof ValidationError || e instanceof ConflictError || e instanceof LimitError;

/**
 * What the messages of a group share of their zone, read once and kept up to date as they apply: the domain,
 * its record count and its apex records (null: read again when next needed).
 */
interface GroupZone {
  domain: StoredDomain;
  count: number | null;
  apex: StoredRecord[] | null;
}

/** The member who made the key acts: the journal names them with the key. */
const actorOf = (q: Queued): Actor => ({
  accountId: q.key.accountId,
  userId: q.key.member.id,
  role: q.key.member.role,
  username: q.key.member.username,
  keyLabel: tsigKeyLabel(q.key),
  iface: 'dns',
  remoteAddr: q.req.remoteAddr,
});


export class UpdateService {
  /** Per zone name, the messages waiting for the write under way. */
  private readonly queues = new Map<string, Queued[]>();

  constructor(
    private readonly writer: ZoneWriter,
    private readonly limits: Limits,
  ) {}

  /**
   * Applies one UPDATE message signed with `key`. Messages for a zone that arrive while a write to it is under
   * way wait and are then applied together: one transaction and one commit for all of them (the zone's lock
   * would make them wait in turn anyway), each in its own savepoint, so each is applied whole or not at all and
   * answered with its own outcome, in the order they came, each with its own journal entry naming its key.
   */
  apply(key: NamedTsigKey, req: UpdateRequest): Promise<void> {
    return new Promise((resolve, reject) => {
      const item = { key, req, resolve, reject };
      const queue = this.queues.get(req.zone);
      if (queue) return void queue.push(item);
      this.queues.set(req.zone, [item]);
      void this.drain(req.zone);
    });
  }

  /** Applies what is queued for a zone, a group at a time, until nothing is. */
  private async drain(zone: string): Promise<void> {
    for (;;) {
      const queue = this.queues.get(zone) as Queued[];
      if (queue.length === 0) return void this.queues.delete(zone);
      const group = queue.splice(0, MAX_GROUP);
      try {
        const outcomes = await this.applyGroup(group);
        group.forEach((item, i) => {
          const failure = outcomes[i];
          if (failure) item.reject(failure);
          else item.resolve();
        });
      } catch (e) {
        for (const item of group) item.reject(e);
      }
    }
  }

  /** One write for a group of messages to one zone: per message, null when applied, or why not. */
  private async applyGroup(group: readonly Queued[]): Promise<(unknown | null)[]> {
    let outcomes: (unknown | null)[] = [];
    const first = group[0] as Queued;
    await this.writer.write(actorOf(first), async (tx, now) => {
      // Run again from the start should PostgreSQL retry the transaction.
      outcomes = [];
      const journal: JournalEntry[] = [];
      let changed: StoredDomain | null = null;
      // Every message of a group is for one zone: its domain is read and locked once, before any message (a
      // lock taken inside a savepoint rolled back would go with it); only its records change meanwhile.
      let zone: GroupZone | NotAuthoritative;
      try {
        zone = { domain: await this.lockedZone(tx, first.req.zone), count: null, apex: null };
      } catch (e) {
        if (!(e instanceof NotAuthoritative)) throw e;
        zone = e;
      }
      for (const item of group) {
        try {
          if (zone instanceof NotAuthoritative) throw zone;
          const done = await this.applyOne(tx, now, item.key, item.req, zone);
          if (done) {
            changed = zone.domain;
            journal.push({ ...done, actor: actorOf(item) });
          }
          outcomes.push(null);
        } catch (e) {
          // A message refused wrote nothing; anything else (a store error) may have left a write half done
          // with no savepoint to return to, and on PostgreSQL it aborts the transaction: the group fails whole.
          if (!isRefusal(e)) throw e;
          outcomes.push(e);
        }
      }
      return { value: null, change: changed && { domainId: changed.id, domain: changed.domain, kind: 'records.changed' }, journal };
    });
    return outcomes;
  }

  /**
   * One message inside the group's transaction: its journal entry, or null when it changed nothing; throws why
   * it is refused, having written nothing. Judged in memory from the records read before any write (no
   * savepoint needed) unless it changes the apex name servers, which the stored zone judges after the writes
   * inside a savepoint.
   */
  private async applyOne(tx: RecordStore & SavepointStore & Pick<AccountStore, 'accountById'>, now: number, key: NamedTsigKey, req: UpdateRequest, zone: GroupZone): Promise<JournalEntry | null> {
    const { domain } = zone;
    if (domain.accountId !== key.accountId || !key.domains.includes(domain.id) || key.update === false) {
      throw new UpdateRefused(`the key ${key.name}. may not update ${req.zone}`);
    }
    // The key never does more than its member may at the time of the update (model/roles.ts).
    if (!memberWrites(key.member, domain.id)) throw new UpdateRefused(`the member ${key.member.username} who made the key ${key.name}. may not update ${req.zone}`);
    for (const p of req.prerequisites) {
      if (!updatesName(key.update, p.name)) throw new UpdateRefused(`the key ${key.name}. may not look at ${p.name || '@'}`);
    }
    for (const op of req.updates) {
      // An SOA added is ignored (planUpdate), not checked as a customer's record.
      if (op.kind !== 'add' || recordType(op.record.type)?.hosted === false) continue;
      checkRecord(op.record, { zone: domain.domain, remoteAddr: req.remoteAddr }).throwIfAny();
    }
    const at = await this.namesOf(tx, zone, req);
    checkPrerequisites(req.prerequisites, at);
    const plan = planUpdate(req.updates, at, (t) => recordType(t)?.hosted !== false && recordType(t) !== undefined, (t) => recordType(t)?.nameServer === true);
    // Every name and type the message touches, whether or not it changes anything.
    for (const op of req.updates) {
      const type = op.kind === 'add' || op.kind === 'delete-record' ? op.record.type : op.kind === 'delete-rrset' ? op.type : null;
      const allowed = type === null ? updatesName(key.update, opName(op)) : updatesRecord(key.update, opName(op), type);
      if (!allowed) throw new UpdateRefused(`the key ${key.name}. may not update ${type ?? 'records'} at ${opName(op) || '@'}`);
    }
    for (const r of [...plan.remove, ...plan.add]) {
      if (!updatesRecord(key.update, r.name, r.type)) throw new UpdateRefused(`the key ${key.name}. may not update ${r.type} at ${r.name || '@'}`);
    }
    const grows = plan.add.length - plan.remove.length;
    const apexTouched = [...plan.remove, ...plan.add].some((r) => keyOf(r.name) === '');
    let journal: JournalEntry | null;
    if (judgeableInMemory(plan, { whole: false })) {
      const count = grows > 0 ? (zone.count ??= await tx.countRecords(domain.id)) : (zone.count ?? 0);
      ({ journal } = await applyBatch(tx, domain, plan, this.limits, now, { count, atName: (name) => at(name).stored, apex: at('').stored, whole: false }));
      if (zone.count !== null) zone.count += grows;
    } else {
      ({ journal } = await tx.savepoint(() => applyBatch(tx, domain, plan, this.limits, now)));
      zone.count = null;
    }
    if (apexTouched) zone.apex = null;
    return journal;
  }

  /** The master zone of that name, locked for the transaction; NotAuthoritative when we are not its primary. */
  private async lockedZone(tx: Pick<DomainStore, 'lockedDomainByName'>, name: string): Promise<StoredDomain> {
    const domain = await tx.lockedDomainByName(name);
    if (!domain || !isServedMaster(domain)) throw new NotAuthoritative(`${name} is not a zone this server is the primary for`);
    return domain;
  }

  /**
   * The records at every name the message names, read once (the apex from what the group has read), with the
   * SOA and the service's NS records at the apex.
   */
  private async namesOf(tx: Pick<RecordStore, 'recordsAt'>, zone: GroupZone, req: UpdateRequest): Promise<(name: string) => AtName> {
    const { domain } = zone;
    const served = zoneContent(domain, [], req.nameservers);
    const apexService: RecordData[] = [{ ...served.soa, name: '' }, ...served.answers.map((a) => ({ ...a, name: '' }))];
    const names = new Map<string, AtName>();
    for (const name of ['', ...req.prerequisites.map((p) => p.name), ...req.updates.map(opName)]) {
      const key = keyOf(name);
      if (names.has(key)) continue;
      const stored = key === '' ? (zone.apex ??= await tx.recordsAt(domain.id, '')) : await tx.recordsAt(domain.id, name);
      names.set(key, { stored, service: key === '' ? apexService : [] });
    }
    return (name) => names.get(keyOf(name)) as AtName;
  }
}
