/**
 * The systems the API benchmark loads: zonehost (the built CLI, on SQLite or PostgreSQL) and PowerDNS
 * Authoritative with its SQLite backend. Each is started on loopback and seeded with the same data: one
 * zone of 1000 A records ("list.example"), 100 small zones (101 zones in all); record creates go to
 * "zone-000.example" (zonehost's interface B: "zone-001.example", its PowerDNS door: "zone-002.example").
 * zonehost's PowerDNS door answers the very requests PowerDNS does (zone list, zone GET, RRset PATCH).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { betterSqlite3 } from '../../src/store/sqlite/better-sqlite3.js';
import { NEXT_LINK, type LoadRequest } from './load.js';
import { freePort, haveProgram, runCommand, startChild, tempDir, waitFor, ZONEHOST_BIN, type Child } from '../support.js';

export type Operation = 'record create' | 'record list' | 'domain list';

export interface Case {
  operation: Operation;
  /** Interface: A, B or the PowerDNS door for zonehost, the HTTP API for PowerDNS. */
  via: string;
  request: LoadRequest;
  /** Whether a response is a success as the client sees it (interface A reports errors with HTTP 200). */
  ok(status: number, body: string): boolean;
}

export interface System {
  url: string;
  cases: Case[];
  /** Why some interface was left out, if it was. */
  notes: string[];
  stop(): Promise<void>;
}

export const LIST_RECORDS = 1000;
export const SMALL_ZONES = 100;
const SEED_CONCURRENCY = 10;
const zoneName = (i: number) => `zone-${String(i).padStart(3, '0')}.example`;

/** Runs `fn` over `items`, `limit` at a time. */
async function inParallel<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

/** Interface A arguments as a form body. */
const form = (args: Record<string, string | number>) => new URLSearchParams(Object.entries(args).map(([k, v]): [string, string] => [k, String(v)])).toString();

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

async function started(child: Child, what: string, url: string): Promise<void> {
  await waitFor(`${what} to answer`, async () => {
    if (child.proc.exitCode !== null) throw new Error(`${what} exited with ${child.proc.exitCode}: ${child.output()}`);
    return fetch(url).then(
      () => true,
      () => false,
    );
  });
}

/** A counter per case, so every record create makes a new owner name. */
function counter(): () => number {
  let n = 0;
  return () => n++;
}

/** Items in an interface B list, following its Link rel="next" pages. */
async function countPages(url: string, path: string, headers: Record<string, string>): Promise<number> {
  let total = 0;
  for (let next: string | undefined = path; next; ) {
    const res = await fetch(`${url}${next}`, { headers });
    total += ((await res.json()) as unknown[]).length;
    next = NEXT_LINK.exec(res.headers.get('link') ?? '')?.[1];
  }
  return total;
}

