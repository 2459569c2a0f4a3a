/** The `zonehost` command: serve, user add, account list | set | delete, migrate. */
import { Command, Option } from 'commander';
import { createInterface } from 'node:readline';
import { DEFAULT_DNSSEC_TIMINGS } from '../model/dnssec.js';
import { DEFAULTS, parseCatalog, parseCount, parseHostPort, parseNameservers, parseNsid, parseResolver, parseRrl, parseWebAuthn, type Config } from '../config.js';
import { ValidationError } from '../model/errors.js';
import type { AccountControls, AccountSummary } from '../model/account.js';
import { DEFAULT_LIMITS } from '../services/actor.js';
import { ROLES } from '../model/roles.js';
import type { Services } from '../services/index.js';
import type { AccountHoldings } from '../services/operator.js';
import type { StoreOptions } from '../store/open.js';

interface DbOptions {
  db: string;
  dbPool: string;
  dbWait: string;
  /** serve only. */
  dbTimeout?: string;
}

interface ServeOptions extends DbOptions {
  /** false with --no-http / --no-dns. */
  http: string | false;
  dns: string | false;
  dot?: string;
  dnsThreads: string;
  udpBatch: string;
  rrlRate: string;
  rrlSlip: string;
  rrlIpv4Prefix: string;
  rrlIpv6Prefix: string;
  rrlExempt?: string;
  nsid?: string;
  resolver?: string;
  ns: string;
  logLevel: string;
  tlsCert?: string;
  tlsKey?: string;
  rateLimitAddress: string;
  rateLimitKey: string;
  trustProxy?: string;
  importAllow?: string;
  healthcheckAllow?: string;
  maxRecords: string;
  maxDomains: string;
  keyEncryptionKeyFile?: string;
  dnssecDnskeyTtl: string;
  dnssecDsTtl: string;
  dnssecPropagation: string;
  catalog?: string;
  catalogAxfr?: string;
  catalogTsig?: string;
  catalogTsigOwner?: string;
  webauthnRpId?: string;
  webauthnOrigin?: string;
}

const program = new Command()
  .name('zonehost')
  .description('DNS hosting: a Linode v3-compatible API, a resource-style /v1 API and authoritative DNS in one process')
  .showHelpAfterError();

const dbOption = () => new Option('--db <url>', 'database: sqlite:PATH or postgres://…[?schema=NAME]').env('ZONEHOST_DB').default(DEFAULTS.db);
const dbPoolOption = () => new Option('--db-pool <n>', 'PostgreSQL connections per node').env('ZONEHOST_DB_POOL').default(DEFAULTS.dbPool);
const dbWaitOption = () => new Option('--db-wait <seconds>', 'how long start-up waits for PostgreSQL').env('ZONEHOST_DB_WAIT').default(DEFAULTS.dbWait);

function storeOptions(opts: DbOptions): StoreOptions {
  return {
    poolSize: Math.max(1, parseCount(opts.dbPool, '--db-pool')),
    connectTimeoutMs: parseCount(opts.dbWait, '--db-wait') * 1000,
    ...(opts.dbTimeout === undefined ? {} : { queryTimeoutMs: Math.max(1, parseCount(opts.dbTimeout, '--db-timeout')) * 1000 }),
  };
}

const SHUTDOWN_LIMIT_S = 10;
/** More threads than this only cost memory: each is a V8 isolate of its own. */
const MAX_DNS_THREADS = 64;

/** recvmmsg takes at most 1024 (UIO_MAXIOV) messages per call. */
const MAX_UDP_BATCH = 1024;

function udpBatch(value: string): number {
  const n = parseCount(value, '--udp-batch');
  if (n > MAX_UDP_BATCH) throw new Error(`--udp-batch must be between 0 and ${MAX_UDP_BATCH}, not ${n}`);
  return n;
}

