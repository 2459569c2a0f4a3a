/** Command-line flags and environment variables, turned into one typed configuration object. */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { DnssecTimings } from './model/dnssec.js';
import { hostnameProblem, isIPAddress, normalizeZoneName, zoneNameProblem } from './model/names.js';
import type { Limits } from './services/actor.js';
import type { WebAuthnOptions } from './services/passkeys.js';
import { DEFAULT_RRL, type RrlSettings } from './dns/server/rrl.js';
import { DEFAULT_UDP_BATCH } from './dns/server/udp.js';
import { DNS_PORT, type CatalogOptions } from './services/catalog.js';
import { parseCidr } from './services/import-destinations.js';
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
  /** Where DNS over TLS listens (--dot), with the certificate of `tls`; null or absent: no DNS over TLS. */
  dot?: HostPort | null;
  /** Threads answering DNS over UDP (--dns-threads; 1 unless given here, one per core from the command line). */
  dnsThreads?: number;
  /** Datagrams read and answers sent per system call on DNS's UDP (--udp-batch; DEFAULT_UDP_BATCH unless given; 0: dgram). */
  udpBatch?: number;
  /**
   * Response rate limiting of DNS answers over UDP (--rrl-rate, --rrl-slip, --rrl-ipv4-prefix, --rrl-ipv6-prefix,
   * --rrl-exempt): DEFAULT_RRL (src/dns/server/rrl.ts) for what is not given; `rate: 0` turns it off.
   */
  rrl?: Partial<RrlSettings>;
  /** The name server identifier DNS answers to queries that ask for it (--nsid, RFC 5001); none when absent. */
  nsid?: string | null;
  /**
   * Where ALIAS targets are resolved (--resolver): a recursive resolver. Absent: the first `nameserver` of
   * /etc/resolv.conf (systemResolver); null: none, so ALIAS records answer SERVFAIL.
   */
  resolver?: HostPort | null;
  /** `sqlite:PATH` or `postgres://…` (optional `?schema=NAME`). */
  db: string;
  /** PostgreSQL pool size and start-up wait (connection log lines go to the server's logger). */
  store?: StoreOptions;
  /** The name servers announced in every zone's apex NS set; the first is the SOA MNAME. */
  nameservers: string[];
  logLevel: string;
  /** HTTPS instead of HTTP when set, and the certificate of DNS over TLS. */
  tls?: TlsFiles | null;
  /** Requests per minute per client address and per API key (0 = unlimited). */
  rateLimits?: { perAddress: number; perKey: number };
  /**
   * Networks (CIDR) an import by AXFR may connect to although the destination rules refuse them (loopback,
   * private...): --import-allow, ZONEHOST_IMPORT_ALLOW. See services/import-destinations.ts.
   */
  importAllow?: string[];
  /**
   * Networks (CIDR) health checks may probe although they are not public addresses (loopback, private...):
   * --healthcheck-allow, ZONEHOST_HEALTHCHECK_ALLOW. See services/address-policy.ts.
   */
  healthcheckAllow?: string[];
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
  /** The catalog zone (RFC 9432) and its secondaries (--catalog, --catalog-axfr, --catalog-tsig); none when absent. */
  catalog?: CatalogOptions | null;
  /**
   * The passkeys' relying party id and origins (--webauthn-rp-id, --webauthn-origin); absent: the host name and
   * origin each request reaches the panel under.
   */
  webauthn?: WebAuthnOptions;
}

export const DEFAULTS = {
  http: '127.0.0.1:8080',
  dns: '127.0.0.1:5353',
  // One per core (multi-threaded answering needs Node.js 22.12+; older runtimes use one and say so).
  dnsThreads: String(availableParallelism()),
  udpBatch: String(DEFAULT_UDP_BATCH),
  db: 'sqlite:./zonehost.db',
  nameservers: 'ns1.zonehost.invalid,ns2.zonehost.invalid',
  logLevel: 'info',
  dbPool: '10',
  dbWait: '30',
  dbTimeout: '10',
  rateLimitAddress: '1200',
  rateLimitKey: '600',
  rrlRate: String(DEFAULT_RRL.rate),
  rrlSlip: String(DEFAULT_RRL.slip),
  rrlIpv4Prefix: String(DEFAULT_RRL.ipv4Prefix),
  rrlIpv6Prefix: String(DEFAULT_RRL.ipv6Prefix),
} as const;

/** A non-negative whole number from a flag. */
export function parseCount(value: string, what: string): number {
  if (!/^\d{1,9}$/.test(value.trim())) throw new Error(`${what} must be a whole number, not '${value}'`);
  return Number(value);
}

/** A whole number from a flag, between `min` and `max`. */
function parseBounded(value: string, what: string, min: number, max: number): number {
  const n = parseCount(value, what);
  if (n < min || n > max) throw new Error(`${what} must be between ${min} and ${max}, not ${n}`);
  return n;
}

/** Response rate limiting's settings from its flags (the exempt networks comma-separated). */
export function parseRrl(flags: { rate: string; slip: string; ipv4Prefix: string; ipv6Prefix: string; exempt?: string | undefined }): RrlSettings {
  const exempt = (flags.exempt ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const net of exempt) parseCidr(net, '--rrl-exempt');
  return {
    rate: parseBounded(flags.rate, '--rrl-rate', 0, 1_000_000),
    slip: parseBounded(flags.slip, '--rrl-slip', 0, 100),
    ipv4Prefix: parseBounded(flags.ipv4Prefix, '--rrl-ipv4-prefix', 0, 32),
    ipv6Prefix: parseBounded(flags.ipv6Prefix, '--rrl-ipv6-prefix', 0, 128),
    exempt,
  };
}

