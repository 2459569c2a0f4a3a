/**
 * The authoritative DNS server, started and stopped: the zones in memory (zone-cache.ts), one handler for every
 * message (handler.ts), UDP (udp.ts, and on more threads threads.ts) and TCP (tcp.ts) on one port, TLS (tls.ts)
 * on another when asked for, the answers the HTTP door gives over HTTPS (doh.ts), and the options answers carry
 * for their client (answer-options.ts: cookies with the store's secrets, NSID).
 */
import type { Logger } from 'pino';
import { randomBytes } from 'node:crypto';
import type { TlsFiles } from '../../config.js';
import { COOKIE_SECRET_BYTES, cookiePeriod, type CookieSecret } from '../../model/cookie-secret.js';
import type { Services } from '../../services/index.js';
import { AliasCache } from '../alias/cache.js';
import type { ResolverAddress } from '../alias/resolver.js';
import { AliasUsers } from '../alias/users.js';
import { SignatureCache } from '../dnssec/sign.js';
import type { NotifyTarget } from '../transfer/index.js';
import { AnswerOptions } from './answer-options.js';
import { DnsHandler } from './handler.js';
import { ResponseCache } from './response-cache.js';
import { DEFAULT_RRL, RateLimiter, rrlTable, type RrlSettings } from './rrl.js';
import { answerOverHttp, type HttpAnswer } from './doh.js';
import { dnsTcp, TCP_IDLE_MS, type DnsTcp } from './tcp.js';
import { dnsTls } from './tls.js';
import { singleThreadReason, startDnsThreads, type DnsThreads } from './threads.js';
import type { UdpEndpoint, UdpPath, UdpServe } from './udp-socket.js';
import { answerUdp, DEFAULT_UDP_BATCH, listenUdp, udpPathReason } from './udp.js';
import { youngGcAfterWrites } from './young-gc.js';
import { ZoneCache } from './zone-cache.js';

export interface DnsOptions {
  host: string;
  port: number;
  /** The configured name servers: SOA MNAME (the first) and apex NS set of every master zone. */
  nameservers: string[];
  log: Logger;
  /** How long an idle TCP connection stays open (default 10 s). */
  tcpIdleMs?: number;
  /** Where NOTIFY accepted for a zone mirror goes: the node's transfers; without them it is acknowledged only. */
  notifyTarget?: NotifyTarget;
  /** Threads answering UDP (threads.ts); 1 unless given, and 1 where the runtime cannot share the port. */
  threads?: number;
  /** Datagrams per system call (udp-batch.ts), DEFAULT_UDP_BATCH unless given; 0 takes Node.js's dgram path. */
  udpBatch?: number;
  /** Response rate limiting over UDP (rrl.ts): DEFAULT_RRL for what is not given; `rate: 0` turns it off. */
  rrl?: Partial<RrlSettings>;
  /** The name server identifier answered to queries that ask for it (RFC 5001, `--nsid`); none when absent. */
  nsid?: string | null;
  /** How often the cookie secrets are read again from the store (COOKIE_SECRETS_REFRESH_MS unless given; tests shorten it). */
  cookieRefreshMs?: number;
  /** DNS over TLS: where it listens (port 0: any) and with which certificate; none without. */
  dot?: { host: string; port: number; tls: TlsFiles } | null;
  /** Where ALIAS targets are resolved (`--resolver`); null: nowhere, their queries get SERVFAIL. */
  resolver?: ResolverAddress | null;
  /** Whether this node gives zones new serials for new ALIAS addresses (only the cluster leader should); default always. */
  shouldAct?: () => boolean;
}

/**
 * How often the cookie secrets are read from the store: each is there a period (a day) before it makes cookies
 * (services/cookie-secrets.ts), so a node that reads them this late still knows it in time.
 */
const COOKIE_SECRETS_REFRESH_MS = 10 * 60_000;

export interface RunningDns {
  address: { host: string; port: number };
  zones: ZoneCache;
  /** How UDP is read and written: in batches by the native module, or by dgram. */
  udpPath: UdpPath;
  /** Where DNS over TLS listens; null when it does not. */
  dotAddress: { host: string; port: number } | null;
  /** The answer to one message received over HTTP (DNS over HTTPS); null for one not worth an answer. */
  answerOverHttp(query: Buffer, remoteAddress: string): Promise<HttpAnswer | null>;
  close(): Promise<void>;
}

/** Attempts at a port free for both UDP and TCP when any port will do (port 0). */
const PORT_ATTEMPTS = 11;

