/**
 * The zones in memory, by id and by apex key: each built, or dormant — a zone of the start-up load kept as text
 * until a query or a change first needs it built (ZoneVersions.asleep and wake), as most zones of a large node
 * are seldom asked. Which zones are held, and when, is zone-cache.ts's business.
 */
import { parentKey } from '../../model/labels.js';
import type { Zone } from '../zone/zone.js';
import type { ZoneVersions } from './zone-versions.js';

/** A zone loaded at start and kept as text until a query or a change needs it built (ZoneVersions.asleep). */
export interface Dormant {
  id: number;
  /** Lookup key of the apex. */
  key: string;
  text: string;
}

/** A zone in memory: built, or dormant. */
export type Held = Zone | Dormant;

const isDormant = (h: Held): h is Dormant => 'text' in h;

export class HeldZones {
  private readonly byKey = new Map<string, Held>();
  private readonly byId = new Map<number, Held>();

  /** `wakeFailed`: a dormant zone could not be built; it is no longer held. */
  constructor(
    private readonly versions: ZoneVersions,
    private readonly wakeFailed: (id: number, key: string, e: unknown) => void,
  ) {}

  get size(): number {
    return this.byId.size;
  }

  /** The most specific zone containing the lookup key (built now if dormant), if served at `now`. */
  find(key: string, now: number): Zone | null {
    for (let k = key; ; ) {
      const h = this.byKey.get(k);
      if (h) {
        const z = isDormant(h) ? this.wake(h) : h;
        return z && (z.expiresAt === null || now < z.expiresAt) ? z : null;
      }
      if (k === '') return null;
      k = parentKey(k);
    }
  }

  /** The zone with this id, built (now, if dormant). */
  zone(id: number): Zone | undefined {
    const h = this.byId.get(id);
    return h && isDormant(h) ? (this.wake(h) ?? undefined) : h;
  }

  /** The zone with this id if it is built (a dormant one is left as it is). */
  built(id: number): Zone | undefined {
    const h = this.byId.get(id);
    return h && !isDormant(h) ? h : undefined;
  }

  /** The zone with this id as held, dormant or built (nothing is built). */
  held(id: number): Held | undefined {
    return this.byId.get(id);
  }

  set(id: number, h: Held): void {
    this.byId.set(id, h);
    this.byKey.set(h.key, h);
  }

  remove(id: number): void {
    const h = this.byId.get(id);
    if (!h) return;
    this.byId.delete(id);
    if (this.byKey.get(h.key) === h) this.byKey.delete(h.key);
  }

  /** Builds a dormant zone in its place; one that cannot be built is no longer held (`wakeFailed`). */
  private wake(d: Dormant): Zone | null {
    try {
      const zone = this.versions.wake(d.id, d.text);
      this.set(d.id, zone);
      return zone;
    } catch (e) {
      this.remove(d.id);
      this.wakeFailed(d.id, d.key, e);
      return null;
    }
  }
}