/** NSID's text: at most this many octets (RFC 5001 sets no limit; every answer asking for it carries it). */
const MAX_NSID_BYTES = 256;

/** The --nsid text; null for none. */
export function parseNsid(value: string | undefined): string | null {
  if (!value) return null;
  if (Buffer.byteLength(value, 'utf8') > MAX_NSID_BYTES) throw new Error(`--nsid must be at most ${MAX_NSID_BYTES} octets, not ${Buffer.byteLength(value, 'utf8')}`);
  return value;
}

/**
 * The passkeys' relying party from its flags: a host name (browsers refuse IP addresses), and origins as
 * scheme://host[:port], comma-separated.
 */
export function parseWebAuthn(rpId: string | undefined, origins: string | undefined): WebAuthnOptions {
  const out: WebAuthnOptions = {};
  if (rpId?.trim()) {
    const id = rpId.trim().toLowerCase().replace(/\.$/, '');
    if (isIPAddress(id) || hostnameProblem(id)) throw new Error(`--webauthn-rp-id must be a host name (browsers refuse IP addresses), not '${rpId}'`);
    out.rpId = id;
  }
  const list = (origins ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  for (const origin of list) {
    let url: URL | null = null;
    try {
      url = new URL(origin);
    } catch {
      url = null;
    }
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== origin.replace(/\/$/, '')) {
      throw new Error(`--webauthn-origin must be scheme://host[:port] (e.g. https://dns.example.net), not '${origin}'`);
    }
  }
  if (list.length) out.origins = list.map((o) => new URL(o).origin);
  return out;
}

/** Parses HOST:PORT, [IPv6]:PORT or :PORT. */
export function parseHostPort(value: string, what: string): HostPort {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new Error(`${what} must be HOST:PORT (for example 127.0.0.1:8080), not '${value}'`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

/** The --resolver address: HOST:PORT, or a bare address (port 53); absent: the system's (systemResolver). */
export function parseResolver(value: string | undefined, resolvConf = '/etc/resolv.conf'): HostPort | null {
  if (value === undefined || value.trim() === '') return systemResolver(resolvConf);
  const bare = value.trim();
  if (isIPAddress(bare)) return { host: bare, port: DNS_PORT };
  const hp = parseHostPort(bare, '--resolver');
  if (!isIPAddress(hp.host)) throw new Error(`--resolver must be an IP address with its port (for example 127.0.0.53:53), not '${value}'`);
  return hp;
}

/** The first `nameserver` of a resolv.conf file (port 53), or null when there is none (or no such file). */
export function systemResolver(resolvConf = '/etc/resolv.conf'): HostPort | null {
  let text: string;
  try {
    text = readFileSync(resolvConf, 'utf8');
  } catch {
    return null;
  }
  for (const line of text.split('\n')) {
    const m = /^\s*nameserver\s+(\S+)/.exec(line);
    // A link-local IPv6 address's zone (fe80::1%eth0) is not something Node.js sockets take here: skipped.
    if (m?.[1] && isIPAddress(m[1])) return { host: m[1], port: DNS_PORT };
  }
  return null;
}

export function parseNameservers(value: string): string[] {
  const list = value
    .split(/[,\s]+/)
    .map((s) => s.trim().replace(/\.$/, '').toLowerCase())
    .filter(Boolean);
  if (list.length === 0) throw new Error('--ns needs at least one name server host name');
  return list;
}

/**
 * The catalog zone's configuration from its flags: a zone name, the secondaries' addresses (comma or space
 * separated, each optionally @PORT where it takes NOTIFY) and a TSIG key name with the user name of the account
 * that owns it. The secondaries' flags need --catalog: they open every zone of the catalog.
 */
export function parseCatalog(name: string | undefined, axfr: string | undefined, tsig: string | undefined, tsigOwner?: string): CatalogOptions | null {
  const entries = (axfr ?? '').split(/[,\s]+/).filter(Boolean);
  const key = tsig?.trim() ? normalizeZoneName(tsig) : null;
  const owner = tsigOwner?.trim() || null;
  if (!name?.trim()) {
    if (entries.length > 0 || key || owner) throw new Error('--catalog-axfr and --catalog-tsig need --catalog NAME (the catalog zone they transfer)');
    return null;
  }
  if (key && !owner) throw new Error('--catalog-tsig needs --catalog-tsig-owner USER: the account that made the key (anyone could make a key of a free name)');
  if (owner && !key) throw new Error('--catalog-tsig-owner needs --catalog-tsig NAME');
  const zone = normalizeZoneName(name);
  const problem = zoneNameProblem(zone);
  if (problem) throw new Error(`--catalog: the zone name '${zone}' ${problem}`);
  const notify = entries.map((entry) => {
    // ADDRESS@PORT, as Knot writes it (IPv6 addresses hold colons): a secondary listening on another port than 53.
    const [address = '', port] = entry.split('@');
    if (!isIPAddress(address) || (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) > 0 && Number(port) <= 65535))) {
      throw new Error(`--catalog-axfr: '${entry}' is not an IPv4 or IPv6 address (optionally @PORT)`);
    }
    return { address, port: port === undefined ? DNS_PORT : Number(port) };
  });
  return { name: zone, axfr: [...new Set(notify.map((t) => t.address))], notify, tsig: key, tsigOwner: owner };
}