function dnsThreads(value: string): number {
  const n = parseCount(value, '--dns-threads');
  if (n < 1 || n > MAX_DNS_THREADS) throw new Error(`--dns-threads must be between 1 and ${MAX_DNS_THREADS}, not ${n}`);
  return n;
}

/** Where one-shot commands report database waits and retries (serve uses its logger). */
const stderrLog = (message: string) => process.stderr.write(`zonehost: ${message}\n`);

program
  .command('serve')
  .description('start the HTTP APIs and the DNS server')
  .addOption(new Option('--http <host:port>', 'HTTP listen address').env('ZONEHOST_HTTP').default(DEFAULTS.http))
  .addOption(new Option('--no-http', 'serve no HTTP APIs (a DNS-only node)'))
  .addOption(new Option('--dns <host:port>', 'DNS listen address (UDP and TCP)').env('ZONEHOST_DNS').default(DEFAULTS.dns))
  .addOption(new Option('--no-dns', 'serve no DNS (an API-only node)'))
  .addOption(new Option('--dot <host:port>', 'DNS over TLS listen address (RFC 7858, zone transfers too), with the certificate of --tls-cert; e.g. 0.0.0.0:853').env('ZONEHOST_DOT'))
  .addOption(new Option('--dns-threads <n>', 'threads answering DNS over UDP (default: one per core; 1 before Node.js 22.12)').env('ZONEHOST_DNS_THREADS').default(DEFAULTS.dnsThreads))
  .addOption(new Option('--udp-batch <n>', 'DNS datagrams read and answers sent per system call (recvmmsg/sendmmsg, Linux); 0 = one per call through Node.js dgram').env('ZONEHOST_UDP_BATCH').default(DEFAULTS.udpBatch))
  .addOption(new Option('--rrl-rate <n>', 'DNS response rate limiting: answers a second over UDP per client network and answer class (0 = off)').env('ZONEHOST_RRL_RATE').default(DEFAULTS.rrlRate))
  .addOption(new Option('--rrl-slip <n>', 'of the answers over --rrl-rate, every Nth is sent truncated (TC) so real clients retry over TCP, the others dropped (0 = drop all, 1 = truncate all)').env('ZONEHOST_RRL_SLIP').default(DEFAULTS.rrlSlip))
  .addOption(new Option('--rrl-ipv4-prefix <bits>', 'prefix length of the IPv4 client network --rrl-rate counts').env('ZONEHOST_RRL_IPV4_PREFIX').default(DEFAULTS.rrlIpv4Prefix))
  .addOption(new Option('--rrl-ipv6-prefix <bits>', 'prefix length of the IPv6 client network --rrl-rate counts').env('ZONEHOST_RRL_IPV6_PREFIX').default(DEFAULTS.rrlIpv6Prefix))
  .addOption(new Option('--rrl-exempt <networks>', 'comma-separated CIDR networks whose answers are never rate-limited (your secondaries, monitoring)').env('ZONEHOST_RRL_EXEMPT'))
  .addOption(new Option('--nsid <text>', 'name server identifier (RFC 5001) answered to DNS queries that ask for it, e.g. this node\'s host name; none by default').env('ZONEHOST_NSID'))
  .addOption(new Option('--resolver <host:port>', 'recursive resolver that ALIAS records\' targets are resolved through (default: the first nameserver of /etc/resolv.conf)').env('ZONEHOST_RESOLVER'))
  .addOption(dbOption())
  .addOption(dbPoolOption())
  .addOption(dbWaitOption())
  .addOption(new Option('--db-timeout <seconds>', 'longest a PostgreSQL query may go unanswered before requests fail with "unavailable"').env('ZONEHOST_DB_TIMEOUT').default(DEFAULTS.dbTimeout))
  .addOption(new Option('--ns <names>', 'comma-separated name servers of every zone; the first is the SOA MNAME').env('ZONEHOST_NS').default(DEFAULTS.nameservers))
  .addOption(new Option('--tls-cert <file>', 'PEM certificate (chain): serve HTTPS instead of HTTP (HTTP/2 and HTTP/1.1), and DNS over TLS with --dot').env('ZONEHOST_TLS_CERT'))
  .addOption(new Option('--tls-key <file>', 'PEM private key for --tls-cert').env('ZONEHOST_TLS_KEY'))
  .addOption(new Option('--rate-limit-address <n>', 'requests per minute from one client address (0 = unlimited)').env('ZONEHOST_RATE_LIMIT_ADDRESS').default(DEFAULTS.rateLimitAddress))
  .addOption(new Option('--rate-limit-key <n>', 'requests per minute with one API key (0 = unlimited)').env('ZONEHOST_RATE_LIMIT_KEY').default(DEFAULTS.rateLimitKey))
  .addOption(new Option('--trust-proxy <addresses>', 'comma-separated reverse-proxy addresses/CIDRs whose X-Forwarded-For is trusted').env('ZONEHOST_TRUST_PROXY'))
  .addOption(new Option('--import-allow <networks>', 'comma-separated CIDR networks an import by AXFR may connect to although private, loopback or otherwise refused').env('ZONEHOST_IMPORT_ALLOW'))
  .addOption(new Option('--healthcheck-allow <networks>', 'comma-separated CIDR networks health checks may probe although private, loopback or otherwise refused (default: public addresses only)').env('ZONEHOST_HEALTHCHECK_ALLOW'))
  .addOption(new Option('--max-records <n>', 'records per domain').env('ZONEHOST_MAX_RECORDS').default(String(DEFAULT_LIMITS.recordsPerDomain)))
  .addOption(new Option('--max-domains <n>', 'domains per account').env('ZONEHOST_MAX_DOMAINS').default(String(DEFAULT_LIMITS.domainsPerAccount)))
  .addOption(new Option('--key-encryption-key-file <file>', 'file with the key (32 bytes, base64 or hex) that encrypts DNSSEC private keys; default for sqlite:PATH: PATH.kek, made on first start').env('ZONEHOST_KEK_FILE'))
  .addOption(new Option('--dnssec-dnskey-ttl <seconds>', 'TTL of DNSKEY/CDS/CDNSKEY; a rollover waits it before CDS names the new key').env('ZONEHOST_DNSSEC_DNSKEY_TTL').default(String(DEFAULT_DNSSEC_TIMINGS.dnskeyTtl)))
  .addOption(new Option('--dnssec-ds-ttl <seconds>', "the parent's DS TTL to wait before an old key goes or a zone stops signing").env('ZONEHOST_DNSSEC_DS_TTL').default(String(DEFAULT_DNSSEC_TIMINGS.dsTtl)))
  .addOption(new Option('--dnssec-propagation <seconds>', 'time for a change to reach every server of a zone, added to each wait').env('ZONEHOST_DNSSEC_PROPAGATION').default(String(DEFAULT_DNSSEC_TIMINGS.propagation)))
  .addOption(new Option('--catalog <name>', 'serve a catalog zone (RFC 9432 version 2) of this name listing every active domain and every zone mirror with a copy, e.g. catalog.zonehost.invalid').env('ZONEHOST_CATALOG'))
  .addOption(new Option('--catalog-axfr <addresses>', "comma-separated addresses of the secondaries: they may transfer the catalog and every zone in it, and get NOTIFY for all of them").env('ZONEHOST_CATALOG_AXFR'))
  .addOption(new Option('--catalog-tsig <key name>', 'name of a TSIG key (made in /v1/tsigkeys) that may transfer the catalog and every zone in it').env('ZONEHOST_CATALOG_TSIG'))
  .addOption(new Option('--catalog-tsig-owner <user>', 'the account whose --catalog-tsig key it must be').env('ZONEHOST_CATALOG_TSIG_OWNER'))
  .addOption(new Option('--webauthn-rp-id <host>', "passkeys' relying party: the host name (or a parent domain of it) the panel is reached under; default: each request's own host name").env('ZONEHOST_WEBAUTHN_RP_ID'))
  .addOption(new Option('--webauthn-origin <origins>', 'comma-separated origins the panel is reached under, e.g. https://dns.example.net (behind a proxy); default: each request\'s own scheme and host').env('ZONEHOST_WEBAUTHN_ORIGIN'))
  .addOption(new Option('--log-level <level>', 'fatal, error, warn, info, debug or trace').env('ZONEHOST_LOG_LEVEL').default(DEFAULTS.logLevel))
  .action(async (opts: ServeOptions) => {
    if (!opts.tlsCert !== !opts.tlsKey) throw new Error('--tls-cert and --tls-key must be given together');
    const config: Config = {
      http: opts.http === false ? null : parseHostPort(opts.http, '--http'),
      dns: opts.dns === false ? null : parseHostPort(opts.dns, '--dns'),
      dot: opts.dot === undefined ? null : parseHostPort(opts.dot, '--dot'),
      dnsThreads: dnsThreads(opts.dnsThreads),
      udpBatch: udpBatch(opts.udpBatch),
      rrl: parseRrl({ rate: opts.rrlRate, slip: opts.rrlSlip, ipv4Prefix: opts.rrlIpv4Prefix, ipv6Prefix: opts.rrlIpv6Prefix, exempt: opts.rrlExempt }),
      nsid: parseNsid(opts.nsid),
      resolver: parseResolver(opts.resolver),
      db: opts.db,
      store: storeOptions(opts),
      nameservers: parseNameservers(opts.ns),
      logLevel: opts.logLevel,
      tls: opts.tlsCert && opts.tlsKey ? { cert: opts.tlsCert, key: opts.tlsKey } : null,
      rateLimits: { perAddress: parseCount(opts.rateLimitAddress, '--rate-limit-address'), perKey: parseCount(opts.rateLimitKey, '--rate-limit-key') },
      limits: { recordsPerDomain: parseCount(opts.maxRecords, '--max-records'), domainsPerAccount: parseCount(opts.maxDomains, '--max-domains') },
      trustProxy: opts.trustProxy ? opts.trustProxy.split(',').map((s) => s.trim()).filter(Boolean) : [],
      importAllow: opts.importAllow ? opts.importAllow.split(',').map((s) => s.trim()).filter(Boolean) : [],
      healthcheckAllow: opts.healthcheckAllow ? opts.healthcheckAllow.split(',').map((s) => s.trim()).filter(Boolean) : [],
      keyEncryptionKeyFile: opts.keyEncryptionKeyFile ?? null,
      dnssec: {
        dnskeyTtl: parseCount(opts.dnssecDnskeyTtl, '--dnssec-dnskey-ttl'),
        dsTtl: parseCount(opts.dnssecDsTtl, '--dnssec-ds-ttl'),
        propagation: parseCount(opts.dnssecPropagation, '--dnssec-propagation'),
      },
      catalog: parseCatalog(opts.catalog, opts.catalogAxfr, opts.catalogTsig, opts.catalogTsigOwner),
      webauthn: parseWebAuthn(opts.webauthnRpId, opts.webauthnOrigin),
    };
    const { startServer } = await import('../server.js');
    const server = await startServer(config);
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      process.stderr.write(`zonehost: ${signal} received, shutting down\n`);
      // A database that stopped answering leaves connections that never close: they must not hold the exit.
      setTimeout(() => {
        process.stderr.write(`zonehost: shutdown did not finish within ${SHUTDOWN_LIMIT_S} s; exiting\n`);
        process.exit(1);
      }, SHUTDOWN_LIMIT_S * 1000).unref();
      server.close().then(
        () => process.exit(0),
        (e: unknown) => {
          process.stderr.write(`zonehost: error during shutdown: ${String(e)}\n`);
          process.exit(1);
        },
      );
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
  });

