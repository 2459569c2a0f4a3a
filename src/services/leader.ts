/**
 * Which node of a cluster does the work that must happen once, not once per node: NOTIFY to secondaries
 * and zone-mirror transfers. The leader is the holder of the store's leader lock (a PostgreSQL session
 * advisory lock); the others try again every few seconds, so one of them takes over soon after the
 * leader dies. On SQLite the single node is always the leader.
 */
import type { ClusterStore, LeaderLock } from '../store/store.js';

export const DEFAULT_LEADER_RETRY_MS = 2000;

export interface LeaderLog {
  info(message: string): void;
  warn(message: string): void;
}

export class Leadership {
  private leader = false;
  private lock: LeaderLock | null = null;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private stopped = false;
  /** The last failure reported, so a database that stays away is logged once, not every round. */
  private lastError = '';

  constructor(
    private readonly store: Pick<ClusterStore, 'leaderLock'>,
    private readonly log: LeaderLog,
    private readonly retryMs = DEFAULT_LEADER_RETRY_MS,
  ) {}

  isLeader(): boolean {
    return this.leader;
  }

  async start(): Promise<void> {
    this.lock = this.store.leaderLock((why) => this.set(false, why));
    if (!this.lock) {
      this.leader = true;
      return;
    }
    await this.check();
    this.timer = setInterval(() => void this.check(), this.retryMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
    this.leader = false;
    await this.lock?.release();
  }

  /** One attempt at a time. */
  private check(): Promise<void> {
    this.running ??= (async () => {
      try {
        const held = await (this.lock as LeaderLock).tryHold();
        this.lastError = '';
        if (!this.stopped) this.set(held, 'another node holds the lock');
      } catch (e) {
        const message = (e as Error).message;
        if (message !== this.lastError) this.log.warn(`leader lock unavailable (${message}); retrying every ${this.retryMs / 1000} s`);
        this.lastError = message;
        this.set(false, message);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  private set(leader: boolean, why: string): void {
    if (leader === this.leader) return;
    this.leader = leader;
    if (leader) this.log.info('this node is now the leader: it sends NOTIFY to secondaries and runs zone-mirror transfers');
    else this.log.warn(`this node is no longer the leader (${why})`);
  }
}
