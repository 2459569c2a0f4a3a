/** Starts the configured parts of one node (HTTP APIs, DNS) over one store, and stops them cleanly. */
import type { FastifyBaseLogger } from 'fastify';
import pino, { type Logger } from 'pino';
import { systemResolver, type Config } from './config.js';
import { startDns, type RunningDns } from './dns/server/server.js';
import type { UdpPath } from './dns/server/udp-socket.js';
import { axfrZoneSource, startTransfers, type RunningTransfers } from './dns/transfer/index.js';
import { buildApp } from './http/app.js';
import { DEFAULT_LIMITS } from './services/actor.js';
import { ClusterFeed } from './services/cluster.js';
import { resolveKek } from './services/kek.js';
import { Leadership } from './services/leader.js';
import { HealthRunner } from './services/health-runner.js';
import { Services } from './services/index.js';
import type { Store } from './store/store.js';
import { openStore } from './store/open.js';

export interface RunningServer {
  services: Services;
  /** Whether this node is the one that sends NOTIFY and runs mirror transfers (always on SQLite). */
  leadership: Leadership;
  /** Bound HTTP address (port resolved when 0 was asked for). */
  httpAddress: { host: string; port: number } | null;
  /** Bound DNS address (UDP and TCP share the port); null when this node serves no DNS. */
  dnsAddress: { host: string; port: number } | null;
  /** Bound DNS over TLS address; null when this node serves none. */
  dotAddress: { host: string; port: number } | null;
  /** How DNS reads and writes UDP (batched by the native module, or dgram); null when this node serves no DNS. */
  udpPath: UdpPath | null;
  close(): Promise<void>;
}

type Address = { host: string; port: number };
/** What stops a part of the node; run in the reverse order of the starts. */
type Closer = () => Promise<void>;

export async function startServer(config: Config): Promise<RunningServer> {
  checkDot(config);
  const logger = pino({ level: config.logLevel });
  const { store, services } = await openServices(config, logger);
  await warnAboutSetup(config, services, logger);
  const closers: Closer[] = [];
  const shutdown = async () => {
    for (const close of [...closers].reverse()) await close();
    await store.close();
  };
  const leadership = new Leadership(store, { info: (m) => logger.info(m), warn: (m) => logger.warn(m) });
  try {
    const transfers = await startBackground(config, services, store, leadership, logger, closers);
    const dns = await startNodeDns(config, services, transfers, leadership, logger, closers);
    // After DNS: building the HTTP app (compiling its schemas) takes a while, and answering DNS need not wait for it.
    const httpAddress = await startHttp(config, services, dns, logger, closers);
    return { services, leadership, httpAddress, dnsAddress: dns?.address ?? null, dotAddress: dns?.dotAddress ?? null, udpPath: dns?.udpPath ?? null, close: shutdown };
  } catch (e) {
    await shutdown();
    throw e;
  }
}

/** DNS over TLS needs the DNS server and a certificate: said before anything starts. */
function checkDot(config: Config): void {
  if (!config.dot) return;
  if (!config.tls) throw new Error('--dot needs --tls-cert and --tls-key: the certificate DNS over TLS presents');
  if (!config.dns) throw new Error('--dot needs the DNS server (it answers from the same zones): remove --no-dns');
}

/** Opens the store and the services over it, with the key-encryption key of DNSSEC private keys (if any). */
async function openServices(config: Config, logger: Logger): Promise<{ store: Store; services: Services }> {
  // A DNS-only node has nothing to serve without its zones, so it waits for the database as long as it takes.
  const wait = config.http ? {} : { connectTimeoutMs: Infinity };
  const store = await openStore(config.db, { ...config.store, ...wait, log: (message) => logger.warn(message) });
  let kek: ReturnType<typeof resolveKek>;
  try {
    const sealedTotp = await store.anySealedTotpSecret();
    kek = resolveKek(config.db, config.keyEncryptionKeyFile, sealedTotp || (await store.anyDnssecKey()) !== undefined);
    // A node that signs members in must open their TOTP secrets; one that only answers DNS does not need them.
    if (!kek && sealedTotp && config.http) {
      throw new Error(
        'the database holds TOTP secrets sealed with a key-encryption key, but this node has none: give it --key-encryption-key-file, the file every node of the cluster uses (a DNS-only node, --no-http, needs none)',
      );
    }
  } catch (e) {
    await store.close();
    throw e;
  }
  if (kek?.created && kek.file) logger.warn({ file: kek.file }, 'created the key-encryption key of DNSSEC private keys; back it up together with the database');
  if (!kek) logger.info('no key-encryption key (--key-encryption-key-file): DNSSEC cannot be turned on from this node');
  const services = new Services(store, { ...DEFAULT_LIMITS, ...config.limits }, Date.now, { kek: kek?.key ?? null, ...(config.dnssec ? { timings: config.dnssec } : {}) }, config.nameservers, {
    source: axfrZoneSource,
    allow: config.importAllow ?? [],
  }, config.catalog ?? null, config.webauthn ?? {}, config.healthcheckAllow ?? []);
  return { store, services };
}