export async function startZonehost(db: string): Promise<System> {
  const password = 'bench password';
  runCommand(process.execPath, [ZONEHOST_BIN, 'user', 'add', 'bench', '--db', db], `${password}\n`);
  const [http, dns] = [await freePort(), await freePort()];
  const child = startChild(process.execPath, [
    ZONEHOST_BIN, 'serve', '--db', db, '--http', `127.0.0.1:${http}`, '--dns', `127.0.0.1:${dns}`, '--log-level', 'warn',
    '--rate-limit-address', '0', '--rate-limit-key', '0', '--max-records', '100000000', '--max-domains', '100000',
  ]);
  const url = `http://127.0.0.1:${http}`;
  try {
    await started(child, 'zonehost', `${url}/healthz`);
    const v3 = async (args: Record<string, string | number>): Promise<any> => {
      const res = await fetch(`${url}/api/`, { method: 'POST', body: form(args), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      const envelope = (await res.json()) as { ERRORARRAY: { ERRORMESSAGE: string }[]; DATA: any };
      if (envelope.ERRORARRAY.length) throw new Error(`${args.api_action}: ${envelope.ERRORARRAY[0]?.ERRORMESSAGE}`);
      return envelope.DATA;
    };
    const key = (await v3({ api_action: 'user.getapikey', username: 'bench', password })).API_KEY as string;
    const createZone = async (name: string) => (await v3({ api_action: 'domain.create', api_key: key, Domain: name, Type: 'master', SOA_Email: `hostmaster@${name}` })).DomainID as number;
    const listId = await createZone('list.example');
    const ids = new Map<number, number>();
    await inParallel(range(SMALL_ZONES), SEED_CONCURRENCY, async (i) => void ids.set(i, await createZone(zoneName(i))));
    await inParallel(range(LIST_RECORDS), SEED_CONCURRENCY, async (i) => {
      await v3({ api_action: 'domain.resource.create', api_key: key, DomainID: listId, Type: 'A', Name: `r${i}`, Target: `192.0.2.${i % 250}` });
    });
    // Each interface creates in a zone of its own, so neither pays for the records the other added.
    const [createIdA, createIdB] = [ids.get(0) as number, ids.get(1) as number];
    const createPdns = zoneName(2);
    const listed = ((await v3({ api_action: 'domain.resource.list', api_key: key, DomainID: listId })) as unknown[]).length;
    if (listed < LIST_RECORDS) throw new Error(`seeding: interface A lists ${listed} records of list.example, expected ${LIST_RECORDS}`);

    const v3ok = (status: number, body: string) => status === 200 && body.includes('"ERRORARRAY":[]');
    const v3case = (operation: Operation, args: () => Record<string, string | number>): Case => ({
      operation,
      via: 'A',
      request: {
        method: 'POST',
        path: '/api/',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: () => form({ api_key: key, ...args() }),
      },
      ok: v3ok,
    });
    const nextA = counter();
    const cases: Case[] = [
      v3case('domain list', () => ({ api_action: 'domain.list' })),
      v3case('record list', () => ({ api_action: 'domain.resource.list', DomainID: listId })),
      v3case('record create', () => ({ api_action: 'domain.resource.create', DomainID: createIdA, Type: 'A', Name: `a${nextA()}`, Target: '192.0.2.1' })),
    ];

    const notes: string[] = [];
    const bearer = { authorization: `Bearer ${key}` };
    const probe = await fetch(`${url}/v1/domains`, { headers: bearer });
    if (probe.status === 404) notes.push('interface B (/v1) is not served by this build: its cases are left out');
    else {
      const ok2xx = (status: number) => status >= 200 && status < 300;
      const pagedB = await countPages(url, `/v1/domains/${listId}/records?limit=500`, bearer);
      if (pagedB < LIST_RECORDS) throw new Error(`seeding: interface B lists ${pagedB} records of list.example, expected ${LIST_RECORDS}`);
      const nextB = counter();
      cases.push(
        // Lists are cursor-paged (at most 500 items a page): the whole list is read, as the others return it.
        { operation: 'domain list', via: 'B', request: { method: 'GET', path: '/v1/domains?limit=500', headers: bearer, followNext: true }, ok: ok2xx },
        { operation: 'record list', via: 'B', request: { method: 'GET', path: `/v1/domains/${listId}/records?limit=500`, headers: bearer, followNext: true }, ok: ok2xx },
        {
          operation: 'record create',
          via: 'B',
          request: {
            method: 'POST',
            path: `/v1/domains/${createIdB}/A`,
            headers: { ...bearer, 'content-type': 'application/json' },
            body: () => JSON.stringify({ name: `b${nextB()}`, address: '192.0.2.1' }),
          },
          ok: ok2xx,
        },
      );
    }
    cases.push(...(await pdnsDoorCases(url, key, createPdns, notes)));
    return { url, cases, notes, stop: () => child.stop() };
  } catch (e) {
    await child.stop();
    throw e;
  }
}

/** The PowerDNS API's three requests, as PowerDNS itself gets them below, answered by zonehost's PowerDNS door. */
function pdnsCases(headers: Record<string, string>, createZone: string, via: string): Case[] {
  const ok2xx = (status: number) => status >= 200 && status < 300;
  const next = counter();
  return [
    { operation: 'domain list', via, request: { method: 'GET', path: '/api/v1/servers/localhost/zones', headers }, ok: ok2xx },
    { operation: 'record list', via, request: { method: 'GET', path: '/api/v1/servers/localhost/zones/list.example.', headers }, ok: ok2xx },
    {
      operation: 'record create',
      via,
      request: {
        method: 'PATCH',
        path: `/api/v1/servers/localhost/zones/${createZone}.`,
        headers,
        body: () => JSON.stringify({ rrsets: [{ name: `c${next()}.${createZone}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.1', disabled: false }] }] }),
      },
      ok: ok2xx,
    },
  ];
}

/** The PowerDNS door's cases, once its zone GET shows the 1000 records; none (with a note) where the build has no such door. */
async function pdnsDoorCases(url: string, key: string, createZone: string, notes: string[]): Promise<Case[]> {
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const probe = await fetch(`${url}/api/v1/servers/localhost/zones/list.example.`, { headers });
  if (probe.status !== 200) {
    notes.push(`the PowerDNS door (/api/v1) is not served by this build (HTTP ${probe.status}): its cases are left out`);
    return [];
  }
  const listed = ((await probe.json()) as { rrsets: { type: string }[] }).rrsets.filter((s) => s.type === 'A').length;
  if (listed < LIST_RECORDS) throw new Error(`seeding: the PowerDNS door shows ${listed} A RRsets in list.example, expected ${LIST_RECORDS}`);
  return pdnsCases(headers, createZone, PDNS_DOOR);
}

/** The column of the PowerDNS door's rows. */
export const PDNS_DOOR = 'PowerDNS door';

const PDNS_SCHEMAS = ['/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql', '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql'];

export interface PowerDns {
  url: string;
  /** X-API-Key and the JSON content type. */
  headers: Record<string, string>;
  /** `fetch` under /api/v1/servers/localhost; throws on a non-2xx answer. */
  api(method: string, path: string, body?: unknown): Promise<void>;
  stop(): Promise<void>;
}

/**
 * PowerDNS Authoritative (Debian's pdns-server + pdns-backend-sqlite3, default settings, its API on) with an
 * empty SQLite database in a temporary directory, once its API answers; or why it cannot run here. `extraArgs`
 * are more settings (test/pdns/compare.test.ts turns on the backend's DNSSEC, which the benchmark leaves off).
 */
export async function spawnPowerDns(extraArgs: string[] = []): Promise<PowerDns | { skipped: string }> {
  const schema = PDNS_SCHEMAS.find((p) => existsSync(p));
  if (!haveProgram('pdns_server') || !schema) return { skipped: 'PowerDNS is not installed (apt-get install pdns-server pdns-backend-sqlite3)' };
  const dir = tempDir('zonehost-bench-pdns-');
  const dbFile = join(dir.path, 'pdns.sqlite3');
  const sqlite = new (betterSqlite3())(dbFile);
  sqlite.exec(readFileSync(schema, 'utf8'));
  sqlite.close();
  const apiKey = 'bench-key';
  const [dns, web] = [await freePort(), await freePort()];
  const child = startChild('pdns_server', [
    '--no-config', '--daemon=no', '--guardian=no', '--disable-syslog', '--write-pid=no', `--socket-dir=${dir.path}`,
    '--launch=gsqlite3', `--gsqlite3-database=${dbFile}`, '--local-address=127.0.0.1', `--local-port=${dns}`,
    '--api=yes', `--api-key=${apiKey}`, '--webserver=yes', '--webserver-address=127.0.0.1', `--webserver-port=${web}`,
    '--webserver-allow-from=127.0.0.0/8', '--loglevel=3', ...extraArgs,
  ]);
  const url = `http://127.0.0.1:${web}`;
  const stop = async () => {
    await child.stop();
    dir.remove();
  };
  try {
    await started(child, 'PowerDNS', `${url}/api/v1/servers/localhost`);
  } catch (e) {
    await stop();
    throw e;
  }
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/api/v1/servers/localhost${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
    if (!res.ok) throw new Error(`PowerDNS ${method} ${path}: HTTP ${res.status} ${await res.text()}`);
  };
  return { url, headers, api, stop };
}

/** PowerDNS seeded as zonehost is (see startZonehost), or why it cannot run here. */
export async function startPowerDns(): Promise<System | { skipped: string }> {
  const pdns = await spawnPowerDns();
  if ('skipped' in pdns) return pdns;
  const { headers, api, url, stop } = pdns;
  try {
    const createZone = (name: string) => api('POST', '/zones', { name: `${name}.`, kind: 'Native', nameservers: ['ns1.bench.invalid.', 'ns2.bench.invalid.'] });
    await createZone('list.example');
    await api('PATCH', '/zones/list.example.', {
      rrsets: range(LIST_RECORDS).map((i) => ({ name: `r${i}.list.example.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: `192.0.2.${i % 250}`, disabled: false }] })),
    });
    await inParallel(range(SMALL_ZONES), 1, (i) => createZone(zoneName(i)));

    return { url, cases: pdnsCases(headers, zoneName(0), 'HTTP API'), notes: [], stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