/** Runs `fn` over the services of a store opened for one command, closing it after. */
async function withServices<T>(opts: DbOptions, fn: (services: Services) => Promise<T>): Promise<T> {
  const store = await openDb(opts.db, { ...storeOptions(opts), log: stderrLog });
  const { Services } = await import('../services/index.js');
  try {
    return await fn(new Services(store));
  } finally {
    await store.close();
  }
}

const user = program.command('user').description('manage accounts and their members');

/** A member's domains as given: comma-separated ids. */
function domainList(value: string): number[] {
  if (!/^\d+(,\d+)*$/.test(value)) throw new Error(`--domains must be domain ids separated by commas, not '${value}'`);
  return value.split(',').map(Number);
}

user
  .command('add')
  .description('create an account with NAME its owner; with --account, add NAME as a member of that account instead. The password is read from standard input (or prompted for on a terminal)')
  .argument('<name>', 'user name')
  .option('--account <owner>', 'add a member to this account (its name: the user who made it) instead of creating an account')
  .addOption(new Option('--role <role>', "the member's role (with --account)").choices([...ROLES]).default('editor'))
  .option('--domains <ids>', 'limit the member to these domain ids, separated by commas (with --account; default: every domain)')
  .addOption(dbOption())
  .addOption(dbPoolOption())
  .addOption(dbWaitOption())
  .action(async (name: string, opts: DbOptions & { account?: string; role: string; domains?: string }) => {
    const domains = opts.domains === undefined ? undefined : domainList(opts.domains);
    if (!opts.account && domains) throw new Error('--domains needs --account: an account\'s owner has every domain');
    const password = await readPassword();
    if (opts.account) {
      const owner = opts.account;
      const member = await withServices(opts, (s) => s.members.addWithPassword(owner, name, password, { role: opts.role, ...(domains ? { domains } : {}) }));
      process.stdout.write(`added member ${member.username} (${member.role}) to account ${owner}\n`);
      return;
    }
    const account = await withServices(opts, (s) => s.accounts.createUser(name, password));
    process.stdout.write(`created user ${account.username} (account ${account.id})\n`);
  });

