/** Record use cases: ownership, cross-record rules (CNAME exclusivity, duplicates, name-server addresses), limits. */
import type { StoredDomain } from '../model/domain.js';
import type { Timestamps } from '../model/timestamps.js';
import { LimitError, NotFoundError, ValidationError } from '../model/errors.js';
import { checkRecord, mainField, recordType, recordTypeOrThrow, type RecordContext, type RecordData, type StoredRecord } from '../model/records/index.js';
import { conflictAtName, missingAtName } from '../model/zone-rules.js';
import type { DomainStore } from '../store/domains.js';
import { pageLimit, type Page } from '../store/page.js';
import type { RecordStore } from '../store/records.js';
import { checkRecordWrite, checkWrite } from '../model/key-scope.js';
import { accountLimits, scopeOf, type Actor, type Limits } from './actor.js';
import type { DomainService } from './domains.js';
import type { Precondition, ZoneWriter } from './zone-writer.js';
import { checkNameServerAddresses, checkRequirements, touchesNameServers } from './zone-checks.js';
import { checkSteeringRefs } from './health-checks.js';
import { sameSteering } from '../model/steering.js';

export interface RecordFilter extends Page {
  type?: string;
  /** Relative owner name, compared case-insensitively. */
  name?: string;
}

/** Whole record lists of recently listed zones kept by the cache below, counted in records. */
export const LIST_CACHE_RECORDS = 200_000;

/**
 * The record lists of recently listed zones, each valid for one serial of its zone: every change to a
 * zone's records raises its serial in the same transaction, so a list read after the serial is still the
 * current one (at least as new, never older). Spares a large zone's list a store round trip on every read;
 * on several nodes each checks the serial in the shared store, so a change made elsewhere is never missed.
 * Least recently used lists go first.
 */
class ZoneListCache {
  private readonly lists = new Map<number, { serial: number; records: readonly StoredRecord[] }>();
  private size = 0;

  constructor(private readonly maxRecords: number) {}

  get(domain: StoredDomain): readonly StoredRecord[] | undefined {
    const hit = this.lists.get(domain.id);
    if (!hit || hit.serial !== domain.serial) return undefined;
    this.lists.delete(domain.id);
    this.lists.set(domain.id, hit);
    return hit.records;
  }

  /** `records` were read after `domain` (so they are at least as new as its serial). */
  set(domain: StoredDomain, records: StoredRecord[]): readonly StoredRecord[] {
    const old = this.lists.get(domain.id);
    if (old) this.size -= old.records.length;
    this.lists.delete(domain.id);
    for (const r of records) Object.freeze(r);
    const frozen = Object.freeze(records);
    if (records.length > this.maxRecords) return frozen;
    this.lists.set(domain.id, { serial: domain.serial, records: frozen });
    this.size += records.length;
    for (const [id, e] of this.lists) {
      if (this.size <= this.maxRecords) break;
      this.lists.delete(id);
      this.size -= e.records.length;
    }
    return frozen;
  }
}

/** The page of `records` (ordered by id) that `filter` selects, as the store would select it. */
function select(records: readonly StoredRecord[], filter: RecordFilter = {}): StoredRecord[] {
  const name = filter.name?.toLowerCase();
  const limit = filter.limit === undefined ? Infinity : pageLimit(filter.limit);
  const out: StoredRecord[] = [];
  for (const r of records) {
    if (out.length >= limit) break;
    if ((filter.after === undefined || r.id > filter.after) && (!filter.type || r.type === filter.type) && (name === undefined || r.name.toLowerCase() === name)) out.push(r);
  }
  return out;
}

/** A change from a door that knows nothing of steering (its record has none: undefined) keeps the record's. */
function keptSteering(data: RecordData, current: StoredRecord): RecordData {
  return data.steering === undefined && current.steering ? { ...data, steering: current.steering } : data;
}

export class RecordService {
  private readonly lists = new ZoneListCache(LIST_CACHE_RECORDS);

  constructor(
    private readonly store: Pick<RecordStore, 'listRecords' | 'recordById' | 'record' | 'recordTimes'> & Pick<DomainStore, 'domain'>,
    private readonly writer: ZoneWriter,
    private readonly domains: DomainService,
    private readonly limits: Limits,
  ) {}

  /** A new array each time, ordered by id; its records are shared and frozen. */
  async list(actor: Actor, domainId: number, filter?: RecordFilter): Promise<StoredRecord[]> {
    // The domain (and its serial) first: the records read after it are at least as new.
    const domain = await this.domains.owned(this.store, actor, domainId);
    const all = this.lists.get(domain) ?? this.lists.set(domain, await this.store.listRecords(domainId));
    return select(all, filter);
  }

  async get(actor: Actor, domainId: number, id: number): Promise<StoredRecord> {
    await this.domains.owned(this.store, actor, domainId);
    return this.owned(this.store, domainId, id);
  }

  /** When each record of the actor's domain was made and last changed (Linode's v4 shows it), by id. */
  async times(actor: Actor, domainId: number): Promise<Map<number, Timestamps>> {
    await this.domains.owned(this.store, actor, domainId);
    return this.store.recordTimes(domainId);
  }

  /** The domain a record of the actor's belongs to (NotFoundError when the record is not the actor's). */
  async domainOf(actor: Actor, id: number): Promise<number> {
    const r = Number.isSafeInteger(id) && id > 0 ? await this.store.recordById(id) : undefined;
    if (!r) throw new NotFoundError('record');
    await this.domains.owned(this.store, actor, r.domainId);
    return r.domainId;
  }

