/** Record use cases: ownership, cross-record rules (CNAME exclusivity, duplicates), limits. */
import type { StoredDomain } from '../model/domain.js';
import { ConflictError, LimitError, NotFoundError, ValidationError } from '../model/errors.js';
import { checkRecord, recordType, type RecordContext, type RecordData, type StoredRecord } from '../model/records/index.js';
import type { RecordFilter, StoreOps, Store } from '../store/store.js';
import type { Actor, Limits } from './actor.js';
import type { DomainService } from './domains.js';
import type { ZoneWriter } from './write.js';

/** Fields that make two records of a type the same record. */
const sameData = (a: RecordData, b: RecordData) =>
  a.type === b.type &&
  (recordType(a.type)?.caseSensitiveTarget ? a.target === b.target : a.target.toLowerCase() === b.target.toLowerCase()) &&
  a.priority === b.priority &&
  a.weight === b.weight &&
  a.port === b.port &&
  a.tag === b.tag;

export class RecordService {
  constructor(
    private readonly store: Store,
    private readonly writer: ZoneWriter,
    private readonly domains: DomainService,
    private readonly limits: Limits,
  ) {}

  async list(actor: Actor, domainId: number, filter?: RecordFilter): Promise<StoredRecord[]> {
    await this.domains.owned(this.store, actor, domainId);
    return this.store.listRecords(domainId, filter);
  }

  async get(actor: Actor, domainId: number, id: number): Promise<StoredRecord> {
    await this.domains.owned(this.store, actor, domainId);
    return this.owned(this.store, domainId, id);
  }

  /** The domain a record of the actor's belongs to (NotFoundError when the record is not the actor's). */
  async domainOf(actor: Actor, id: number): Promise<number> {
    const r = Number.isSafeInteger(id) && id > 0 ? await this.store.recordById(id) : undefined;
    if (!r) throw new NotFoundError('record');
    await this.domains.owned(this.store, actor, r.domainId);
    return r.domainId;
  }

  /** `rec` comes from an interface already mapped to canonical form; it is normalised and checked here. */
  async create(actor: Actor, domainId: number, rec: RecordData, ctx?: Omit<RecordContext, 'zone'>): Promise<StoredRecord> {
    const { value } = await this.writer.write(actor, async (tx, now) => {
      const domain = await this.editable(tx, actor, domainId);
      const data = { ...rec };
      checkRecord(data, { ...ctx, zone: domain.domain }).throwIfAny();
      if ((await tx.countRecords(domainId)) >= this.limits.recordsPerDomain) {
        throw new LimitError('records', `A domain may hold at most ${this.limits.recordsPerDomain} records.`);
      }
      await this.checkNeighbours(tx, domain, data, null);
      const created = await tx.insertRecord(domainId, data, now);
      return {
        value: created,
        change: { domainId, domain: domain.domain, kind: 'records.changed' },
        journal: [{ action: 'record.create', objectId: created.id, before: null, after: created }],
      };
    });
    return value;
  }

  /** Replaces the record's fields with `next(current)`; the type never changes. */
  async update(
    actor: Actor,
    domainId: number,
    id: number,
    next: (current: StoredRecord) => RecordData,
    ctx?: Omit<RecordContext, 'zone'>,
  ): Promise<StoredRecord> {
    const { value } = await this.writer.write(actor, async (tx, now) => {
      const domain = await this.editable(tx, actor, domainId);
      const current = await this.owned(tx, domainId, id);
      const data = { ...next(current), type: current.type };
      checkRecord(data, { ...ctx, zone: domain.domain }).throwIfAny();
      const after: StoredRecord = { ...data, id, domainId };
      if (JSON.stringify(after) === JSON.stringify(current)) return { value: current, change: null, journal: [] };
      await this.checkNeighbours(tx, domain, data, id);
      await tx.updateRecord(id, data, now);
      return {
        value: after,
        change: { domainId, domain: domain.domain, kind: 'records.changed' },
        journal: [{ action: 'record.update', objectId: id, before: current, after }],
      };
    });
    return value;
  }

  async delete(actor: Actor, domainId: number, id: number): Promise<StoredRecord> {
    const { value } = await this.writer.write(actor, async (tx) => {
      const domain = await this.domains.locked(tx, actor, domainId);
      const current = await this.owned(tx, domainId, id);
      await tx.deleteRecord(id);
      return {
        value: current,
        change: { domainId, domain: domain.domain, kind: 'records.changed' },
        journal: [{ action: 'record.delete', objectId: id, before: current, after: null }],
      };
    });
    return value;
  }

  private async owned(ops: StoreOps, domainId: number, id: number): Promise<StoredRecord> {
    const r = Number.isSafeInteger(id) && id > 0 ? await ops.record(domainId, id) : undefined;
    if (!r) throw new NotFoundError('record');
    return r;
  }

  private async editable(tx: StoreOps, actor: Actor, domainId: number): Promise<StoredDomain> {
    const domain = await this.domains.locked(tx, actor, domainId);
    if (domain.kind === 'slave') {
      throw ValidationError.one('domain', `The domain ${domain.domain} is a zone mirror (type slave); its records come from its masters and cannot be edited.`);
    }
    return domain;
  }

  /** CNAME exclusivity (RFC 1034 3.6.2) and no exact duplicates at one name. */
  private async checkNeighbours(tx: StoreOps, domain: StoredDomain, rec: RecordData, selfId: number | null): Promise<void> {
    const others = (await tx.recordsAt(domain.id, rec.name)).filter((r) => r.id !== selfId);
    if (others.length === 0) return;
    const label = rec.name === '' ? domain.domain : `${rec.name}.${domain.domain}`;
    if (recordType(rec.type)?.exclusive) {
      throw new ConflictError('name', `A CNAME record cannot share its name with other records, and ${label} already has ${others[0]?.type} data.`);
    }
    const exclusive = others.find((r) => recordType(r.type)?.exclusive);
    if (exclusive) throw new ConflictError('name', `${label} is an alias (CNAME), so it cannot hold other records.`);
    if (others.some((r) => sameData(r, rec))) throw new ConflictError('target', `An identical ${rec.type} record for ${label} already exists.`);
  }
}
