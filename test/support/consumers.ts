/**
 * Catalog-zone consumers (RFC 9432) for tests and the bench: real knotd, BIND named and PowerDNS
 * Authoritative secondaries that provision their member zones from zonehost's catalog. Each listens on a
 * spare loopback address with port 53 (NOTIFY goes to bare addresses) and sends from it, so zonehost's
 * --catalog-axfr list names it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { betterSqlite3 } from '../../src/store/sqlite/better-sqlite3.js';
import { daemon } from './daemon.js';
import { knotCatalogConfig } from './knot-catalog.js';
import { startKnot } from './knot.js';

const run = promisify(execFile);

export interface Consumer {
  name: string;
  address: string;
  /** Whether it answers `zone` SOA with authority (serves the zone). */
  serves(zone: string): Promise<boolean>;
  log(): string;
  stop(): Promise<void>;
}

/** Whether the server at `address`:`port` answers SOA for `zone` with AA and an SOA of that zone. */
export async function answersSoa(address: string, zone: string, port = 53): Promise<boolean> {
  const { stdout } = await run('kdig', ['-p', String(port), `@${address}`, '+norec', '+time=1', '+retry=0', zone, 'SOA'], { timeout: 5000 }).catch(() => ({ stdout: '' }));
  return /status: NOERROR/.test(stdout) && /flags: qr aa/i.test(stdout) && new RegExp(`^${zone.replaceAll('.', '\\.')}\\.\\s+\\d+\\s+IN\\s+SOA`, 'm').test(stdout);
}

/** knotd reading the catalog, as configured by knotCatalogConfig. */
export async function knotConsumer(address: string, catalog: string, dnsPort: number): Promise<Consumer> {
  const knot = await startKnot({ address, config: knotCatalogConfig(catalog, `127.0.0.1@${dnsPort}`, '{address}', '{dir}') });
  return { name: 'knotd', address, serves: (zone) => answersSoa(address, zone), log: knot.log, stop: knot.stop };
}


/**
 * BIND named with `catalog-zones`: members are secondaries of zonehost, kept in memory. named listens only
 * on addresses of an interface, so it takes 127.0.0.1 and a spare `port` (list it as 127.0.0.1@port).
 */
export async function bindConsumer(address: string, port: number, catalog: string, dnsPort: number): Promise<Consumer> {
  const dir = mkdtempSync(join(tmpdir(), 'zonehost-named-'));
  const primary = `127.0.0.1 port ${dnsPort}`;
  writeFileSync(
    join(dir, 'named.conf'),
    `options {
  directory "${dir}";
  pid-file "${dir}/named.pid";
  listen-on port ${port} { ${address}; };
  listen-on-v6 { none; };
  recursion no;
  notify no;
  allow-notify { 127.0.0.0/8; };
  allow-new-zones yes;
  catalog-zones {
    zone "${catalog}" default-primaries { ${primary}; } in-memory yes min-update-interval 0;
  };
};
zone "${catalog}" { type secondary; primaries { ${primary}; }; };
controls { };
`,
  );
  const d = await daemon('named', ['-g', '-c', join(dir, 'named.conf')], dir, () => answersSoa(address, catalog, port));
  return { name: 'named', address, serves: (zone) => answersSoa(address, zone, port), ...d };
}

/** PowerDNS Authoritative (4.7+) with the gsqlite3 backend: the catalog is a secondary zone of kind consumer. */
export async function powerdnsConsumer(address: string, catalog: string, dnsPort: number): Promise<Consumer> {
  const dir = mkdtempSync(join(tmpdir(), 'zonehost-pdns-'));
  const db = join(dir, 'pdns.sqlite3');
  const Database = betterSqlite3();
  const conn = new Database(db);
  conn.exec(readFileSync('/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql', 'utf8'));
  conn.close();
  writeFileSync(
    join(dir, 'pdns.conf'),
    `launch=gsqlite3
gsqlite3-database=${db}
local-address=${address}
local-port=53
query-local-address=${address}
socket-dir=${dir}
secondary=yes
allow-notify-from=127.0.0.0/8
xfr-cycle-interval=1
disable-syslog=yes
loglevel=6
`,
  );
  const pdnsutil = (...args: string[]) => run('pdnsutil', [`--config-dir=${dir}`, ...args], { timeout: 10_000 });
  await pdnsutil('create-secondary-zone', catalog, `127.0.0.1:${dnsPort}`);
  await pdnsutil('set-kind', catalog, 'consumer');
  const d = await daemon('pdns_server', [`--config-dir=${dir}`, '--daemon=no', '--guardian=no'], dir, () => answersSoa(address, catalog));
  return { name: 'pdns_server', address, serves: (zone) => answersSoa(address, zone), ...d };
}