  /**
   * `rec` comes from an interface already mapped to canonical form, or is mapped by it from the zone's
   * name (read inside the write, so a rename cannot slip in between); it is normalised and checked here.
   */
  async create(actor: Actor, domainId: number, rec: RecordData | ((zone: string) => RecordData), ctx?: Omit<RecordContext, 'zone'>): Promise<StoredRecord> {
    const { value } = await this.writer.write(actor, async (tx, now) => {
      const domain = await this.editable(tx, actor, domainId);
      const data = { ...(typeof rec === 'function' ? rec(domain.domain) : rec) };
      checkRecord(data, { ...ctx, zone: domain.domain }).throwIfAny();
      checkRecordWrite(scopeOf(actor), data.name, data.type);
      const { recordsPerDomain } = await accountLimits(tx, this.limits, domain.accountId);
      if ((await tx.countRecords(domainId)) >= recordsPerDomain) {
        throw new LimitError('records', `A domain may hold at most ${recordsPerDomain} records.`);
      }
      await this.checkNeighbours(tx, domain, data, null);
      await checkSteeringRefs(tx, domain.accountId, [data]);
      const created = await tx.insertRecord(domainId, data, now);
      if (touchesNameServers(data)) await checkNameServerAddresses(tx, domainId, domain.domain, mainField(recordTypeOrThrow(data.type)));
      return {
        value: created,
        change: { domainId, domain: domain.domain, kind: 'records.changed' },
        journal: [{ action: 'record.create', objectId: created.id, before: null, after: created }],
      };
    });
    return value;
  }

  /** Replaces the record's fields with `next(current, zone)`; the type never changes. */
  async update(
    actor: Actor,
    domainId: number,
    id: number,
    next: (current: StoredRecord, zone: string) => RecordData,
    ctx?: Omit<RecordContext, 'zone'>,
  ): Promise<StoredRecord> {
    const { value } = await this.writer.write(actor, async (tx, now) => {
      const domain = await this.editable(tx, actor, domainId);
      const current = await this.owned(tx, domainId, id);
      checkRecordWrite(scopeOf(actor), current.name, current.type);
      const data = keptSteering({ ...next(current, domain.domain), type: current.type }, current);
      checkRecord(data, { ...ctx, zone: domain.domain }).throwIfAny();
      checkRecordWrite(scopeOf(actor), data.name, data.type);
      const after: StoredRecord = { ...data, id, domainId };
      if (!data.steering) delete after.steering;
      if (after.name === current.name && after.ttl === current.ttl && JSON.stringify(after.data) === JSON.stringify(current.data) && sameSteering(after.steering, current.steering)) {
        return { value: current, change: null, journal: [] };
      }
      await this.checkNeighbours(tx, domain, data, id);
      await checkSteeringRefs(tx, domain.accountId, [data]);
      await tx.updateRecord(id, data, now);
      // The new name was checked with the record there; the old one may have lost what another type there needs.
      if (current.name.toLowerCase() !== data.name.toLowerCase()) await checkRequirements(tx, domainId, current.name, domain.domain);
      if (touchesNameServers(current) || touchesNameServers(data)) {
        // An NS record is at fault for what it names; an address record for moving off the host's name.
        await checkNameServerAddresses(tx, domainId, domain.domain, recordType(data.type)?.address ? 'name' : mainField(recordTypeOrThrow(data.type)));
      }
      return {
        value: after,
        change: { domainId, domain: domain.domain, kind: 'records.changed' },
        journal: [{ action: 'record.update', objectId: id, before: current, after }],
      };
    });
    return value;
  }

  async delete(actor: Actor, domainId: number, id: number, precondition?: Precondition<StoredRecord>): Promise<StoredRecord> {
    const { value } = await this.writer.write(actor, async (tx) => {
      const domain = await this.editable(tx, actor, domainId);
      const current = await this.owned(tx, domainId, id);
      checkRecordWrite(scopeOf(actor), current.name, current.type);
      await precondition?.(current, tx);
      await tx.deleteRecord(id);
      await checkRequirements(tx, domainId, current.name, domain.domain);
      if (touchesNameServers(current)) await checkNameServerAddresses(tx, domainId, domain.domain, null);
      return {
        value: current,
        change: { domainId, domain: domain.domain, kind: 'records.changed' },
        journal: [{ action: 'record.delete', objectId: id, before: current, after: null }],
      };
    });
    return value;
  }

  private async owned(ops: Pick<RecordStore, 'record'>, domainId: number, id: number): Promise<StoredRecord> {
    const r = Number.isSafeInteger(id) && id > 0 ? await ops.record(domainId, id) : undefined;
    if (!r) throw new NotFoundError('record');
    return r;
  }

  private async editable(tx: Pick<DomainStore, 'lockDomain' | 'domain'>, actor: Actor, domainId: number): Promise<StoredDomain> {
    const domain = await this.domains.locked(tx, actor, domainId);
    checkWrite(scopeOf(actor));
    if (domain.kind === 'slave') {
      throw ValidationError.one('domain', `The domain ${domain.domain} is a zone mirror (type slave); its records come from its masters and cannot be edited.`);
    }
    return domain;
  }

  /**
   * The zone rules at the record's name (model/zone-rules.ts), against the other records there and then the
   * name as the write leaves it, from one read.
   */
  private async checkNeighbours(tx: Pick<RecordStore, 'recordsAt'>, domain: StoredDomain, rec: RecordData, selfId: number | null): Promise<void> {
    const others = (await tx.recordsAt(domain.id, rec.name)).filter((r) => r.id !== selfId);
    const problem = conflictAtName(rec, others, domain.domain) ?? missingAtName([...others, rec], domain.domain);
    if (problem) throw problem;
  }
}
