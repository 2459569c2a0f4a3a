/**
 * The zones this node serves, in memory: loaded from the store at start and rebuilt one zone at a time
 * from change events. Events arrive synchronously right after commit, before the API answers, so each one
 * marks the zone's names as pending at once; queries under those names wait for the rebuild and never see
 * an older zone, while queries for other zones go on. A changed zone is rebuilt at once when a query needs
 * it, otherwise REBUILD_DELAY_MS later, so a burst of writes to a large zone costs one rebuild, not one each.
 */
import type { StoredDomain } from '../model/domain.js';
import { isServed } from '../model/domain.js';
import { relativeName } from '../model/names.js';
import { recordType, type RecordData } from '../model/records/index.js';
import type { Services, ZoneChange } from '../services/index.js';
import { mirrorExpiry } from './transfer/mirror.js';
import { keyOf, lowerAscii, parentKey, toWireRecord, type WireRecord } from './wire.js';
import { parseZone, zoneContent, type ZoneContent } from './zone-content.js';

/** A record as served, with the lookup key of the host name it wants addresses for (MX, SRV, NS targets). */
export interface ServedRecord extends WireRecord {
  additional: string | null;
}

export interface ZoneNode {
  /** Record sets by type number; empty for an empty non-terminal. */
  rrsets: Map<number, ServedRecord[]>;
}

export interface Zone {
  id: number;
  /** Lookup key of the apex. */
  key: string;
  soa: ServedRecord;
  /** Every owner name and every name between an owner and the apex, by lookup key. */
  nodes: Map<string, ZoneNode>;
  /** Epoch ms after which a mirror's copy is no longer served; null for master zones. */
  expiresAt: number | null;
}

/**
 * Builds the lookup structure of one zone. Records outside the zone or that cannot be put on the wire are
 * left out (reported through `skip`), never served half-encoded.
 */
export function buildZone(id: number, content: ZoneContent, expiresAt: number | null, skip: (why: string) => void): Zone {
  const apex = lowerAscii(content.soa.name);
  const key = keyOf(apex);
  const nodes = new Map<string, ZoneNode>();
  const nodeAt = (k: string): ZoneNode => {
    let n = nodes.get(k);
    if (!n) nodes.set(k, (n = { rrsets: new Map() }));
    return n;
  };
  const add = (a: ZoneContent['soa']): ServedRecord | null => {
    let served: ServedRecord;
    try {
      const wire = toWireRecord(a as { name: string; type: string; ttl?: number; data?: unknown });
      served = { ...wire, additional: additionalOf(a, apex) };
    } catch (e) {
      skip(`${a.name} ${a.type}: ${(e as Error).message}`);
      return null;
    }
    const k = keyOf(a.name);
    if (k !== key && !k.endsWith('.' + key)) {
      skip(`${a.name} ${a.type}: outside the zone ${apex}`);
      return null;
    }
    const node = nodeAt(k);
    const set = node.rrsets.get(served.type);
    if (set) set.push(served);
    else node.rrsets.set(served.type, [served]);
    // Names between the owner and the apex exist (empty non-terminals): NODATA there, not NXDOMAIN.
    for (let p = parentKey(k); p !== key && p !== ''; p = parentKey(p)) nodeAt(p);
    return served;
  };
  const soa = add(content.soa);
  if (!soa) throw new Error(`zone ${apex}: unusable SOA`);
  for (const a of content.answers) if (a.type !== 'SOA') add(a);
  // RFC 2181 5.2: the records of one set share a TTL; records given different ones are served at the lowest.
  for (const node of nodes.values()) {
    for (const set of node.rrsets.values()) {
      if (set.length < 2) continue;
      const ttl = Math.min(...set.map((r) => r.ttl));
      for (const r of set) r.ttl = ttl;
    }
  }
  return { id, key, soa, nodes, expiresAt };
}

/** The registry's additional-section target of a record, via its canonical form. */
function additionalOf(a: ZoneContent['soa'], zone: string): string | null {
  const t = recordType(a.type);
  if (!t?.additionalTarget || !('data' in a)) return null;
  const rel = relativeName(a.name + '.', zone) ?? a.name;
  const rec: RecordData = { type: t.type, name: rel, ttl: a.ttl ?? 0, ...t.fromWire(a.data, zone, rel) };
  const target = t.additionalTarget(rec);
  return target ? keyOf(target) : null;
}

const RETRY_MS = 5000;
/** How long a changed zone waits for more changes before it is rebuilt, unless a query needs it first. */
const REBUILD_DELAY_MS = 100;

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
}

