/** Opens the store on PostgreSQL: a pool for this node, transactions retried on transient failures, and the cluster's feed and leader lock. */
import { Kysely, sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { migrateToLatest, storeOps } from '../compose.js';
import type { DialectSql } from '../dialect-sql.js';
import type { Database } from '../schema.js';
import type { Store, StoreOps } from '../store.js';
import { createPool, DEFAULT_QUERY_TIMEOUT_MS, GuardedPool, isTransient, parsePostgresUrl, postgresDialect, waitForDatabase, type PostgresOptions } from './dialect.js';
import { KeptLists } from '../kept-lists.js';
import { advisoryLeaderLock } from './leader-lock.js';
import { listenForEvents, type ChangeFeed } from './listen.js';
import { postgresSql } from './sql.js';

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

/** Waits for the database (see PostgresOptions.connectTimeoutMs), creates the URL's schema if missing, opens the pool. */
export async function openPostgresStore(url: string, opts: PostgresOptions = {}): Promise<Store> {
  const parsed = parsePostgresUrl(url);
  await waitForDatabase(parsed, opts);
  const pool = createPool(parsed, opts);
  const kept = new KeptLists();
  // A new connection may be to another server (a replica promoted): lists read before it are read again.
  pool.on('connect', () => kept.forget());
  const guard = new GuardedPool(pool, opts.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS);
  const kysely = new Kysely<Database>({ dialect: postgresDialect(guard) });
  let migrationSchema: string;
  try {
    // Kysely looks for its migration tables in every schema unless told which one is ours.
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(kysely);
    migrationSchema = rows[0]?.schema ?? 'public';
  } catch (e) {
    await kysely.destroy();
    throw e;
  }
  // One channel per schema: test runs and tenants sharing a database do not hear each other.
  const feed: ChangeFeed = { parsed, channel: `zonehost_changes${parsed.schema ? `:${parsed.schema}` : ''}`, origin: randomUUID(), log: opts.log ?? (() => {}) };
  const dialect = postgresSql(feed.channel, feed.origin, kept);
  // The store is the operations over the database itself, with what only it has.
  return Object.assign(storeOps(kysely, dialect), {
    dialect: 'postgres',
    transaction: (fn) => retriedTransaction(kysely, dialect, feed.log, fn),
    listen: (listener, resync) => listenForEvents(feed, listener, resync),
    leaderLock: (onLost) => advisoryLeaderLock(parsed, onLost),
    // Other nodes' commits are announced by the feed; the periodic comparison is what heals a missed one.
    othersWrote: async () => true,
    // Migrations may rewrite whole tables: their queries are not held to the query timeout.
    migrate: async () => {
      guard.patient = true;
      try {
        await migrateToLatest(kysely, migrationSchema);
      } finally {
        guard.patient = false;
      }
    },
    close: () => kysely.destroy(),
  } satisfies Omit<Store, keyof StoreOps>);
}

/**
 * READ COMMITTED plus the row locks the services take (lockDomain, lockAccount) keeps concurrent
 * writers on one zone in a queue. A transaction that fails on a lost connection, a deadlock or a
 * serialisation failure before COMMIT was sent rolled back as a whole, so it is run again; a failed
 * COMMIT is reported, not repeated, since it may have taken effect.
 */
async function retriedTransaction<T>(kysely: Kysely<Database>, dialect: DialectSql, log: (message: string) => void, fn: (tx: StoreOps) => Promise<T>): Promise<T> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await kysely.connection().execute(async (conn) => {
        await sql`begin`.execute(conn);
        let value: T;
        try {
          value = await fn(storeOps(conn, dialect));
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
        log(`PostgreSQL ${e.message}; the change may or may not have been applied`);
        throw e.cause;
      }
      if (attempt >= ATTEMPTS || Date.now() - started > RETRY_WINDOW_MS || !isTransient(e)) throw e;
      log(`PostgreSQL transaction failed (${(e as Error).message}); retrying (attempt ${attempt + 1} of ${ATTEMPTS})`);
      await sleep(50 * 2 ** attempt);
    }
  }
}
