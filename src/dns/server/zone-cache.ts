/**
 * The zones this node serves, in memory: loaded through services.zones at start (in bulk, while already
 * answering) and rebuilt one zone at a time from change events. Events arrive synchronously right after
 * commit, before the API answers, so each one marks the zone's names as pending at once; queries under
 * those names wait for the rebuild and never see an older zone, while queries for other zones go on. A
 * changed zone is rebuilt at once when a query needs it, otherwise REBUILD_DELAY_MS later, so a burst of
 * writes to a large zone costs one rebuild, not one each. Each version is made (built or patched, and
 * signed) by zone-versions.ts.
 */
import type { StoredDomain } from '../../model/domain.js';
import type { ZoneEvent } from '../../model/zone-event.js';
import { keyOf, parentKey } from '../../model/labels.js';
import type { Services } from '../../services/index.js';
import type { ServedZone, ZoneBatch, ZoneDelta } from '../../services/zones.js';
import type { AliasUsers } from '../alias/users.js';
import type { SignedView } from '../dnssec/secure.js';
import type { SignatureCache } from '../dnssec/sign.js';
import type { Zone } from '../zone/zone.js';
import { HeldZones, type Held } from './held-zones.js';
import { ZoneVersions } from './zone-versions.js';

const RETRY_MS = 5000;
/** How long a changed zone waits for more changes before it is rebuilt, unless a query needs it first. */
const REBUILD_DELAY_MS = 100;
/** Master zones read per store query when every zone is loaded at start (small enough that a batch's rows die young). */
const LOAD_CHUNK = 250;

/** A load of one zone that queries may wait for. */
interface Pending {
  id: number;
  promise: Promise<void>;
  resolve: () => void;
  /** The lookup keys under which it is waited for (see `waiting`). */
  keys: string[];
}

function pendingLoad(id: number): Pending {
  let resolve = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { id, promise, resolve, keys: [] };
}

export interface ZoneCacheOptions {
  nameservers: readonly string[];
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Called when a change is heard and again when a zone has been replaced (to drop derived caches). */
  changed?: () => void;
  /** Where our signed zones' signatures are made and kept (shared with transfers). */
  signatures: SignatureCache;
  /** Told of the zones' ALIAS records (their targets are resolved while in use). */
  aliases?: AliasUsers;
}

/**
 * The zones this node serves, in memory. At start every served zone is read in a few large store queries
 * while the server already answers: a query for a zone not read yet has that zone loaded first, on its
 * own, and waits only for it. After that each zone is rebuilt from change events.
 */
export class ZoneCache {
  private readonly held: HeldZones;
  /** Zone ids waiting for a load of their own, and the promise that settles when none are left. */
  private readonly queued = new Set<number>();
  private pendingPromise: Promise<void> | null = null;
  /** Per zone id: settles when the next load of that zone (one not started yet) is done. */
  private readonly nextLoad = new Map<number, Pending>();
  /**
   * Lookup keys of zones changed or not loaded yet, each with the load a query under it must wait for
   * ('' stands for every name). A query waits for at most the load that starts after the last change it
   * must see, so a stream of writes to a zone never holds its queries up for longer.
   */
  private readonly waiting = new Map<string, Pending>();
  /** Loads that failed are tried again later, without holding up queries meanwhile. */
  private readonly retries = new Map<number, NodeJS.Timeout>();
  /** The delayed rebuild of changed zones, when one is planned. */
  private delayed: NodeJS.Timeout | undefined;
  /** A query waits for a zone that a running rebuild round does not cover: start the next round at once. */
  private urgent = false;
  /** While the start-up load runs: zones changed since it began, which it must leave to their own loads. */
  private changedDuringLoad: Set<number> | null = null;
  private initialLoad: Promise<void> = Promise.resolve();
  /**
   * Zones listed at start that have not been loaded yet (a failed load stays here until it succeeds), by
   * id and by lookup key. A query under one makes its Pending on demand, so the start-up load of 100,000
   * zones does not hold 100,000 promises.
   */
  private readonly notLoaded = new Map<number, string>();
  private readonly notLoadedKeys = new Map<string, number>();
  /** Zones whose last load failed, until a retry succeeds; one never loaded is answered SERVFAIL meanwhile. */
  private readonly failing = new Set<number>();
  /** Zones whose next load must read them whole: a change other than to records was heard (settings, DNSSEC, a rename). */
  private readonly wholeNext = new Set<number>();
  private stopped = false;
  private offBus: (() => void) | null = null;
  private readonly versions: ZoneVersions;

  constructor(
    private readonly services: Services,
    private readonly opts: ZoneCacheOptions,
  ) {
    this.versions = new ZoneVersions(opts.signatures, opts.log, opts.aliases);
    this.held = new HeldZones(this.versions, (id, key, e) => this.wakeFailed(id, key, e));
  }

