/**
 * In-memory counters: DNS queries per zone per minute over the last 24 hours (interface B shows them, the
 * control panel draws them) and totals of DNS queries and HTTP requests, exported in Prometheus' text
 * format. Nothing is stored: a restart starts the counts again, as Prometheus counters expect.
 */
import type { ZoneEventBus } from './zone-events.js';

const MINUTE_MS = 60_000;
/** Minutes of per-minute query counts kept for each zone (24 hours). */
export const QUERY_MINUTES = 24 * 60;

/** Distinct minutes a zone's counts are kept as pairs for before they take a full ring. */
const SPARSE_MINUTES = 8;

/**
 * A zone's per-minute counts over the last QUERY_MINUTES. A zone queried in few minutes keeps
 * [minute, count] pairs (a few dozen bytes); one queried in more takes a ring of 4 bytes a minute
 * (5.6 KiB), where `last` is the newest minute counted and the slots of minutes skipped since are zeroed
 * when time moves on. At 100,000 zones the difference is half a gigabyte.
 */
class MinuteRing {
  private pairs: number[] | null = [];
  private counts: Uint32Array | null = null;
  private last = -Infinity;
  total = 0;

  constructor(public name: string) {}

  add(minute: number, n = 1): void {
    if (minute <= this.last - QUERY_MINUTES) return; // the clock went back past the window
    this.total += n;
    const pairs = this.pairs;
    if (pairs) {
      for (let i = 0; i < pairs.length; i += 2) {
        if (pairs[i] === minute) {
          pairs[i + 1] = (pairs[i + 1] ?? 0) + n;
          return;
        }
      }
      this.last = Math.max(this.last, minute);
      // Minutes that have left the window go; a new one is added while there is room.
      const kept: number[] = [];
      for (let i = 0; i < pairs.length; i += 2) if ((pairs[i] as number) > this.last - QUERY_MINUTES) kept.push(pairs[i] as number, pairs[i + 1] as number);
      if (kept.length / 2 < SPARSE_MINUTES) {
        kept.push(minute, n);
        this.pairs = kept;
        return;
      }
      // Too many minutes for pairs: into a ring (all zeros but for them).
      const counts = new Uint32Array(QUERY_MINUTES);
      for (let i = 0; i < kept.length; i += 2) counts[(kept[i] as number) % QUERY_MINUTES] = kept[i + 1] as number;
      counts[minute % QUERY_MINUTES] = n;
      this.counts = counts;
      this.pairs = null;
      return;
    }
    const counts = this.counts as Uint32Array;
    if (minute > this.last) {
      for (let m = Math.max(this.last + 1, minute - QUERY_MINUTES + 1); m <= minute; m++) counts[m % QUERY_MINUTES] = 0;
      this.last = minute;
    }
    const slot = minute % QUERY_MINUTES;
    counts[slot] = (counts[slot] ?? 0) + n;
  }

  /** Counts of the QUERY_MINUTES minutes ending with `last`, oldest first. */
  window(last: number): number[] {
    const first = last - QUERY_MINUTES + 1;
    const out = new Array<number>(QUERY_MINUTES).fill(0);
    if (this.pairs) {
      for (let i = 0; i < this.pairs.length; i += 2) {
        const m = this.pairs[i] as number;
        if (m >= first && m <= last) out[m - first] = (out[m - first] ?? 0) + (this.pairs[i + 1] as number);
      }
      return out;
    }
    const counts = this.counts as Uint32Array;
    for (let m = Math.max(first, this.last - QUERY_MINUTES + 1); m <= Math.min(last, this.last); m++) {
      out[m - first] = counts[((m % QUERY_MINUTES) + QUERY_MINUTES) % QUERY_MINUTES] ?? 0;
    }
    return out;
  }
}

export interface QueryCounts {
  /** Start of the first minute, epoch ms. */
  start: number;
  /** Queries in each minute from `start`, oldest first; the last entry is the current minute so far. */
  counts: number[];
}

/** Prometheus label values escape backslash, double quote and newline. */
const label = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export class Metrics {
  private readonly zones = new Map<number, MinuteRing>();
  private readonly requests = new Map<string, number>();
  /** Gauges and counters kept elsewhere, read whenever the metrics are. */
  private readonly readings = new Set<{ name: string; help: string; type: 'gauge' | 'counter'; read: () => number }>();

  constructor(
    bus: ZoneEventBus,
    private readonly now: () => number = Date.now,
  ) {
    // A deleted zone's counts go with it (its id is never reused, so nothing else would free them).
    bus.on((c) => {
      const ring = this.zones.get(c.domainId);
      if (c.kind === 'domain.deleted') this.zones.delete(c.domainId);
      else if (ring) ring.name = c.domain; // a rename
    });
  }

  /**
   * `n` queries (one unless a DNS worker thread reports several) answered from zone `zoneId` (named `zone`) at
   * `at` (epoch ms: the DNS server passes the time it read for the query, which spares a clock reading per query).
   */
  countQuery(zoneId: number, zone: string, n = 1, at = this.now()): void {
    let ring = this.zones.get(zoneId);
    if (!ring) this.zones.set(zoneId, (ring = new MinuteRing(zone)));
    ring.add(Math.floor(at / MINUTE_MS), n);
  }

  /** The last 24 hours of per-minute query counts of a zone (all zeros for a zone not queried). */
  queryCounts(zoneId: number): QueryCounts {
    const last = Math.floor(this.now() / MINUTE_MS);
    const ring = this.zones.get(zoneId);
    return { start: (last - QUERY_MINUTES + 1) * MINUTE_MS, counts: ring ? ring.window(last) : new Array<number>(QUERY_MINUTES).fill(0) };
  }

  /** One HTTP request answered; `iface` is "v1", "v3" or "other". */
  countRequest(iface: string, method: string, status: number): void {
    const key = `interface="${label(iface)}",method="${label(method)}",status="${status}"`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
  }

  /** A gauge read whenever the metrics are (e.g. zones in memory); returns the function that removes it. */
  gauge(name: string, help: string, read: () => number): () => void {
    return this.reading({ name, help, type: 'gauge', read });
  }

  /** A counter kept elsewhere (e.g. DNS answers dropped by rate limiting); returns the function that removes it. */
  counter(name: string, help: string, read: () => number): () => void {
    return this.reading({ name, help, type: 'counter', read });
  }

  private reading(r: { name: string; help: string; type: 'gauge' | 'counter'; read: () => number }): () => void {
    this.readings.add(r);
    return () => this.readings.delete(r);
  }

  /** Every counter and gauge in the Prometheus text exposition format (version 0.0.4). */
  prometheus(): string {
    const lines = [
      '# HELP zonehost_dns_queries_total DNS queries answered from each zone since the process started.',
      '# TYPE zonehost_dns_queries_total counter',
      ...[...this.zones.values()].map((r) => `zonehost_dns_queries_total{zone="${label(r.name)}"} ${r.total}`),
      '# HELP zonehost_http_requests_total HTTP API requests answered, by interface, method and status code.',
      '# TYPE zonehost_http_requests_total counter',
      ...[...this.requests].map(([k, n]) => `zonehost_http_requests_total{${k}} ${n}`),
      ...[...this.readings].flatMap((g) => [`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} ${g.type}`, `${g.name} ${g.read()}`]),
    ];
    return lines.join('\n') + '\n';
  }
}