export async function startDns(services: Services, opts: DnsOptions): Promise<RunningDns> {
  let threads: DnsThreads | null = null;
  const cookies = await startCookieSecrets(services, opts, (secrets) => threads?.setSecrets(secrets));
  const memory = await startZones(services, opts, () => threads?.changed());
  const { zones, responses, signatures, aliases } = memory;
  const options = new AnswerOptions(cookies.setup);
  cookies.use(options);
  const rrl = rrlTable({ ...DEFAULT_RRL, ...opts.rrl });
  const limiter = rrl ? new RateLimiter(rrl, (network) => opts.log.warn({ network }, `DNS answers to ${network} are being rate-limited (RRL); said at most once a minute`)) : null;
  const offCounters = dnsCounters(services, limiter, options);
  const stopMemory = () => {
    memory.stop();
    cookies.stop();
    offCounters();
  };
  const handler = new DnsHandler(services, { zones, responses, signatures, options, nameservers: opts.nameservers, log: opts.log, notifyTarget: opts.notifyTarget, aliases });
  const idleMs = opts.tcpIdleMs ?? TCP_IDLE_MS;
  const tcp = dnsTcp(handler, opts.log, idleMs);
  const tls = opts.dot ? dnsTls(handler, opts.log, opts.dot.tls, idleMs) : null;
  const batch = opts.udpBatch ?? DEFAULT_UDP_BATCH;
  const shared = threadsToShare(opts, batch);
  let udp: UdpEndpoint;
  try {
    udp = await listenPort(opts, answerUdp(handler, limiter, opts.log), tcp, shared > 1, batch);
  } catch (e) {
    stopMemory();
    throw e;
  }
  let dotAddress: RunningDns['dotAddress'] = null;
  const closeSockets = async () => {
    await udp.close();
    await tcp.close();
    await tls?.close();
  };
  try {
    if (opts.dot && tls) dotAddress = { host: opts.dot.host, port: await tls.listen(opts.dot.host, opts.dot.port) };
    if (shared > 1) threads = await startDnsThreads(shared, { host: opts.host, port: udp.port, batch, options: cookies.setup, rrl }, udp, handler, limiter, options, services, opts.log);
  } catch (e) {
    stopMemory();
    await closeSockets();
    throw e;
  }
  const address = { host: opts.host, port: udp.port };
  const count = threads?.count ?? 1;
  opts.log.info({ dns: address, dot: dotAddress, zones: zones.size, threads: count, udp: udp.path }, `DNS listening (UDP on ${count === 1 ? 'one thread' : `${count} threads`}, ${udpPathText(batch)}${dotAddress ? '; TLS too' : ''})`);
  return {
    address,
    zones,
    udpPath: udp.path,
    dotAddress,
    answerOverHttp: (query, remoteAddress) => answerOverHttp(handler, query, remoteAddress),
    async close() {
      stopMemory();
      await threads?.close();
      await closeSockets();
    },
  };
}

/** The log's words for the UDP path serving. */
function udpPathText(batch: number): string {
  const dgram = udpPathReason(batch);
  return dgram ? `one datagram per system call through dgram: ${dgram}` : `up to ${batch} datagrams per system call (recvmmsg/sendmmsg)`;
}

/**
 * The zones in memory (listed, and loading from now on) with the caches made from them, which every zone
 * change empties (and `changed` hears of); `stop` ends their upkeep.
 */
async function startZones(services: Services, opts: DnsOptions, changed: () => void) {
  const responses = new ResponseCache();
  const signatures = new SignatureCache();
  const dropAnswers = () => {
    responses.clear();
    changed();
  };
  const { aliases, users } = startAliases(services, opts, dropAnswers);
  const zones = new ZoneCache(services, { nameservers: opts.nameservers, log: opts.log, changed: dropAnswers, signatures, aliases: users });
  await zones.start();
  // The bus hears each write right after it commits, before its answer: the young-generation pause goes there,
  // not on the queries for what the write changed.
  const offGc = services.bus.on(youngGcAfterWrites());
  const offGauges = dnsGauges(services, zones, signatures);
  return {
    zones,
    responses,
    signatures,
    aliases,
    stop() {
      zones.stop();
      users.stop();
      aliases.stop();
      offGauges();
      offGc();
    },
  };
}

/**
 * ALIAS targets' addresses (dns/alias/): resolved while a zone in memory uses them; when they change, the
 * answers made with them go (`dropAnswers`) and the zones using them take a new serial.
 */
function startAliases(services: Services, opts: DnsOptions, dropAnswers: () => void) {
  const aliases = new AliasCache(opts.resolver ?? null, services.now);
  aliases.onChange(dropAnswers);
  const users = new AliasUsers(aliases, { bump: (id) => services.aliases.resolved(id), shouldAct: opts.shouldAct ?? (() => true), log: opts.log }, services.now);
  return { aliases, users };
}

/**
 * The cookie secrets from the store, read at start and every `cookieRefreshMs` after: what a worker thread is
 * set up with (with the NSID), handed to `options` and to `changed` (the worker threads) whenever they change.
 * A store that cannot be read leaves the secrets as they were (at start: this node's own, until it can).
 */