  /**
   * Subscribes to changes first (so none is missed) and lists the served zones; queries for them wait
   * from now on until their zone is in memory. Loading every zone goes on in the background (`loaded`).
   */
  async start(): Promise<void> {
    this.offBus = this.services.bus.on((c) => this.onChange(c));
    this.changedDuringLoad = new Set();
    const domains = await this.services.zones.listServed();
    for (const d of domains) {
      const key = keyOf(d.domain);
      this.notLoaded.set(d.id, key);
      this.notLoadedKeys.set(key, d.id);
    }
    this.initialLoad = this.loadAll(domains);
  }

  /** Settles once every zone served at start has been loaded (or has failed to load and is retried). */
  get loaded(): Promise<void> {
    return this.initialLoad;
  }

  stop(): void {
    this.stopped = true;
    this.offBus?.();
    clearTimeout(this.delayed);
    for (const t of this.retries.values()) clearTimeout(t);
    this.retries.clear();
  }

  /**
   * What a query for `question` must wait for before it is answered: loads of zones above it, or null (its key
   * read only while a load is under way). A zone the query must wait for is loaded at once rather than after
   * REBUILD_DELAY_MS or in its turn at start.
   */
  pendingFor(question: { readonly key: string }): Promise<unknown> | null {
    if (this.waiting.size === 0 && this.notLoadedKeys.size === 0) return null;
    const key = question.key;
    const waits: Pending[] = [];
    const all = this.waiting.get('');
    if (all) waits.push(all);
    for (let k = key; k !== ''; k = parentKey(k)) {
      let p = this.waiting.get(k);
      const unloaded = p ? undefined : this.notLoadedKeys.get(k);
      // A zone that failed to load is retried on its timer, not once for every query.
      if (unloaded !== undefined && !this.failing.has(unloaded)) this.waitFor(k, (p = this.pendingOf(unloaded)));
      if (p && p !== all) waits.push(p);
    }
    if (waits.length === 0) return null;
    // Queued unless that load has already begun.
    for (const p of waits) if (this.nextLoad.get(p.id) === p) this.queued.add(p.id);
    this.urgent = true;
    if (!this.pendingPromise) this.schedule();
    return waits.length === 1 ? (waits[0] as Pending).promise : Promise.all(waits.map((p) => p.promise));
  }

  /** The most specific zone containing the lookup key, if served now. */
  find(key: string, now: number): Zone | null {
    return this.held.find(key, now);
  }

  /** The signed view of a zone version, when the zone is signed. */
  signed(zone: Zone): SignedView | undefined {
    return this.versions.signed(zone);
  }

  /** Whether the most specific zone containing the key is one listed at start that failed to load (SERVFAIL). */
  unavailable(key: string): boolean {
    for (let k = key; ; k = parentKey(k)) {
      const id = this.notLoadedKeys.get(k);
      if (id !== undefined) return this.failing.has(id);
      if (k === '') return false;
    }
  }

  /** Zones in memory. */
  get size(): number {
    return this.held.size;
  }

  /** Zones listed at start not in memory yet: 0 once the start-up load is done. */
  get loading(): number {
    return this.notLoaded.size;
  }

  /**
   * A dormant zone could not be built: it goes back to the zones not loaded (answered SERVFAIL), as a zone whose
   * start-up load failed, and is loaded again later.
   */
  private wakeFailed(id: number, key: string, e: unknown): void {
    this.notLoaded.set(id, key);
    this.notLoadedKeys.set(key, id);
    this.failed(id, undefined, e);
  }

  private pendingOf(id: number): Pending {
    let next = this.nextLoad.get(id);
    if (!next) this.nextLoad.set(id, (next = pendingLoad(id)));
    return next;
  }

  private waitFor(key: string, p: Pending): void {
    this.waiting.set(key, p);
    p.keys.push(key);
  }

  /** Installs a loaded zone (null: not served) in place of the one in memory, and releases its waiters. */
  private install(id: number, zone: Held | null, done: Pending | undefined): void {
    this.failing.delete(id);
    const key = this.notLoaded.get(id);
    if (key !== undefined) {
      this.notLoaded.delete(id);
      if (this.notLoadedKeys.get(key) === id) this.notLoadedKeys.delete(key);
    }
    this.held.remove(id);
    if (zone) this.held.set(id, zone);
    else this.opts.aliases?.forget(id);
    this.release(done);
  }

  private release(done: Pending | undefined): void {
    if (!done) return;
    for (const k of done.keys) if (this.waiting.get(k) === done) this.waiting.delete(k);
    done.resolve();
  }

  private onChange(c: ZoneEvent): void {
    // A deleted zone goes at once; the queued reload also undoes a load that was in flight meanwhile.
    if (c.kind === 'domain.deleted') this.held.remove(c.domainId);
    if (c.kind !== 'records.changed') this.wholeNext.add(c.domainId);
    this.changedDuringLoad?.add(c.domainId);
    this.opts.changed?.();
    // The new name, the old one, and the name now in memory (events from other nodes may lack one of them).
    const next = this.pendingOf(c.domainId);
    const names = [c.domain, c.previousDomain, this.held.held(c.domainId)?.key];
    if (!c.domain) this.waitFor('', next);
    for (const n of names) if (n) this.waitFor(keyOf(n), next);
    this.queued.add(c.domainId);
    this.later();
  }

