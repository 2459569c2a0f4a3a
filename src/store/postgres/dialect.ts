/** Kysely's PostgreSQL dialect over a `pg` pool: URL options, per-schema search_path, start-up wait. */
import { userInfo } from 'node:os';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { PostgresDialect, sql, type DatabaseIntrospector, type DatabaseMetadata, type Kysely, type PostgresPool, type PostgresPoolClient, type SchemaMetadata, type TableMetadata } from 'kysely';
import { UnavailableError } from '../../model/errors.js';
import { endsTransaction, isStalePlan, opensTransaction, statementName } from './prepared.js';

export interface PostgresOptions {
  /** Connections in this node's pool. */
  poolSize?: number;
  /** How long start-up waits for the database to accept connections. */
  connectTimeoutMs?: number;
  /**
   * The longest one query may go unanswered before its connection is given up and the request fails as
   * unavailable: what bounds a request when the database stops answering without closing connections.
   */
  queryTimeoutMs?: number;
  /** Where retries and waits are reported (one line each). */
  log?: (message: string) => void;
}

export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000;
/** A new connection that takes longer than this is a database that is not there. */
const CONNECTION_TIMEOUT_MS = 3000;

export interface ParsedUrl {
  /** The URL handed to pg, without our own parameters. */
  connectionString: string;
  /** Schema all tables live in (the `schema` query parameter), or null for the server's default. */
  schema: string | null;
  /** host:port/database, for messages (no password). */
  where: string;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export function parsePostgresUrl(url: string): ParsedUrl {
  const u = new URL(url);
  const schema = u.searchParams.get('schema');
  if (schema !== null && !SCHEMA_NAME.test(schema)) {
    throw new Error(`the schema parameter of the database URL must be a plain SQL identifier (letters, digits, _), not '${schema}'`);
  }
  u.searchParams.delete('schema');
  // pg falls back to $USER, which services and CI runners often lack; libpq uses the login name.
  if (!u.username && !process.env.PGUSER && !process.env.USER) u.username = userInfo().username;
  return { connectionString: u.toString(), schema, where: `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname}` };
}

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * The database is gone or silent: the connection failed, was refused, was closed by a server shutting
 * down, or did not answer in time. Work may succeed on a fresh connection once it is back.
 */
export function isLost(e: unknown): boolean {
  if (e instanceof UnavailableError) return true;
  const err = e as { code?: string; message?: string } | null;
  const code = err?.code ?? '';
  if (['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN'].includes(code)) return true;
  // 08: connection exception; 57P01-03: server shutting down or starting; 53300: too many connections.
  if (/^08/.test(code) || ['57P01', '57P02', '57P03', '53300'].includes(code)) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error|Query read timeout|timeout exceeded when trying to connect|timeout expired/i.test(err?.message ?? '');
}

/** Errors after which the same work may succeed on a fresh connection or a second attempt. */
export function isTransient(e: unknown): boolean {
  // 40001/40P01: serialisation failure, deadlock; a stale plan fails on a connection the pool then replaces.
  return isLost(e) || isStalePlan(e) || ['40001', '40P01'].includes((e as { code?: string } | null)?.code ?? '');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Creates the pool; every pooled connection uses the URL's schema (set as a start-up option, so it
 * holds on reconnects too).
 */
export function createPool(parsed: ParsedUrl, opts: PostgresOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: parsed.connectionString,
    max: opts.poolSize ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
    keepAlive: true,
    ...(parsed.schema ? { options: `-c search_path=${parsed.schema}` } : {}),
  });
  // A connection the server drops must not crash the process: while idle the pool replaces it; while
  // in use the running query fails too, and the transaction is retried (retriedTransaction in open.ts).
  pool.on('error', (e) => opts.log?.(`PostgreSQL connection lost while idle (${e.message}); it will be replaced`));
  pool.on('connect', (client) => {
    client.on('error', (e) => opts.log?.(`PostgreSQL connection lost (${e.message})`));
    // Large values (a big change's journal entry) compressed by lz4: a 10,000-record import's 1.5 MB entry costs
    // PostgreSQL 3–4 ms instead of pglz's 12–15, stored in a quarter more space. Servers built without lz4
    // (or before PostgreSQL 14) refuse the setting and keep pglz.
    client.query('set default_toast_compression = lz4').catch(() => {});
  });
  return pool;
}

/**
 * Waits until the database answers (retrying with a log line per failure), then creates the schema
 * when the URL names one. Fails with a clear error once the timeout has passed.
 */
export async function waitForDatabase(parsed: ParsedUrl, opts: PostgresOptions): Promise<void> {
  const timeout = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const deadline = Date.now() + timeout;
  for (let attempt = 1; ; attempt++) {
    // A bare client: the pool's search_path must not name a schema that does not exist yet.
    const client = new pg.Client({ connectionString: parsed.connectionString, connectionTimeoutMillis: Math.max(1000, Math.min(10_000, timeout)) });
    client.on('error', () => {});
    try {
      await client.connect();
      if (parsed.schema) {
        try {
          await client.query(`create schema if not exists ${quoteIdent(parsed.schema)}`);
        } catch (e) {
          // Two nodes creating the same schema at once: the loser's error means it exists now.
          if ((e as { code?: string }).code !== '23505' && (e as { code?: string }).code !== '42P06') throw e;
        }
      }
      return;
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      if (!isTransient(e) || Date.now() >= deadline) {
        throw new Error(`cannot use PostgreSQL at ${parsed.where}${isTransient(e) ? ` (gave up after ${Math.round(timeout / 1000)} s)` : ''}: ${reason}`);
      }
      opts.log?.(`waiting for PostgreSQL at ${parsed.where} (attempt ${attempt}): ${reason}`);
      await sleep(Math.min(1000 * attempt, 5000, Math.max(0, deadline - Date.now())));
    } finally {
      await client.end().catch(() => {});
    }
  }
}

