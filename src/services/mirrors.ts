/** Zone mirrors (slave domains): their transfer state and last good copy, written by the DNS side's puller. */
import type { StoredDomain } from '../model/domain.js';
import type { AccountStore } from '../store/accounts.js';
import type { CatalogStore } from '../store/catalog.js';
import type { DomainStore } from '../store/domains.js';
import type { EventStore } from '../store/events.js';
import type { MirrorState, MirrorStore } from '../store/mirrors.js';
import type { Transactions } from '../store/store.js';
import { accountLimits, type Actor, type Limits } from './actor.js';
import type { DomainService } from './domains.js';
import type { ZoneEventBus } from './zone-events.js';

export interface TransferState {
  /** Serial of the copy being served; null before the first successful transfer. */
  serial: number | null;
  /** Epoch ms of the last successful transfer, or null. */
  lastSuccess: number | null;
  /** Epoch ms of the last attempt, or null. */
  lastAttempt: number | null;
  /** Why the last attempt failed; null when it succeeded or none was made. */
  lastError: string | null;
}

export class MirrorService {
  constructor(
    private readonly store: MirrorStore & EventStore & Pick<DomainStore, 'domain'> & Pick<AccountStore, 'accountById'> & Transactions<MirrorStore & Pick<CatalogStore, 'bumpCatalogSerial'>>,
    private readonly domains: DomainService,
    private readonly bus: ZoneEventBus,
    private readonly now: () => number,
    private readonly limits: Limits,
  ) {}

  /** The most records a pull of this mirror may bring: its account's limit (the operator's, else the node's). */
  async maxRecords(domain: StoredDomain): Promise<number> {
    return (await accountLimits(this.store, this.limits, domain.accountId)).recordsPerDomain;
  }

  /** The transfer state of one of the actor's mirrors (NotFoundError for anyone else's). */
  async state(actor: Actor, domainId: number): Promise<TransferState> {
    await this.domains.owned(this.store, actor, domainId);
    return this.stateOf(domainId);
  }

  /** `ops`: a transaction to read it in (the store otherwise). */
  async stateOf(domainId: number, ops: Pick<MirrorStore, 'mirrorState'> = this.store): Promise<TransferState> {
    const s = await ops.mirrorState(domainId);
    return { serial: s?.serial ?? null, lastSuccess: s?.lastSuccess ?? null, lastAttempt: s?.lastAttempt ?? null, lastError: s?.lastError ?? null };
  }

  /** The last good copy as stored by `transferred` (JSON text), or null. */
  async zoneOf(domainId: number): Promise<string | null> {
    return (await this.store.mirrorState(domainId))?.zone ?? null;
  }

  /** Records a successful transfer and announces it, so DNS serves the new copy at once. */
  async transferred(domainId: number, domain: string, serial: number, zone: string): Promise<void> {
    const now = this.now();
    await this.store.transaction(async (tx) => {
      // A mirror's first copy makes it a member of the catalog zone.
      if ((await tx.mirrorState(domainId))?.lastSuccess == null) await tx.bumpCatalogSerial(Math.floor(now / 1000));
      await tx.saveMirrorState({ domainId, serial, lastSuccess: now, lastAttempt: now, lastError: null, zone });
    });
    const change = { domainId, domain, serial, kind: 'mirror.transferred' } as const;
    await this.store.announce(change);
    this.bus.emit(change);
  }

  /**
   * A master's NOTIFY heard by a node that does not pull (not the cluster leader): passed on through the
   * store to the other nodes, so the leader checks the mirror at once. Nothing stored changes.
   */
  async passOnNotify(domain: StoredDomain): Promise<void> {
    await this.store.announce({ domainId: domain.id, domain: domain.domain, serial: domain.serial, kind: 'mirror.notified' });
  }

  /** Records a failed attempt; the last good copy stays. */
  async failed(domainId: number, error: string): Promise<void> {
    const prev: MirrorState = (await this.store.mirrorState(domainId)) ?? {
      domainId,
      serial: null,
      lastSuccess: null,
      lastAttempt: null,
      lastError: null,
      zone: null,
    };
    await this.store.saveMirrorState({ ...prev, lastAttempt: this.now(), lastError: error });
  }
}
