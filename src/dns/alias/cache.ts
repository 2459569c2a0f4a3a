/**
 * ALIAS targets' addresses (A and AAAA apart), resolved through the configured resolver and kept: each for the
 * TTL its answer gave, resolved again when three quarters of it have passed (answers go on from the cache
 * meanwhile), and while the resolver cannot be reached the last addresses go on being served — with a short TTL
 * and RFC 8914's "Stale Answer" — for up to an hour past their TTL (RFC 8767's serve-stale). A target never
 * resolved, or one the resolver says does not exist, has no addresses: its queries get SERVFAIL with why.
 *
 * One cache on the main thread, which makes every answer: DNS worker threads only repeat the main thread's
 * encoded answers, each kept no longer than the addresses in it (Result.until), and emptied with the main
 * thread's cache whenever a target's addresses change (`onChange`).
 */
import { keyOf } from '../../model/labels.js';
import type { RecordFields, RecordType } from '../../model/records/index.js';
import { EDE, type ExtendedError } from '../wire/edns-options.js';
import { encodeRdata, type Rdata } from '../wire/writer.js';
import { NODATA_TTL, resolveAt, type Resolution, type ResolverAddress } from './resolver.js';

/** How long past their TTL the last addresses are served while the resolver cannot be reached. */
export const STALE_LIMIT_MS = 3600_000;
/** The TTL of addresses served stale (RFC 8767 4 recommends 30 s). */
export const STALE_TTL = 30;
/** A failed resolution is tried again this soon. */
const RETRY_MS = 5000;
/** The shortest wait between two resolutions of a target (its TTL may be 0). */
const MIN_REFRESH_MS = 1000;

/** A target's addresses of one type as an answer takes them, or what it must wait for, or why there are none. */
export type Addresses =
  | { kind: 'ready'; items: readonly Rdata[]; ttl: number; until: number; stale: boolean }
  | { kind: 'waiting'; done: Promise<void> }
  | { kind: 'failed'; ede: ExtendedError };

/** A target's records of one type for a zone transfer, and their TTL. */
export interface ResolvedRecords {
  records: readonly RecordFields[];
  ttl: number;
}

/** Resolves one name's records of one type (resolver.ts resolveAt, or a test's). */
export type Resolve = (server: ResolverAddress, name: string, t: RecordType) => Promise<Resolution>;

interface Entry {
  name: string;
  type: RecordType;
  /** The records served; null when there are none to serve (never resolved, does not exist, stale too long). */
  data: RecordFields[] | null;
  items: Rdata[];
  ttl: number;
  /** Epoch ms at which `data` runs out (past it: stale). */
  expiresAt: number;
  /** Why there are no records (or why the last resolution failed). */
  failure: ExtendedError | null;
  /** The last resolution failed while `data` was kept: past `expiresAt` it is served stale. */
  unreachable: boolean;
  settled: boolean;
  resolving: Promise<void> | null;
  timer: NodeJS.Timeout | undefined;
  /** Zones using the target (AliasUsers); at 0 the entry goes at its next refresh. */
  users: number;
}

export class AliasCache {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(target: string) => void>();
  private stopped = false;

  constructor(
    private readonly resolver: ResolverAddress | null,
    private readonly now: () => number = Date.now,
    private readonly resolve: Resolve = resolveAt,
  ) {}

  /** What an A or AAAA query at an ALIAS of `target` is answered with now. */
  addresses(target: string, type: RecordType): Addresses {
    const e = this.entry(target, type);
    if (e.data === null) return e.settled ? { kind: 'failed', ede: e.failure ?? { code: EDE.OTHER, text: `${target} has no ${type.type} records` } } : { kind: 'waiting', done: this.fetch(e) };
    const now = this.now();
    if (now < e.expiresAt) return { kind: 'ready', items: e.items, ttl: e.ttl, until: e.expiresAt, stale: false };
    // Run out while being resolved again (a TTL shorter than a resolution): served, but kept in no answer cache.
    if (!e.unreachable) return { kind: 'ready', items: e.items, ttl: e.ttl, until: now, stale: false };
    return { kind: 'ready', items: e.items, ttl: Math.min(e.ttl, STALE_TTL), until: now + STALE_TTL * 1000, stale: true };
  }