  private later(): void {
    if (this.delayed || this.pendingPromise || this.stopped) return;
    this.delayed = setTimeout(() => this.schedule(), REBUILD_DELAY_MS);
    this.delayed.unref();
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

  /** Loads the zones queued when the round starts, one after another; a failure leaves the old copy. */
  private async drain(): Promise<void> {
    this.urgent = false;
    for (const id of [...this.queued]) {
      this.queued.delete(id);
      // Changes heard from now on need a later load than this one.
      const done = this.nextLoad.get(id);
      this.nextLoad.delete(id);
      const whole = this.wholeNext.delete(id);
      try {
        let read = await this.read(id, whole);
        // The version in memory was replaced while the journal was read (a start-up load): read it whole.
        if ('delta' in read && this.held.held(id) !== read.before) read = { whole: await this.services.zones.read(id, this.opts.nameservers) };
        // Made and installed in one go: a patch changes the names of the version in memory in place.
        this.install(id, 'delta' in read ? this.versions.patch(read.before, read.delta) : this.versions.build(read.whole, this.held.built(id)), done);
        this.opts.changed?.();
      } catch (e) {
        if (whole) this.wholeNext.add(id);
        this.failed(id, done, e);
      }
    }
  }

  /** A load failed: the copy in memory (if any) stays, waiting queries go on, and the load is retried later. */
  private failed(id: number, done: Pending | undefined, e: unknown): void {
    this.opts.log.warn({ domainId: id, err: (e as Error).message }, 'zone could not be loaded; keeping the previous copy, trying again later');
    this.failing.add(id);
    this.retryLater(id);
    this.release(done);
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

  /**
   * The start-up load: master zones LOAD_CHUNK at a time, each chunk's domains and records in one store
   * query each, other work let through between chunks. Zones changed meanwhile, or already loaded because
   * a query asked, are left to their own loads; mirrors are queued for theirs.
   */
  private async loadAll(domains: readonly Pick<StoredDomain, 'id' | 'kind'>[]): Promise<void> {
    const started = Date.now();
    const masters: number[] = [];
    for (const d of domains) {
      if (d.kind === 'master') masters.push(d.id);
      else this.queued.add(d.id);
    }
    if (this.queued.size > 0) this.later();
    for (let i = 0; i < masters.length && !this.stopped; ) {
      const chunk = masters.slice(i, i + LOAD_CHUNK);
      const [first, last] = [chunk[0] as number, chunk[chunk.length - 1] as number];
      let batch: ZoneBatch;
      try {
        batch = await this.services.zones.batch(first, last, this.opts.nameservers);
      } catch (e) {
        if (this.stopped) break; // the store closes with the node
        this.opts.log.warn({ err: (e as Error).message }, 'zones could not be loaded; trying again');
        await new Promise((r) => setTimeout(r, RETRY_MS).unref());
        continue;
      }
      for (const id of chunk) {
        if (!this.notLoaded.has(id) || this.changedDuringLoad?.has(id)) continue;
        // A query may have queued it meanwhile: this load serves that query as well.
        const done = this.nextLoad.get(id);
        this.nextLoad.delete(id);
        this.queued.delete(id);
        try {
          this.install(id, this.startUpZone(batch.zone(id), this.held.built(id)), done);
        } catch (e) {
          this.failed(id, done, e);
        }
      }
      this.opts.changed?.();
      i += LOAD_CHUNK;
      // Queries and API requests go on between chunks (a SQLite read holds the event loop).
      await new Promise((r) => setImmediate(r));
    }
    this.changedDuringLoad = null;
    if (!this.stopped) this.opts.log.info({ zones: this.held.size, ms: Date.now() - started }, 'zones loaded');
  }

  /** A zone of the start-up load: dormant when it can be, else built (`before`: a copy a query had loaded meanwhile). */
  private startUpZone(z: ServedZone | null, before: Zone | undefined): Held | null {
    const text = z && !before ? this.versions.asleep(z) : null;
    if (z && text !== null) return { id: z.domain.id, key: keyOf(z.content.soa.name), text };
    return this.versions.build(z, before);
  }

  /**
   * What the next version of a zone is made from. A master zone in memory that only had records changed
   * is patched at the names the journal says were touched, so a write to a large zone costs in proportion
   * to the write, not to the zone; otherwise the zone as it should be served now, read whole (null when
   * the domain is gone, inactive or has no copy).
   */
  private async read(id: number, whole: boolean): Promise<{ delta: ZoneDelta; before: Zone } | { whole: ServedZone | null }> {
    // A packed zone is built to be patched, not to be read whole again (a version built anew needs only a signed one before it).
    const before = whole ? undefined : this.held.zone(id);
    if (before && before.expiresAt === null) {
      const delta = await this.services.zones.changedSince(id, before.serial, this.opts.nameservers);
      if (delta) return { delta, before };
    }
    return { whole: await this.services.zones.read(id, this.opts.nameservers) };
  }
}