const account = program.command('account').description("the operator's controls: list accounts, suspend and resume them, set their limits, delete them");

const limitText = (n: number | null) => (n === null ? 'default' : String(n));

/** One line per account, in columns; `--json` for scripts. */
function accountTable(rows: AccountSummary[]): string {
  const head = ['NAME', 'MEMBERS', 'DOMAINS', 'RECORDS', 'STATUS', 'MAX-DOMAINS', 'MAX-RECORDS'];
  const cells = rows.map((a) => [a.name, String(a.members), String(a.domains), String(a.records), a.status, limitText(a.maxDomains), limitText(a.maxRecords)]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  return [head, ...cells].map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i] as number))).join('  ')).join('\n') + '\n';
}

account
  .command('list')
  .description('list the accounts: name, members, domains, records, status, and the limits set on each (default: the node\'s --max-domains/--max-records)')
  .option('--json', 'one JSON array, for scripts')
  .addOption(dbOption())
  .addOption(dbPoolOption())
  .addOption(dbWaitOption())
  .action(async (opts: DbOptions & { json?: boolean }) => {
    const rows = await withServices(opts, (s) => s.operator.list());
    process.stdout.write(opts.json ? `${JSON.stringify(rows)}\n` : accountTable(rows));
  });

/** A limit as given: a whole number, or 'default' for the node's. */
function limitOption(value: string, flag: string): number | null {
  if (value === 'default') return null;
  if (!/^\d+$/.test(value)) throw new Error(`${flag} must be a whole number or 'default', not '${value}'`);
  return Number(value);
}

