/**
 * New domains made from a zone that already exists (Linode v4's `clone` and `import`): a domain is created,
 * then filled in one write through the services that fill domains — the bulk changes for a clone's records,
 * the zone-file import by AXFR for an import — and deleted again when that write is refused or the transfer
 * fails, so a request that fails leaves no domain behind.
 */
import type { DomainData, StoredDomain } from '../model/domain.js';
import { toV1 } from '../model/records/index.js';
import type { Actor } from './actor.js';
import type { BulkChangeService } from './bulk-changes.js';
import type { DomainService } from './domains.js';
import type { RecordService } from './records.js';
import type { TransferRequest, ZoneFileService } from './zonefiles.js';

export class DomainCopyService {
  constructor(
    private readonly domains: DomainService,
    private readonly records: RecordService,
    private readonly changes: BulkChangeService,
    private readonly zonefiles: ZoneFileService,
  ) {}

  /**
   * A new domain named `name` with the settings and records of the actor's domain `sourceId` (a zone
   * mirror's settings only: its records are its masters'). The records are added in one write: one serial,
   * one journal entry.
   */
  async clone(actor: Actor, sourceId: number, name: string): Promise<StoredDomain> {
    const source = await this.domains.get(actor, sourceId);
    const records = source.kind === 'master' ? await this.records.list(actor, sourceId) : [];
    const { id: _id, accountId: _a, serial: _s, ...settings } = source;
    const copy = await this.domains.create(actor, { ...settings, domain: name } satisfies DomainData);
    if (records.length === 0) return copy;
    const items = records.map((r) => ({ op: 'create', type: r.type, fields: toV1(r) }));
    return this.undoneOnFailure(actor, copy, () => this.changes.apply(actor, copy.id, items));
  }

  /**
   * A new master domain `name` holding the zone `req.server` transfers by AXFR, imported as a zone file is
   * (its SOA's e-mail and timers become the domain's); `soaEmail` stands in until the transfer gives one.
   */
  async importZone(actor: Actor, name: string, soaEmail: string, req: TransferRequest): Promise<StoredDomain> {
    const created = await this.domains.create(actor, { domain: name, kind: 'master', soaEmail });
    return this.undoneOnFailure(actor, created, () => this.zonefiles.transfer(actor, created.id, req));
  }

  /** Runs `fill` on the new domain; deletes the domain when it throws, and throws on. Answers the domain as filled. */
  private async undoneOnFailure(actor: Actor, domain: StoredDomain, fill: () => Promise<unknown>): Promise<StoredDomain> {
    try {
      await fill();
    } catch (e) {
      await this.domains.delete(actor, domain.id);
      throw e;
    }
    return this.domains.get(actor, domain.id);
  }
}
