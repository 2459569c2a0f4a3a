/**
 * Runs the health checks, on the cluster's leader only (services/leader.ts), as transfers and DNSSEC's timed
 * steps run: every check is probed every `interval` seconds, `fall` failures in a row make it down, `rise`
 * successes up, and a change is written through HealthCheckService.setStatus. The list of checks is read
 * again every second, so a check made or changed on any node is probed from the next second on. A node that
 * stops leading stops probing at its next probe; the next leader starts from the stored statuses.
 */
import type { HealthStatus, StoredHealthCheck } from '../model/health-check.js';
import { nextStatus } from '../model/health-check.js';
import type { HealthCheckService } from './health-checks.js';
import { probe as realProbe, type Probe } from './health-probe.js';

export interface HealthRunnerLog {
  info(obj: object, message: string): void;
  warn(obj: object, message: string): void;
}

/** One check being run: what it was started with, its results in a row (+ successes, − failures), its timer. */
interface Running {
  check: StoredHealthCheck;
  fields: string;
  streak: number;
  status: HealthStatus;
  timer: NodeJS.Timeout | undefined;
  stopped: boolean;
}

/** How often the list of checks is read again. */
const RELOAD_MS = 1000;

/** A check's fields as one string: a change to any of them restarts its probing. */
const fieldsOf = (c: StoredHealthCheck) => JSON.stringify([c.type, c.address, c.port, c.path, c.host, c.interval, c.timeout, c.fall, c.rise]);

export class HealthRunner {
  private readonly running = new Map<number, Running>();
  private reload: NodeJS.Timeout | undefined;
  private loading: Promise<void> | null = null;
  /** Status writes under way (stop waits for them; a probe in flight is left to its timeout). */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly service: HealthCheckService,
    private readonly isLeader: () => boolean,
    private readonly log: HealthRunnerLog,
    private readonly probe: Probe = realProbe,
  ) {}

  start(): void {
    void this.sync();
    this.reload = setInterval(() => void this.sync(), RELOAD_MS);
    this.reload.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.reload);
    await this.loading;
    for (const r of this.running.values()) this.halt(r);
    this.running.clear();
    await Promise.all([...this.pending]);
  }

  /** One reading of the list at a time (its end, in a later microtask, always after it was noted as under way). */
  private sync(): Promise<void> {
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  /** Starts the checks that are new or changed, stops those gone; stops them all while this node does not lead. */
  private async load(): Promise<void> {
    try {
      const checks = this.isLeader() ? await this.service.all() : [];
      const seen = new Set<number>();
      for (const c of checks) {
        seen.add(c.id);
        const r = this.running.get(c.id);
        if (r && r.fields === fieldsOf(c)) continue;
        if (r) this.halt(r);
        this.begin(c);
      }
      for (const [id, r] of this.running) {
        if (seen.has(id)) continue;
        this.halt(r);
        this.running.delete(id);
      }
    } catch (e) {
      this.log.warn({ err: (e as Error).message }, 'health checks could not be read; trying again');
    }
  }

  private begin(check: StoredHealthCheck): void {
    const r: Running = { check, fields: fieldsOf(check), streak: 0, status: check.status, timer: undefined, stopped: false };
    this.running.set(check.id, r);
    this.next(r, 0);
  }

  private halt(r: Running): void {
    r.stopped = true;
    clearTimeout(r.timer);
  }

  /** Probes again `delayMs` from now; each probe starts one interval after the one before started. */
  private next(r: Running, delayMs: number): void {
    r.timer = setTimeout(() => {
      if (r.stopped) return;
      this.next(r, r.check.interval * 1000);
      // Kept ticking while another node leads: it may lead again before the next reading of the list.
      if (!this.isLeader()) return;
      this.once(r).catch((e: unknown) => this.log.warn({ healthcheck: r.check.id, err: (e as Error).message }, 'health check probe failed'));
    }, delayMs);
    r.timer.unref();
  }

  private async once(r: Running): Promise<void> {
    // The operator's rules hold at every probe, not only when the check was made (--healthcheck-allow may have narrowed).
    const refusal = this.service.policy.refusal(r.check.address);
    const result = refusal ? { ok: false as const, why: `${r.check.address} is ${refusal}, which --healthcheck-allow does not allow` } : await this.probe(r.check);
    if (r.stopped) return;
    r.streak = result.ok ? Math.max(r.streak, 0) + 1 : Math.min(r.streak, 0) - 1;
    const status = nextStatus(r.status, r.streak, r.check);
    if (status === r.status) return;
    const { id, address, port, type } = r.check;
    this.log.info({ healthcheck: id, type, address, port, status, ...(result.ok ? {} : { why: result.why }) }, 'health check status changed');
    const write = this.service.setStatus(r.check, status).then(
      () => {
        r.status = status;
      },
      // Tried again after the next probe: the status in memory is still the stored one.
      (e: unknown) => this.log.warn({ healthcheck: id, err: (e as Error).message }, 'health check status could not be stored'),
    );
    this.pending.add(write);
    await write;
    this.pending.delete(write);
  }
}