async function startCookieSecrets(services: Services, opts: DnsOptions, changed: (secrets: CookieSecret[]) => void) {
  const read = async (): Promise<CookieSecret[] | null> => {
    try {
      return await services.cookieSecrets.current();
    } catch (e) {
      opts.log.warn({ err: (e as Error).message }, 'DNS cookie secrets could not be read from the database; trying again later');
      return null;
    }
  };
  const fingerprint = (secrets: CookieSecret[]) => secrets.map((s) => `${s.period}:${Buffer.from(s.secret).toString('hex')}`).join(',');
  const stored = await read();
  const first = stored ?? [{ period: cookiePeriod(services.now()), secret: randomBytes(COOKIE_SECRET_BYTES) }];
  let seen = stored ? fingerprint(stored) : '';
  let options: AnswerOptions | null = null;
  const timer = setInterval(() => {
    void read().then((secrets) => {
      if (!secrets || fingerprint(secrets) === seen) return;
      seen = fingerprint(secrets);
      options?.setSecrets(secrets);
      changed(secrets);
    });
  }, opts.cookieRefreshMs ?? COOKIE_SECRETS_REFRESH_MS);
  timer.unref();
  return {
    setup: { secrets: first, nsid: opts.nsid ? Buffer.from(opts.nsid, 'utf8') : null },
    use(o: AnswerOptions) {
      options = o;
    },
    stop: () => clearInterval(timer),
  };
}

/** The DNS server's gauges in the metrics; the function returned takes them off. */
function dnsGauges(services: Services, zones: ZoneCache, signatures: SignatureCache): () => void {
  const { metrics } = services;
  const offs = [
    metrics.gauge('zonehost_dns_zones', 'Zones the DNS server answers for from memory.', () => zones.size),
    metrics.gauge('zonehost_dns_zones_loading', 'Zones listed at start that are not in memory yet (0 once the start-up load is done).', () => zones.loading),
    metrics.gauge('zonehost_dnssec_signatures_made', 'RRSIG records this node has made since it started (signatures are cached: this grows with changes, not with queries).', () => signatures.signed),
  ];
  return () => {
    for (const off of offs) off();
  };
}

/**
 * The rate limiter's counters (zero when RRL is off) and the cookies' (every thread's: workers add theirs to the
 * main thread's, threads.ts) in the metrics; the function returned takes them off.
 */
function dnsCounters({ metrics }: Services, limiter: RateLimiter | null, { cookieCounts }: AnswerOptions): () => void {
  const offs = [
    metrics.counter('zonehost_dns_rrl_dropped_total', 'DNS answers over UDP dropped by response rate limiting (--rrl-rate).', () => limiter?.dropped ?? 0),
    metrics.counter('zonehost_dns_rrl_slipped_total', 'DNS answers over UDP sent truncated (TC) instead by response rate limiting (--rrl-slip).', () => limiter?.slipped ?? 0),
    metrics.counter('zonehost_dns_cookie_client_only_total', 'DNS queries with a client cookie alone (answered with a server cookie of ours).', () => cookieCounts.clientOnly),
    metrics.counter('zonehost_dns_cookie_valid_total', 'DNS queries with a valid server cookie of ours (within the hour; renewed after half an hour).', () => cookieCounts.valid),
    metrics.counter('zonehost_dns_cookie_invalid_total', 'DNS queries with a server cookie that is not valid (forged, stale, made by another server): answered with a fresh one.', () => cookieCounts.invalid),
    metrics.counter('zonehost_dns_cookie_malformed_total', 'DNS queries answered FORMERR for a COOKIE option of a wrong length (RFC 7873 5.2.2).', () => cookieCounts.malformed),
  ];
  return () => {
    for (const off of offs) off();
  };
}

/** Threads that answer UDP: those asked for, or 1 (said in the log) where the port cannot be shared. */
function threadsToShare(opts: DnsOptions, batch: number): number {
  const wanted = opts.threads ?? 1;
  const oneThread = wanted > 1 ? singleThreadReason(batch) : null;
  if (oneThread) opts.log.warn(`DNS answers on one thread, not ${wanted}: ${oneThread}`);
  return oneThread ? 1 : wanted;
}

/**
 * Binds UDP and TCP on the same port. With port 0 the UDP port is chosen first and TCP takes the same
 * number; tried again with another if TCP finds that one busy.
 */
async function listenPort(opts: DnsOptions, serve: UdpServe, tcp: DnsTcp, reusePort: boolean, batch: number): Promise<UdpEndpoint> {
  for (let attempt = 1; ; attempt++) {
    const udp = await listenUdp({ host: opts.host, port: opts.port, reusePort, batch }, serve);
    try {
      await tcp.listen(opts.host, udp.port);
      return udp;
    } catch (e) {
      await udp.close();
      if (opts.port !== 0 || attempt >= PORT_ATTEMPTS) throw e;
    }
  }
}