account
  .command('set')
  .description("suspend or resume an account, or set its own limits (a suspended account's keys, TSIG keys and sign-ins are refused; its zones stay served)")
  .argument('<name>', 'the account (the name of the user who made it)')
  .addOption(new Option('--max-domains <n>', "domains the account may hold; 'default': the node's --max-domains"))
  .addOption(new Option('--max-records <n>', "records each of its domains may hold; 'default': the node's --max-records"))
  .addOption(new Option('--suspend', 'refuse its API keys, TSIG keys and sign-ins on every door from the next request on').conflicts('resume'))
  .addOption(new Option('--resume', 'lift a suspension'))
  .addOption(dbOption())
  .addOption(dbPoolOption())
  .addOption(dbWaitOption())
  .action(async (name: string, opts: DbOptions & { maxDomains?: string; maxRecords?: string; suspend?: boolean; resume?: boolean }) => {
    const controls: AccountControls = {
      ...(opts.maxDomains === undefined ? {} : { maxDomains: limitOption(opts.maxDomains, '--max-domains') }),
      ...(opts.maxRecords === undefined ? {} : { maxRecords: limitOption(opts.maxRecords, '--max-records') }),
      ...(opts.suspend ? { status: 'suspended' as const } : opts.resume ? { status: 'active' as const } : {}),
    };
    if (Object.keys(controls).length === 0) throw new Error('nothing to set: give --max-domains, --max-records, --suspend or --resume');
    const a = await withServices(opts, (s) => s.operator.set(name, controls));
    process.stdout.write(`account ${a.name}: ${a.status}, max domains ${limitText(a.maxDomains)}, max records per domain ${limitText(a.maxRecords)}\n`);
  });

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
const holdingsText = (h: AccountHoldings) =>
  `${plural(h.domains, 'domain')} (no longer served), ${plural(h.records, 'record')}, ${plural(h.apiKeys, 'API key')}, ${plural(h.tsigKeys, 'TSIG key')} and its audit trail`;

