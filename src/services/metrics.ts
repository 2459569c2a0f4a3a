/**
 * In-memory counters: DNS queries per zone per minute over the last 24 hours (interface B shows them, the
 * control panel draws them) and totals of DNS queries and HTTP requests, exported in Prometheus' text
 * format. Nothing is stored: a restart starts the counts again, as Prometheus counters expect.
 */
import type { ChangeBus } from './events.js';

const MINUTE_MS = 60_000;
/** Minutes of per-minute query counts kept for each zone (24 hours). */
export const QUERY_MINUTES = 24 * 60;

/** A ring of per-minute counts; a slot belongs to the minute stamped on it, older stamps count as zero. */
class MinuteRing {
  private readonly counts = new Uint32Array(QUERY_MINUTES);
  private readonly stamps = new Float64Array(QUERY_MINUTES).fill(-1);
  total = 0;

  constructor(public name: string) {}

  add(minute: number): void {
    const slot = minute % QUERY_MINUTES;
    if (this.stamps[slot] !== minute) {
      this.stamps[slot] = minute;
      this.counts[slot] = 0;
    }
    this.counts[slot] = (this.counts[slot] ?? 0) + 1;
    this.total++;
  }

  /** Counts of the QUERY_MINUTES minutes ending with `last`, oldest first. */
  window(last: number): number[] {
    const out: number[] = [];
    for (let m = last - QUERY_MINUTES + 1; m <= last; m++) {
      const slot = ((m % QUERY_MINUTES) + QUERY_MINUTES) % QUERY_MINUTES;
      out.push(this.stamps[slot] === m ? (this.counts[slot] ?? 0) : 0);
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

  constructor(
    bus: ChangeBus,
    private readonly now: () => number = Date.now,
  ) {
    // A deleted zone's counts go with it (its id is never reused, so nothing else would free them).
    bus.on((c) => {
      const ring = this.zones.get(c.domainId);
      if (c.kind === 'domain.deleted') this.zones.delete(c.domainId);
      else if (ring) ring.name = c.domain; // a rename
    });
  }

  /** One query answered from zone `zoneId` (named `zone`). */
  countQuery(zoneId: number, zone: string): void {
    let ring = this.zones.get(zoneId);
    if (!ring) this.zones.set(zoneId, (ring = new MinuteRing(zone)));
    ring.add(Math.floor(this.now() / MINUTE_MS));
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

  /** Every counter in the Prometheus text exposition format (version 0.0.4). */
  prometheus(): string {
    const lines = [
      '# HELP zonehost_dns_queries_total DNS queries answered from each zone since the process started.',
      '# TYPE zonehost_dns_queries_total counter',
      ...[...this.zones.values()].map((r) => `zonehost_dns_queries_total{zone="${label(r.name)}"} ${r.total}`),
      '# HELP zonehost_http_requests_total HTTP API requests answered, by interface, method and status code.',
      '# TYPE zonehost_http_requests_total counter',
      ...[...this.requests].map(([k, n]) => `zonehost_http_requests_total{${k}} ${n}`),
    ];
    return lines.join('\n') + '\n';
  }
}