function deferred(): Deferred {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

export interface ZoneCacheOptions {
  nameservers: readonly string[];
  log: { warn(obj: object, msg: string): void };
  /** Called when a change is heard and again when a zone has been replaced (to drop derived caches). */
  changed?: () => void;
}

export class ZoneCache {
  private readonly byKey = new Map<string, Zone>();
  private readonly byId = new Map<number, Zone>();
  /** Zone ids waiting for a rebuild, and the promise that settles when none are left. */
  private readonly queued = new Set<number>();
  private pendingPromise: Promise<void> | null = null;
  /** Per zone id: settles when the next rebuild of that zone (one not started yet) is done. */
  private readonly nextLoad = new Map<number, Deferred>();
  /**
   * Lookup keys of changed zones, each with the rebuild a query under it must wait for ('' stands for
   * every name). A query waits for at most the rebuild that starts after the last change it must see,
   * so a stream of writes to a zone never holds its queries up for longer.
   */
  private readonly waiting = new Map<string, Deferred>();
  /** Reloads that failed are tried again later, without holding up queries meanwhile. */
  private readonly retries = new Map<number, NodeJS.Timeout>();
  /** The delayed rebuild of changed zones, when one is planned. */
  private delayed: NodeJS.Timeout | undefined;
  /** A query waits for a zone that a running rebuild round does not cover: start the next round at once. */
  private urgent = false;
  private stopped = false;
  private offBus: (() => void) | null = null;

  constructor(
    private readonly services: Services,
    private readonly opts: ZoneCacheOptions,
  ) {}

  /** Subscribes to changes first (so none is missed), then loads every served zone. */
  async start(): Promise<void> {
    this.offBus = this.services.bus.on((c) => this.onChange(c));
    for (const d of await this.services.store.allDomains()) this.queued.add(d.id);
    this.schedule();
    await this.pendingPromise;
  }

  stop(): void {
    this.stopped = true;
    this.offBus?.();
    clearTimeout(this.delayed);
    for (const t of this.retries.values()) clearTimeout(t);
    this.retries.clear();
  }

  /**
   * What a query for `key` must wait for before it is answered: rebuilds of changed zones above it, or null.
   * A query that must wait starts the rebuild at once rather than after REBUILD_DELAY_MS.
   */
  pendingFor(key: string): Promise<unknown> | null {
    if (this.waiting.size === 0) return null;
    const waits: Promise<void>[] = [];
    for (const [k, d] of this.waiting) if (k === '' || key === k || key.endsWith('.' + k)) waits.push(d.promise);
    if (waits.length === 0) return null;
    this.urgent = true;
    if (!this.pendingPromise) this.schedule();
    return waits.length === 1 ? (waits[0] as Promise<void>) : Promise.all(waits);
  }

  /** The most specific zone containing the lookup key, if served now. */
  find(key: string, now: number): Zone | null {
    for (let k = key; ; ) {
      const z = this.byKey.get(k);
      if (z) return z.expiresAt === null || now < z.expiresAt ? z : null;
      if (k === '') return null;
      k = parentKey(k);
    }
  }

  get size(): number {
    return this.byId.size;
  }

  private onChange(c: ZoneChange): void {
    // A deleted zone goes at once; the queued reload also undoes a load that was in flight meanwhile.
    if (c.kind === 'domain.deleted') this.remove(c.domainId);
    this.opts.changed?.();
    // The new name, the old one, and the name now in memory (events from other nodes may lack one of them).
    let next = this.nextLoad.get(c.domainId);
    if (!next) this.nextLoad.set(c.domainId, (next = deferred()));
    const names = [c.domain, c.previousDomain, this.byId.get(c.domainId)?.key];
    if (!c.domain) this.waiting.set('', next);
    for (const n of names) if (n) this.waiting.set(keyOf(n), next);
    this.queued.add(c.domainId);
    this.later();
  }

  private later(): void {
    if (this.delayed || this.pendingPromise || this.stopped) return;
    this.delayed = setTimeout(() => this.schedule(), REBUILD_DELAY_MS);
    this.delayed.unref();
  }

  private remove(id: number): void {
    const z = this.byId.get(id);
    if (!z) return;
    this.byId.delete(id);
    if (this.byKey.get(z.key) === z) this.byKey.delete(z.key);
  }

  private schedule(): void {
    clearTimeout(this.delayed);
    this.delayed = undefined;
    this.pendingPromise ??= this.drain().finally(() => {
      this.pendingPromise = null;
      // Zones changed during the round: at once if a query waits for one, else after the delay.
      if (this.queued.size === 0) return;
      if (this.urgent) this.schedule();
      else this.later();
    });
  }

  /** Rebuilds the zones queued when the round starts, one after another; a failure leaves the old copy. */
  private async drain(): Promise<void> {
    this.urgent = false;
    for (const id of [...this.queued]) {
      this.queued.delete(id);
      // Changes heard from now on need a later rebuild than this one.
      const done = this.nextLoad.get(id);
      this.nextLoad.delete(id);
      try {
        const zone = await this.load(id);
        this.remove(id);
        if (zone) {
          this.byId.set(id, zone);
          this.byKey.set(zone.key, zone);
        }
        this.opts.changed?.();
      } catch (e) {
        this.opts.log.warn({ domainId: id, err: (e as Error).message }, 'zone could not be loaded; keeping the previous copy');
        this.retryLater(id);
      } finally {
        if (done) {
          for (const [k, d] of this.waiting) if (d === done) this.waiting.delete(k);
          done.resolve();
        }
      }
    }
  }

  private retryLater(id: number): void {
    if (this.retries.has(id)) return;
    const timer = setTimeout(() => {
      this.retries.delete(id);
      this.queued.add(id);
      this.schedule();
    }, RETRY_MS);
    timer.unref();
    this.retries.set(id, timer);
  }

  /** The zone as it should be served now, or null when the domain is gone, inactive or has no copy. */
  private async load(id: number): Promise<Zone | null> {
    const d: StoredDomain | undefined = await this.services.store.domainById(id);
    if (!d || !isServed(d.status)) return null;
    const skip = (why: string) => this.opts.log.warn({ domain: d.domain, why }, 'record not served');
    if (d.kind === 'master') {
      const records = await this.services.store.listRecords(id);
      return buildZone(id, zoneContent(d, records, this.opts.nameservers), null, skip);
    }
    const text = await this.services.mirrors.zoneOf(id);
    if (!text) return null;
    const content = parseZone(text);
    const expiresAt = mirrorExpiry(await this.services.mirrors.stateOf(id), content);
    if (expiresAt === null || keyOf(content.soa.name) !== keyOf(d.domain)) return null;
    return buildZone(id, content, expiresAt, skip);
  }
}
