import { Kysely, sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { ZoneEvent } from '../../model/zone-event.js';
import { KyselyOps, KyselyStore } from '../kysely-store.js';
import type { Database } from '../schema.js';
import { UniqueViolation, type LeaderLock, type StoreOps } from '../store.js';
import { createPool, DEFAULT_QUERY_TIMEOUT_MS, GuardedPool, isTransient, parsePostgresUrl, postgresDialect, quoteIdent, waitForDatabase, type ParsedUrl, type PostgresOptions } from './pg-dialect.js';

function mapPgError(e: unknown): never {
  const err = e as { code?: string; constraint?: string; message?: string };
  if (err?.code === '23505') throw new UniqueViolation(err.constraint ?? err.message ?? 'unique');
  throw e;
}

/** A commit whose outcome is unknown (the connection broke while committing): never retried. */
class CommitFailed extends Error {
  constructor(override readonly cause: unknown) {
    super(`commit failed: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

const ATTEMPTS = 4;
/** Retries stop once this long has passed since the first attempt: a caller is waiting for the answer. */
const RETRY_WINDOW_MS = 3000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class PostgresStore extends KyselyStore {
  readonly dialect = 'postgres' as const;

  private constructor(
    kysely: Kysely<Database>,
    private readonly parsed: ParsedUrl,
    private readonly log: (message: string) => void,
    private readonly guard: GuardedPool,
  ) {
    // One channel per schema: test runs and tenants sharing a database do not hear each other.
    super(kysely, mapPgError, `zonehost_changes${parsed.schema ? `:${parsed.schema}` : ''}`, randomUUID());
  }

  /** Waits for the database (see PostgresOptions.connectTimeoutMs), creates the URL's schema if missing, opens the pool. */
  static async open(url: string, opts: PostgresOptions = {}): Promise<PostgresStore> {
    const parsed = parsePostgresUrl(url);
    await waitForDatabase(parsed, opts);
    const guard = new GuardedPool(createPool(parsed, opts), opts.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS);
    const store = new PostgresStore(new Kysely<Database>({ dialect: postgresDialect(guard) }), parsed, opts.log ?? (() => {}), guard);
    try {
      // Kysely looks for its migration tables in every schema unless told which one is ours.
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(store.kysely);
      store.migrationSchema = rows[0]?.schema ?? 'public';
    } catch (e) {
      await store.close();
      throw e;
    }
    return store;
  }

  /** Migrations may rewrite whole tables: their queries are not held to the query timeout. */
  override async migrate(): Promise<void> {
    this.guard.patient = true;
    try {
      await super.migrate();
    } finally {
      this.guard.patient = false;
    }
  }

  /**
   * READ COMMITTED plus the row locks the services take (lockDomain, lockAccount) keeps concurrent
   * writers on one zone in a queue. A transaction that fails on a lost connection, a deadlock or a
   * serialisation failure before COMMIT was sent rolled back as a whole, so it is run again; a failed
   * COMMIT is reported, not repeated, since it may have taken effect.
   */
  override async transaction<T>(fn: (tx: StoreOps) => Promise<T>): Promise<T> {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.kysely.connection().execute(async (conn) => {
          await sql`begin`.execute(conn);
          let value: T;
          try {
            value = await fn(new KyselyOps(conn, this.mapError, this.channel, this.origin));
          } catch (e) {
            await sql`rollback`.execute(conn).catch(() => {});
            throw e;
          }
          try {
            await sql`commit`.execute(conn);
          } catch (e) {
            throw new CommitFailed(e);
          }
          return value;
        });
      } catch (e) {
        if (e instanceof CommitFailed) {
          this.log(`PostgreSQL ${e.message}; the change may or may not have been applied`);
          throw e.cause;
        }
        if (attempt >= ATTEMPTS || Date.now() - started > RETRY_WINDOW_MS || !isTransient(e)) throw e;
        this.log(`PostgreSQL transaction failed (${(e as Error).message}); retrying (attempt ${attempt + 1} of ${ATTEMPTS})`);
        await sleep(50 * 2 ** attempt);
      }
    }
  }

  /**
   * A session advisory lock on a dedicated connection: PostgreSQL frees it the moment that session ends,
   * so a node that dies (or loses its connection) stops being the leader and another can take over.
   * While held, each call checks the connection still answers, with a timeout, instead of re-locking.
   */
  override leaderLock(onLost: (why: string) => void): LeaderLock {
    // One leader per schema, like the change channel.
    const key = `zonehost_leader${this.parsed.schema ? `:${this.parsed.schema}` : ''}`;
    let client: pg.Client | null = null;
    let held = false;
    const drop = (c: pg.Client, why: string) => {
      if (client !== c) return;
      client = null;
      void c.end().catch(() => {});
      if (held) {
        held = false;
        onLost(why);
      }
    };
    return {
      tryHold: async () => {
        if (!client) {
          const c = new pg.Client({ connectionString: this.parsed.connectionString, connectionTimeoutMillis: 5000, query_timeout: 5000, keepAlive: true });
          c.on('error', (e) => drop(c, e.message));
          c.on('end', () => drop(c, 'connection closed'));
          try {
            await c.connect();
          } catch (e) {
            await c.end().catch(() => {});
            throw e;
          }
          client = c;
        }
        const c = client;
        try {
          if (held) await c.query('select 1');
          else held = (await c.query<{ held: boolean }>('select pg_try_advisory_lock(hashtextextended($1, 0)) as held', [key])).rows[0]?.held === true;
        } catch (e) {
          drop(c, (e as Error).message);
          throw e;
        }
        return held;
      },
      release: async () => {
        const c = client;
        client = null;
        held = false;
        // Ending the session releases its advisory locks.
        await c?.end().catch(() => {});
      },
    };
  }

  /**
   * A dedicated connection LISTENs on the channel. When it breaks, it is re-opened (with a log line)
   * until it works again, and `resync` tells the caller to look for what it may have missed.
   */
  override async listen(listener: (change: ZoneEvent) => void, resync: () => void): Promise<() => Promise<void>> {
    let client: pg.Client | null = null;
    let stopped = false;
    let retry: NodeJS.Timeout | undefined;
    const channel = this.channel as string;
    const connect = async (): Promise<void> => {
      const c = new pg.Client({ connectionString: this.parsed.connectionString });
      c.on('notification', (n) => {
        if (n.channel !== channel || !n.payload) return;
        const { origin, change } = JSON.parse(n.payload) as { origin: string; change: ZoneEvent };
        if (origin !== this.origin) listener(change);
      });
      let lost = false;
      const onLost = (why: string) => {
        if (lost || stopped) return;
        lost = true;
        client = null;
        this.log(`PostgreSQL change feed lost (${why}); reconnecting`);
        void c.end().catch(() => {});
        reconnect(1);
      };
      // Until it listens, a failure surfaces as this function's rejection.
      c.on('error', () => {});
      try {
        await c.connect();
        await c.query(`listen ${quoteIdent(channel)}`);
      } catch (e) {
        await c.end().catch(() => {});
        throw e;
      }
      c.on('error', (e) => onLost(e.message));
      c.on('end', () => onLost('connection closed'));
      client = c;
    };
    const reconnect = (attempt: number) => {
      retry = setTimeout(() => {
        connect().then(
          () => {
            this.log('PostgreSQL change feed restored');
            resync();
          },
          (e: unknown) => {
            this.log(`PostgreSQL change feed: reconnect attempt ${attempt} failed (${(e as Error).message})`);
            if (!stopped) reconnect(attempt + 1);
          },
        );
      }, Math.min(500 * attempt, 5000));
    };
    await connect();
    return async () => {
      stopped = true;
      clearTimeout(retry);
      await (client as pg.Client | null)?.end().catch(() => {});
    };
  }
}