/** Says at start what the operator must fix: a --catalog-tsig key not made yet, a key-encryption key that does not fit. */
async function warnAboutSetup(config: Config, services: Services, logger: Logger): Promise<void> {
  const catalogKey = config.catalog?.tsig;
  // Only the owner's key of that name opens every zone; say so at start when it does not exist (yet).
  if (catalogKey && !(await services.zones.isSecondariesKey((await services.tsigKeys.byName(catalogKey).catch(() => null)) ?? null))) {
    logger.warn({ key: catalogKey, owner: config.catalog?.tsigOwner }, 'the --catalog-tsig key does not exist in the --catalog-tsig-owner account: make it there in /v1/tsigkeys');
  }
  const kekProblem = await services.dnssec.kekProblem().catch((e: unknown) => (e as Error).message);
  if (kekProblem) logger.error(kekProblem);
}

/**
 * What runs behind the doors: other nodes' changes heard, the leader chosen, NOTIFY and zone-mirror
 * transfers, DNSSEC's timed steps, health checks. Returns the transfers, which DNS hands the NOTIFY it accepts for mirrors.
 */
async function startBackground(config: Config, services: Services, store: Store, leadership: Leadership, logger: Logger, closers: Closer[]): Promise<RunningTransfers> {
  // Other nodes' changes reach services.bus from here on; started before anything loads zones.
  const feed = new ClusterFeed(store, services.bus, (m) => logger.warn(m));
  await feed.start();
  closers.push(() => feed.stop());
  await leadership.start();
  closers.push(() => leadership.stop());
  // NOTIFY to secondaries and zone-mirror pulls run on every node but act only while it leads. Started
  // before DNS, which hands them the NOTIFY it accepts for zone mirrors.
  const transfers = await startTransfers(services, {
    nameservers: config.nameservers,
    log: logger,
    shouldAct: () => leadership.isLeader(),
    mirrorFirstRetryMs: config.mirrorFirstRetryMs,
  });
  closers.push(() => transfers.close());
  // DNSSEC's timed steps (CDS switch, key removal, turning off) are zone writes: one node takes them.
  const dnssecTimer = setInterval(() => {
    if (!leadership.isLeader()) return;
    services.dnssec.advance().catch((e: unknown) => logger.warn({ err: (e as Error).message }, 'DNSSEC steps failed; trying again'));
  }, config.dnssecTickMs ?? 1000);
  dnssecTimer.unref();
  closers.push(async () => {
    clearInterval(dnssecTimer);
    await services.dnssec.idle();
  });
  // Health checks probe from one node, the leader, as the issue asks ("never on two").
  const healthRunner = new HealthRunner(services.healthChecks, () => leadership.isLeader(), logger);
  healthRunner.start();
  closers.push(() => healthRunner.stop());
  return transfers;
}

/** DNS, when this node serves it. */
async function startNodeDns(config: Config, services: Services, transfers: RunningTransfers, leadership: Leadership, logger: Logger, closers: Closer[]): Promise<RunningDns | null> {
  if (!config.dns) return null;
  const dns = await startDns(services, {
    host: config.dns.host,
    port: config.dns.port,
    nameservers: config.nameservers,
    log: logger,
    notifyTarget: transfers,
    ...(config.dnsThreads ? { threads: config.dnsThreads } : {}),
    ...(config.udpBatch === undefined ? {} : { udpBatch: config.udpBatch }),
    ...(config.rrl ? { rrl: config.rrl } : {}),
    nsid: config.nsid ?? null,
    dot: config.dot && config.tls ? { ...config.dot, tls: config.tls } : null,
    resolver: config.resolver === undefined ? systemResolver() : config.resolver,
    // New serials for new ALIAS addresses, like NOTIFY, come from one node.
    shouldAct: () => leadership.isLeader(),
  });
  closers.push(() => dns.close());
  return dns;
}

/** The HTTP APIs and panel, when this node serves them (with DNS over HTTPS when it serves DNS): their bound address. */
async function startHttp(config: Config, services: Services, dns: RunningDns | null, logger: Logger, closers: Closer[]): Promise<Address | null> {
  if (!config.http) return null;
  const app = await buildApp(services, { logger: logger as FastifyBaseLogger, tls: config.tls ?? null,
    ...(dns ? { dnsQuery: (query: Buffer, remoteAddress: string) => dns.answerOverHttp(query, remoteAddress) } : {}),
    ...(config.rateLimits ? { rateLimits: config.rateLimits } : {}),
    ...(config.trustProxy ? { trustProxy: config.trustProxy } : {}),
  });
  await app.listen({ host: config.http.host, port: config.http.port });
  closers.push(() => app.close());
  const addr = app.server.address();
  const httpAddress = addr && typeof addr === 'object' ? { host: addr.address, port: addr.port } : null;
  logger.info({ http: httpAddress }, 'HTTP APIs listening');
  return httpAddress;
}
