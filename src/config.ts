/** Command-line flags and environment variables, turned into one typed configuration object. */
import type { DnssecTimings } from './model/dnssec.js';
import type { Limits } from './services/actor.js';
import type { StoreOptions } from './store/open.js';

export interface HostPort {
  host: string;
  port: number;
}

export interface TlsFiles {
  /** PEM certificate chain file. */
  cert: string;
  /** PEM private key file. */
  key: string;
}

export interface Config {
  /** Where the HTTP APIs listen; null when this node serves DNS only. */
  http: HostPort | null;
  /** Where the DNS server listens (UDP and TCP); null when this node serves the APIs only. */
  dns: HostPort | null;
  /** `sqlite:PATH` or `postgres://…` (optional `?schema=NAME`). */
  db: string;
  /** PostgreSQL pool size and start-up wait (connection log lines go to the server's logger). */
  store?: StoreOptions;
  /** The name servers announced in every zone's apex NS set; the first is the SOA MNAME. */
  nameservers: string[];
  logLevel: string;
  /** HTTPS instead of HTTP when set. */
  tls?: TlsFiles | null;
  /** Requests per minute per client address and per API key (0 = unlimited). */
  rateLimits?: { perAddress: number; perKey: number };
  /**
   * Networks (CIDR) an import by AXFR may connect to although the destination rules refuse them (loopback,
   * private...): --import-allow, ZONEHOST_IMPORT_ALLOW. See services/import-destinations.ts.
   */
  importAllow?: string[];
  /** Reverse proxies whose X-Forwarded-For is trusted. */
  trustProxy?: string[];
  /** Per-account size limits; DEFAULT_LIMITS (src/services/actor.ts) when absent. */
  limits?: Partial<Limits>;
  /** First retry of a zone mirror that has no copy yet (10 s unless given; no flag, tests shorten it). */
  mirrorFirstRetryMs?: number;
  /**
   * The file holding the key-encryption key of DNSSEC private keys (--key-encryption-key-file,
   * ZONEHOST_KEK_FILE). Unset: `PATH.kek` beside a SQLite database, made on first start; none on PostgreSQL.
   */
  keyEncryptionKeyFile?: string | null;
  /** DNSSEC waits in seconds (DEFAULT_DNSSEC_TIMINGS in model/dnssec.ts for those not given); see docs/dnssec.md. */
  dnssec?: Partial<DnssecTimings>;
  /** How often the leader looks for due DNSSEC steps (1000 ms unless given; no flag, tests shorten it). */
  dnssecTickMs?: number;
}

export const DEFAULTS = {
  http: '127.0.0.1:8080',
  dns: '127.0.0.1:5353',
  db: 'sqlite:./zonehost.db',
  nameservers: 'ns1.zonehost.invalid,ns2.zonehost.invalid',
  logLevel: 'info',
  dbPool: '10',
  dbWait: '30',
  rateLimitAddress: '1200',
  rateLimitKey: '600',
} as const;

/** A non-negative whole number from a flag. */
export function parseCount(value: string, what: string): number {
  if (!/^\d{1,9}$/.test(value.trim())) throw new Error(`${what} must be a whole number, not '${value}'`);
  return Number(value);
}

/** Parses HOST:PORT, [IPv6]:PORT or :PORT. */
export function parseHostPort(value: string, what: string): HostPort {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new Error(`${what} must be HOST:PORT (for example 127.0.0.1:8080), not '${value}'`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

export function parseNameservers(value: string): string[] {
  const list = value
    .split(/[,\s]+/)
    .map((s) => s.trim().replace(/\.$/, '').toLowerCase())
    .filter(Boolean);
  if (list.length === 0) throw new Error('--ns needs at least one name server host name');
  return list;
}