/**
 * Rows for `COPY … FROM STDIN` in COPY's text format, in pieces. A query whose one parameter is a CopyRows is sent
 * as that COPY with these rows (GuardedPool), on the connection it runs on: inside a transaction, the transaction's.
 */
export class CopyRows {
  /** Each piece is made when the one before has been sent: PostgreSQL stores the rows sent while the next are written. */
  constructor(readonly pieces: Iterable<string>) {}
}

/** Runs `COPY … FROM STDIN` with `rows`; answers as a query does (the rows copied), failing as one would. */
async function copyIn(client: pg.PoolClient, text: string, rows: CopyRows, timeout: number | undefined): Promise<{ command: string; rowCount: number; rows: [] }> {
  const stream = copyFrom(text);
  // pg times a submitted query out by its own query_timeout, as it does a plain query.
  if (timeout) Object.assign(stream, { query_timeout: timeout });
  let failed = false;
  const done = new Promise<{ command: string; rowCount: number; rows: [] }>((resolve, reject) => {
    stream.on('error', (e) => {
      failed = true;
      reject(e);
    });
    stream.on('finish', () => resolve({ command: 'COPY', rowCount: stream.rowCount, rows: [] }));
  });
  // A failure while the first piece waits is answered by `done`, returned below.
  done.catch(() => {});
  client.query(stream);
  try {
    const pieces = rows.pieces[Symbol.iterator]();
    const first = pieces.next();
    // The first piece waits in the stream for PostgreSQL to take the COPY (a refused COPY fails `done` instead).
    if (!first.done) await Promise.race([new Promise((resolve) => stream.write(first.value, resolve)), done]);
    // Then each piece goes to the socket as it is made, PostgreSQL storing the ones before meanwhile. Nothing
    // else runs in between: work let in here would keep the next piece from PostgreSQL.
    for (let piece = pieces.next(); !piece.done; piece = pieces.next()) stream.write(piece.value);
  } catch (e) {
    if (failed) return done;
    // A piece that could not be made: the COPY is abandoned (CopyFail), and the statement fails with this.
    stream.destroy(e as Error);
    throw e;
  }
  stream.end();
  return done;
}

/**
 * The pool as Kysely uses it. A failure that means the database is gone comes out as UnavailableError, so
 * every door answers it as a temporary failure; its connection is discarded rather than reused; and a query
 * answers within `queryTimeoutMs` or fails so, unless the guard is `patient` (migrations may take long).
 */
export class GuardedPool implements PostgresPool {
  patient = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly queryTimeoutMs: number,
  ) {}

  async connect(): Promise<PostgresPoolClient> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw isLost(e) ? new UnavailableError(e) : e;
    }
    let broken: Error | undefined;
    let inTransaction = false;
    const timeout = this.patient ? undefined : this.queryTimeoutMs;
    const run = (text: string, values: unknown[], name: string | undefined) =>
      client.query({ text, values, ...(name ? { name } : {}), ...(timeout ? { query_timeout: timeout } : {}) });
    const query = async (text: string, values: unknown[]) => {
      if (values?.length === 1 && values[0] instanceof CopyRows) return copyIn(client, text, values[0], timeout);
      // Migrations' statements run once, and change what the named ones would read: none of theirs is named.
      const name = this.patient || broken ? undefined : statementName(text, values?.length ?? 0);
      if (opensTransaction(text)) inTransaction = true;
      if (endsTransaction(text)) inTransaction = false;
      try {
        return await run(text, values, name);
      } catch (e) {
        if (!name || !isStalePlan(e)) throw e;
        // The connection's prepared statements predate a migration: it is discarded when released. A lone
        // query runs again unnamed; a transaction has failed, and runs again from the start (isTransient).
        broken = e as Error;
        if (inTransaction) throw e;
        return run(text, values, undefined);
      }
    };
    return {
      query: ((text: string, values: unknown[]) =>
        query(text, values).catch((e: unknown) => {
          if (!isLost(e)) throw e;
          broken = e instanceof Error ? e : new Error(String(e));
          throw new UnavailableError(e);
        })) as unknown as PostgresPoolClient['query'],
      release: () => client.release(broken),
    };
  }

  end(): Promise<void> {
    return this.pool.end();
  }
}

/**
 * What Kysely's migrator asks of the database (do its tables exist?), answered from our schema alone.
 * Kysely's own introspector reads every schema's tables and columns with functions that fail when another
 * installation sharing the database drops its schema meanwhile ('schema "x" does not exist'); this one
 * reads the catalog rows of the current schema and calls nothing on them. Columns are not listed: the
 * migrator needs none.
 */
class CurrentSchemaIntrospector implements DatabaseIntrospector {
  // `any`: the database type Kysely's own signature takes.
  constructor(private readonly db: Kysely<any>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<SchemaMetadata>`select current_schema() as name`.execute(this.db);
    return rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string }>`
      select c.relname as name, n.nspname as schema from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind in ('r', 'p')`.execute(this.db);
    return rows.map((r) => ({ ...r, isView: false, columns: [] }));
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

class OneSchemaDialect extends PostgresDialect {
  // `any`: the database type Kysely's own signature takes.
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}

export function postgresDialect(pool: PostgresPool): PostgresDialect {
  return new OneSchemaDialect({ pool });
}