  /** The target's records for a zone transfer, once it has been resolved at least once; null when it has none. */
  async records(target: string, type: RecordType): Promise<ResolvedRecords | null> {
    const e = this.entry(target, type);
    if (!e.settled) await this.fetch(e);
    if (e.data === null) return null;
    return { records: e.data, ttl: this.now() >= e.expiresAt && e.unreachable ? Math.min(e.ttl, STALE_TTL) : e.ttl };
  }

  /** A zone uses `target` (both types): it is resolved from now on, and kept up to date until `release`. */
  use(target: string, types: readonly RecordType[]): void {
    for (const t of types) {
      const e = this.entry(target, t);
      e.users++;
      if (!e.settled) void this.fetch(e);
    }
  }

  release(target: string, types: readonly RecordType[]): void {
    for (const t of types) {
      const e = this.entries.get(entryKey(target, t));
      if (e && e.users > 0) e.users--;
    }
  }

  /** Calls `fn` with the target whenever the addresses served for it change (not at its first resolution). */
  onChange(fn: (target: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  stop(): void {
    this.stopped = true;
    for (const e of this.entries.values()) clearTimeout(e.timer);
    this.entries.clear();
  }

  private entry(target: string, type: RecordType): Entry {
    const key = entryKey(target, type);
    let e = this.entries.get(key);
    if (!e) {
      e = { name: target, type, data: null, items: [], ttl: 0, expiresAt: 0, failure: null, unreachable: false, settled: false, resolving: null, timer: undefined, users: 0 };
      this.entries.set(key, e);
    }
    return e;
  }

  private fetch(e: Entry): Promise<void> {
    e.resolving ??= (async () => {
      const r: Resolution = this.resolver ? await this.resolve(this.resolver, e.name, e.type) : { kind: 'unreachable', why: 'no resolver is configured (--resolver)' };
      e.resolving = null;
      if (!this.stopped) this.settle(e, r);
    })();
    return e.resolving;
  }

  /** Takes a resolution in, plans the next, and tells the listeners when what is served changed. */
  private settle(e: Entry, r: Resolution): void {
    const now = this.now();
    const before = e.settled ? served(e) : null;
    let next = RETRY_MS;
    if (r.kind === 'records') {
      e.data = r.records;
      e.items = r.records.map((d) => encodeRdata(e.type, d));
      e.ttl = r.ttl;
      e.expiresAt = now + r.ttl * 1000;
      e.failure = null;
      e.unreachable = false;
      next = Math.max(MIN_REFRESH_MS, r.ttl * 750);
    } else if (r.kind === 'nxdomain') {
      e.data = null;
      e.failure = { code: EDE.OTHER, text: `the ALIAS target ${e.name} does not exist (NXDOMAIN from the resolver)` };
      next = NODATA_TTL * 1000;
    } else {
      e.unreachable = true;
      e.failure = { code: EDE.NETWORK_ERROR, text: `the ALIAS target ${e.name} could not be resolved: ${r.why}` };
      if (e.data !== null && now >= e.expiresAt + STALE_LIMIT_MS) e.data = null;
    }
    e.settled = true;
    clearTimeout(e.timer);
    e.timer = setTimeout(() => (e.users > 0 ? void this.fetch(e) : this.drop(e)), next);
    e.timer.unref();
    if (before !== null && before !== served(e)) for (const fn of this.listeners) fn(e.name);
  }

  private drop(e: Entry): void {
    const key = entryKey(e.name, e.type);
    if (this.entries.get(key) === e) this.entries.delete(key);
  }
}

const entryKey = (target: string, type: RecordType): string => `${keyOf(target)} ${type.code}`;

/** What an entry serves, as one comparable string: its records, or none. */
const served = (e: Entry): string => (e.data === null ? '' : JSON.stringify(e.data.map((d) => JSON.stringify(d)).sort()));
