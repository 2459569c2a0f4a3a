/**
 * The one way a zone changes: a transaction that applies the change, bumps the serial, appends to the
 * journal; then, after commit, one change event.
 */
import type { MirrorStore } from '../store/mirrors.js';
import type { StoreOps, Transactions } from '../store/store.js';
import type { Actor } from './actor.js';
import { isMembershipChange, type ZoneEvent } from '../model/zone-event.js';
import type { ZoneEventBus } from './zone-events.js';

export interface JournalEntry {
  action: string;
  objectId: number | null;
  before: unknown;
  after: unknown;
  /** Who made this change, when a write carries several people's (UPDATE messages applied together); the write's actor otherwise. */
  actor?: Actor | null;
}

/**
 * A caller's check on the object as the write found it, under its lock and before anything changes
 * (interface B's If-Match): throwing aborts the write, so the check and the change are one step.
 */
export type Precondition<T> = (current: T, tx: PreconditionReads) => Promise<void> | void;

/** What a precondition reads in the write's transaction besides the object: what interface B shows of it (a mirror's transfer state). */
export type PreconditionReads = MirrorStore;

export interface WriteResult<T> {
  value: T;
  /** The change to announce; null when nothing changed. */
  change: Omit<ZoneEvent, 'serial'> | null;
  journal: JournalEntry[];
}

/** What a write of several zones changed: one entry per zone, each as WriteResult's change and journal. */
export interface ZonesResult<T> {
  value: T;
  zones: { change: Omit<ZoneEvent, 'serial'>; journal: JournalEntry[] }[];
}

export class ZoneWriter {
  constructor(
    /** A zone write may touch every aggregate: its function gets the whole transaction. */
    private readonly store: Transactions,
    private readonly bus: ZoneEventBus,
    readonly now: () => number,
  ) {}

  /** Serials follow the clock (seconds) when it is ahead, so a re-created zone never goes backwards. */
  private serialFloor(): number {
    return Math.floor(this.now() / 1000);
  }

  /** Runs one zone write; returns the function's value and the zone's serial afterwards (0 if unchanged or deleted). */
  async write<T>(actor: Actor | null, fn: (tx: StoreOps, now: number) => Promise<WriteResult<T>>): Promise<{ value: T; serial: number }> {
    const { value, serials } = await this.writeZones(actor, async (tx, now) => {
      const res = await fn(tx, now);
      return { value: res.value, zones: res.change ? [{ change: res.change, journal: res.journal }] : [] };
    });
    return { value, serial: serials[0] ?? 0 };
  }

  /**
   * Runs a write that changes several zones in one transaction (an account deleted with its domains): each
   * zone's serial, journal and event as `write` makes them for one; returns each zone's serial afterwards.
   */
  async writeZones<T>(actor: Actor | null, fn: (tx: StoreOps, now: number) => Promise<ZonesResult<T>>): Promise<{ value: T; serials: number[] }> {
    const announced: ZoneEvent[] = [];
    const value = await this.store.transaction(async (tx) => {
      const now = this.now();
      const res = await fn(tx, now);
      for (const zone of res.zones) announced.push(await this.record(tx, actor, now, zone.change, zone.journal));
      return res.value;
    });
    for (const change of announced) this.bus.emit(change);
    return { value, serials: announced.map((c) => c.serial) };
  }

  /** Inside the write: one zone's serial, journal entries and announcement to other nodes; the event to emit after commit. */
  private async record(tx: StoreOps, actor: Actor | null, now: number, change: Omit<ZoneEvent, 'serial'>, journal: JournalEntry[]): Promise<ZoneEvent> {
    const serial = change.kind === 'domain.deleted' ? 0 : await tx.bumpSerial(change.domainId, this.serialFloor());
    // The catalog zone's serial moves with its membership, in the same commit (every node reads it).
    if (isMembershipChange(change)) await tx.bumpCatalogSerial(this.serialFloor());
    const { domainId } = change;
    await tx.appendJournal(
      journal.map((j) => {
        const who = j.actor === undefined ? actor : j.actor;
        return {
          domainId,
          accountId: who?.accountId ?? null,
          serial,
          at: now,
          action: j.action,
          objectId: j.objectId,
          keyLabel: who?.keyLabel ?? '',
          keyId: who?.key?.id ?? null,
          userId: who?.userId ?? null,
          username: who?.username ?? '',
          iface: who?.iface ?? 'dns',
          remoteAddr: who?.remoteAddr ?? '',
          before: j.before,
          after: j.after,
        };
      }),
    );
    const event = { ...change, serial };
    // Other nodes hear of it when (and only if) this transaction commits.
    await tx.announce(event);
    return event;
  }
}
