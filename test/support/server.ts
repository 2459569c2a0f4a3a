/**
 * Starts a real zonehost node for a test: HTTP and DNS on free loopback ports, over a fresh database.
 * The backend is SQLite in a temporary directory, or PostgreSQL when DATABASE_URL is set (each server
 * gets its own schema there, so runs never collide).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Config } from '../../src/config.js';
import { DEFAULT_UDP_BATCH } from '../../src/dns/server/udp.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { parsePostgresUrl } from '../../src/store/postgres/dialect.js';

export interface TestServer extends RunningServer {
  /** e.g. http://127.0.0.1:41234 */
  base: string;
  db: string;
  /** The name servers the node puts in every master zone's apex NS set and SOA. */
  nameservers: readonly string[];
  /** Creates an account and returns a fresh API key for it. */
  user(name: string, password?: string): Promise<{ key: string; accountId: number }>;
}

export const backend = process.env.DATABASE_URL ? 'postgres' : 'sqlite';

/**
 * Datagrams per system call of every test server's DNS (`--udp-batch`): ZONEHOST_UDP_BATCH as for the real
 * command, so the suite runs on either UDP path (vitest.config.ts runs the DNS files again with 0: dgram).
 */
export const UDP_BATCH = process.env.ZONEHOST_UDP_BATCH === undefined ? DEFAULT_UDP_BATCH : Number(process.env.ZONEHOST_UDP_BATCH);

/** A database URL nobody else uses; `cleanup` drops it (the schema on PostgreSQL, the directory on SQLite). */
export function freshDatabase(): { url: string; cleanup: () => Promise<void> } {
  if (process.env.DATABASE_URL) {
    const schema = `t_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
    const url = new URL(process.env.DATABASE_URL);
    url.searchParams.set('schema', schema);
    return { url: url.toString(), cleanup: () => dropSchema(process.env.DATABASE_URL as string, schema) };
  }
  const dir = mkdtempSync(join(tmpdir(), 'zonehost-test-'));
  return { url: `sqlite:${join(dir, 'zonehost.db')}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: parsePostgresUrl(databaseUrl).connectionString });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

/**
 * A key-encryption key file for DNSSEC where the backend has no default (PostgreSQL; SQLite makes PATH.kek
 * itself), so every test node can sign; null on SQLite.
 */
function testKek(): { file: string; cleanup: () => void } | null {
  if (!process.env.DATABASE_URL) return null;
  const dir = mkdtempSync(join(tmpdir(), 'zonehost-kek-'));
  const file = join(dir, 'kek');
  writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  return { file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function startTestServer(overrides: Partial<Config> = {}): Promise<TestServer> {
  const database = freshDatabase();
  const { url } = database;
  const kek = overrides.keyEncryptionKeyFile === undefined ? testKek() : null;
  const cleanup = async () => {
    kek?.cleanup();
    await database.cleanup();
  };
  const config: Config = {
    http: { host: '127.0.0.1', port: 0 },
    dns: { host: '127.0.0.1', port: 0 },
    db: url,
    nameservers: ['ns1.zonehost.test', 'ns2.zonehost.test'],
    logLevel: process.env.ZONEHOST_TEST_LOG ?? 'silent',
    // Suites fire many requests from one address; the rate-limit tests set their own limits.
    rateLimits: { perAddress: 0, perKey: 0 },
    udpBatch: UDP_BATCH,
    // ALIAS targets are resolved only where a test gives its own resolver: never the machine's.
    resolver: null,
    ...(kek ? { keyEncryptionKeyFile: kek.file } : {}),
    ...overrides,
  };
  let server: RunningServer;
  try {
    server = await startServer(config);
  } catch (e) {
    await cleanup();
    throw e;
  }
  const base = server.httpAddress ? `http://127.0.0.1:${server.httpAddress.port}` : '';
  return {
    ...server,
    base,
    db: url,
    nameservers: config.nameservers,
    async user(name, password = 'correct horse battery staple') {
      const account = await server.services.accounts.createUser(name, password);
      const issued = await server.services.accounts.issueKey(name, password, { label: 'test' });
      return { key: issued.key, accountId: account.id };
    },
    async close() {
      await server.close();
      await cleanup();
    },
  };
}

/** Calls interface A with GET and returns the parsed envelope. */
export async function v3(base: string, args: Record<string, string | number>, init: RequestInit = {}): Promise<any> {
  const qs = new URLSearchParams(Object.entries(args).map(([k, v]): [string, string] => [k, String(v)]));
  const res = await fetch(`${base}/api/?${qs}`, init);
  if (res.status !== 200) throw new Error(`interface A answered HTTP ${res.status}`);
  return res.json();
}
