/**
 * Which zones in memory hold ALIAS records, and their targets: each target is resolved while a zone uses it
 * (AliasCache.use), and a change of its addresses gives those zones a new serial, at most once a minute each
 * and only on the node that sends NOTIFY (the leader), so their secondaries transfer the new addresses.
 */
import { keyOf } from '../../model/labels.js';
import { ADDRESS_TYPES, recordType } from '../../model/records/index.js';
import type { ZoneRecord } from '../../model/zone.js';
import type { AliasCache } from './cache.js';

/** The least time between two serials a zone takes for its ALIAS targets' addresses. */
export const SERIAL_INTERVAL_MS = 60_000;

export interface AliasSerialOptions {
  /** Gives the zone a new serial (services.aliases.resolved). */
  bump(zoneId: number): Promise<void>;
  /** Whether this node gives them (the cluster's leader). */
  shouldAct(): boolean;
  log: { warn(obj: object, msg: string): void };
}

export class AliasUsers {
  /** Per zone id: the target of the ALIAS at each name (lookup key). */
  private readonly byZone = new Map<number, Map<string, string>>();
  private readonly lastBump = new Map<number, number>();
  private readonly planned = new Map<number, NodeJS.Timeout>();
  private readonly off: () => void;

  constructor(
    private readonly cache: AliasCache,
    private readonly serials: AliasSerialOptions | null,
    private readonly now: () => number = Date.now,
  ) {
    this.off = cache.onChange((target) => this.changed(target));
  }

  /** The ALIAS records of a zone version: `answers` are all of its records, or with `names` those at these names (a patch). */
  update(zoneId: number, answers: readonly ZoneRecord[], names?: ReadonlySet<string>): void {
    const had = this.byZone.get(zoneId) ?? new Map<string, string>();
    if (had.size === 0 && !answers.some(isAlias)) return;
    const next = new Map(had);
    // The names the version gives anew (every name, for a whole version) let go of what they held...
    for (const [k, target] of had) {
      if (names && !names.has(k)) continue;
      next.delete(k);
      this.cache.release(target, ADDRESS_TYPES);
    }
    // ...and take what it gives them.
    for (const a of answers) {
      if (!isAlias(a)) continue;
      const target = String(a.data.target);
      next.set(keyOf(a.name), target);
      this.cache.use(target, ADDRESS_TYPES);
    }
    if (next.size > 0) this.byZone.set(zoneId, next);
    else this.byZone.delete(zoneId);
  }

  /** A zone is no longer served. */
  forget(zoneId: number): void {
    for (const target of this.byZone.get(zoneId)?.values() ?? []) this.cache.release(target, ADDRESS_TYPES);
    this.byZone.delete(zoneId);
  }

  stop(): void {
    this.off();
    for (const t of this.planned.values()) clearTimeout(t);
    this.planned.clear();
  }

  /** A target's addresses changed: each zone using it takes a new serial, now or when its minute is up. */
  private changed(target: string): void {
    if (!this.serials) return;
    const key = keyOf(target);
    for (const [zoneId, targets] of this.byZone) {
      if (![...targets.values()].some((t) => keyOf(t) === key) || this.planned.has(zoneId)) continue;
      const wait = Math.max(0, (this.lastBump.get(zoneId) ?? -Infinity) + SERIAL_INTERVAL_MS - this.now());
      const timer = setTimeout(() => this.bump(zoneId), wait);
      timer.unref();
      this.planned.set(zoneId, timer);
    }
  }

  private bump(zoneId: number): void {
    this.planned.delete(zoneId);
    const serials = this.serials as AliasSerialOptions;
    if (!serials.shouldAct() || !this.byZone.has(zoneId)) return;
    this.lastBump.set(zoneId, this.now());
    serials.bump(zoneId).catch((e: unknown) => serials.log.warn({ domainId: zoneId, err: (e as Error).message }, 'new serial for new ALIAS addresses failed'));
  }
}

const isAlias = (a: ZoneRecord): boolean => recordType(a.type)?.addressAlias === true;