account
  .command('delete')
  .description('delete an account with everything it holds: domains (no longer served), records, mirrors, DNSSEC keys, API and TSIG keys, its audit trail')
  .argument('<name>', 'the account (the name of the user who made it)')
  .option('--yes', 'do it; without it, the command only says what it would delete')
  .addOption(dbOption())
  .addOption(dbPoolOption())
  .addOption(dbWaitOption())
  .action(async (name: string, opts: DbOptions & { yes?: boolean }) => {
    if (!opts.yes) {
      const h = await withServices(opts, (s) => s.operator.holdings(name));
      throw new Error(`not deleted: this would delete account ${h.name} with ${holdingsText(h)}; run again with --yes to delete it`);
    }
    const h = await withServices(opts, (s) => s.operator.delete(name));
    process.stdout.write(`deleted account ${h.name} with ${holdingsText(h)}\n`);
  });

program
  .command('migrate')
  .description('apply pending database migrations and exit (serve also applies them at start-up)')
  .addOption(dbOption())
  .addOption(dbWaitOption())
  .action(async (opts: Omit<DbOptions, 'dbPool'>) => {
    const store = await openDb(opts.db, { ...storeOptions({ ...opts, dbPool: '1' }), log: stderrLog });
    await store.close();
    process.stdout.write('database schema is up to date\n');
  });

/**
 * The store, its modules loaded only now: like the server's (serve), they are most of the program, and a command
 * that stops at a wrong option (or --help) should not wait for them to load.
 */
async function openDb(...args: Parameters<typeof import('../store/open.js').openStore>): ReturnType<typeof import('../store/open.js').openStore> {
  const { openStore } = await import('../store/open.js');
  return openStore(...args);
}

/** First line of stdin when it is not a terminal; otherwise a prompt that does not echo. */
async function readPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return (Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '');
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  process.stderr.write('Password: ');
  // Mute the echo of typed characters.
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => {};
  const answer = await new Promise<string>((resolve) => rl.question('', resolve));
  rl.close();
  process.stderr.write('\n');
  return answer;
}

program.parseAsync(process.argv).catch((e: unknown) => {
  const message = e instanceof ValidationError ? e.problems.map((p) => p.message).join(' ') : e instanceof Error ? e.message : String(e);
  process.stderr.write(`zonehost: ${message}\n`);
  process.exit(1);
});
