/**
 * Feeds other nodes' changes into this node's ZoneEventBus, so a DNS-only node serves what an API node
 * wrote. Notifications (store.listen) make it fast; a periodic comparison of every zone's serial with
 * what this node last heard heals anything missed (a dropped feed connection, a node that died between
 * commit and notify), and on SQLite what another process wrote. Zone mirrors are compared by the serial
 * of their last transfer, which the leader stores without touching the domain row.
 */
import type { StoredDomain } from '../model/domain.js';
import type { DomainStore } from '../store/domains.js';
import type { MirrorStore } from '../store/mirrors.js';
import type { ClusterStore } from '../store/store.js';
import type { ZoneEvent } from '../model/zone-event.js';
import type { ZoneEventBus } from './zone-events.js';

export const DEFAULT_RECONCILE_MS = 5000;

export class ClusterFeed {
  /** Name and serial of every zone as this node last heard of it. */
  private readonly known = new Map<number, { domain: string; serial: number }>();
  /** Serial of every zone mirror's last transfer as this node last heard of it. */
  private readonly transfers = new Map<number, number>();
  private stopListening: (() => Promise<void>) | null = null;
  private offBus: (() => void) | null = null;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;

  constructor(
    private readonly store: ClusterStore & Pick<DomainStore, 'domainKeys' | 'domainById'> & Pick<MirrorStore, 'mirrorState'>,
    private readonly bus: ZoneEventBus,
    private readonly log: (message: string) => void,
    private readonly reconcileMs = DEFAULT_RECONCILE_MS,
  ) {}

  /**
   * Start before anything loads zones from the store (the DNS server): every change committed after this
   * node's first look reaches the bus, so a zone loaded later is never left behind. Without other nodes
   * (SQLite) there is no feed, but the periodic comparison still runs: it is how a serving node sees what a
   * one-shot command wrote to the same file (`zonehost account delete`: its zones stop being served).
   */
  async start(): Promise<void> {
    this.offBus = this.bus.on((c) => this.track(c));
    this.stopListening = await this.store.listen(
      (c) => this.bus.emit(c),
      () => void this.reconcile(),
    );
    // Changes notified meanwhile are tracked already and are at least as new as the listing; another
    // connection's writes from here on are for the comparison (othersWrote's first answer is taken here).
    await this.store.othersWrote();
    for (const d of await this.store.domainKeys()) {
      this.track({ domainId: d.id, domain: d.domain, serial: d.serial, kind: 'domain.updated' });
      const transfer = d.kind === 'slave' ? await this.transferSerial(d.id) : null;
      if (transfer !== null && !this.transfers.has(d.id)) this.transfers.set(d.id, transfer);
    }
    this.timer = setInterval(() => void this.reconcile(), this.reconcileMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.offBus?.();
    await this.stopListening?.();
    await this.running;
  }

  private track(c: ZoneEvent): void {
    // The catalog is no stored domain: each node derives its events from the domains' own.
    if (c.kind === 'catalog.changed') return;
    if (c.kind === 'domain.deleted') {
      this.known.delete(c.domainId);
      this.transfers.delete(c.domainId);
    } else if (c.kind === 'mirror.transferred') this.transfers.set(c.domainId, c.serial);
    else {
      const prev = this.known.get(c.domainId);
      if (!prev || c.serial >= prev.serial) this.known.set(c.domainId, { domain: c.domain, serial: c.serial });
    }
  }

  /** One comparison at a time; a failure is logged and the next round tries again. */
  reconcile(): Promise<void> {
    this.running ??= this.compare()
      .catch((e: unknown) => this.log(`zone reconciliation failed: ${(e as Error).message}`))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async compare(): Promise<void> {
    // This node's own writes reach the bus: only another's need the comparison (100,000 zones take a while).
    if (!(await this.store.othersWrote())) return;
    const seen = new Set<number>();
    for (const d of await this.store.domainKeys()) {
      seen.add(d.id);
      const prev = this.known.get(d.id);
      if (!prev || prev.serial < d.serial || prev.domain !== d.domain) await this.recheck(d.id, prev);
      if (d.kind === 'slave') {
        const transfer = await this.transferSerial(d.id);
        if (transfer !== null && transfer !== this.transfers.get(d.id)) this.bus.emit({ domainId: d.id, domain: d.domain, serial: transfer, kind: 'mirror.transferred' });
      }
    }
    for (const [id, prev] of [...this.known]) if (!seen.has(id)) await this.recheck(id, prev);
  }

  /** Re-reads one zone (a local write may have raced the listing) and announces what really changed. */
  private async recheck(id: number, prev: { domain: string; serial: number } | undefined): Promise<void> {
    const now: StoredDomain | undefined = await this.store.domainById(id);
    const known = this.known.get(id) ?? prev;
    if (!now) {
      if (this.known.has(id)) this.bus.emit({ domainId: id, domain: known?.domain ?? '', serial: 0, kind: 'domain.deleted', ...(known ? { previousDomain: known.domain } : {}) });
      return;
    }
    const current = this.known.get(id);
    if (!current) this.bus.emit({ domainId: id, domain: now.domain, serial: now.serial, kind: 'domain.created' });
    else if (current.serial < now.serial || current.domain !== now.domain) {
      this.bus.emit({ domainId: id, domain: now.domain, serial: now.serial, kind: 'domain.updated', previousDomain: current.domain });
    }
  }

  private async transferSerial(id: number): Promise<number | null> {
    return (await this.store.mirrorState(id))?.serial ?? null;
  }
}
