/**
 * Zone mirrors (slave domains): checks the masters' SOA serial on creation, on NOTIFY and on the SOA
 * refresh/retry timers, pulls the zone by AXFR over TCP (or both over TLS, RFC 9103, for a mirror with
 * `masterTls`) when it is newer, validates every record through
 * the registry and stores the last good copy (services.mirrors). A failed pull keeps the previous copy,
 * which is served until the SOA expire time after the last successful check.
 */
import { randomInt } from 'node:crypto';
import * as packet from 'dns-packet';
import type { Logger } from 'pino';
import type { StoredDomain } from '../../model/domain.js';
import { SOA_TYPE, soaData, type Soa } from '../../model/records/index.js';
import { DEFAULT_TIMERS } from '../../model/ttl.js';
import type { ZoneEvent } from '../../model/zone-event.js';
import type { Services } from '../../services/index.js';
import { parseZone, serialiseZone, serialNewer } from '../../model/zone.js';
import { DOT_PORT, OPCODE } from '../wire/message.js';
import { checkSoa, pullZone, rcodeName, received, toMaster, type Received } from './pull.js';
import { queryFlags, rcodeOf, tcpExchange, truncated, udpExchange } from './wire.js';

/** Masters are given as bare addresses (the API's master_ips); they serve DNS on the standard port, TLS on its own. */
const MASTER_PORT = 53;
const masterPort = (domain: StoredDomain): number => (domain.masterTls ? DOT_PORT : MASTER_PORT);
const SOA_TIMEOUT_MS = 3000;
const AXFR_TIMEOUT_MS = 120_000;
const AXFR_MAX_BYTES = 64 * 1024 * 1024;
/** Floor for the master's refresh/retry, so a zero timer cannot make us poll in a loop (Knot's default too). */
const MIN_TIMER_S = 2;
/**
 * First wait before a mirror without a copy (none pulled yet, or dropped by a rename) tries its masters
 * again; doubled after each failure up to the retry timer it would otherwise wait. Such a mirror serves
 * nothing (REFUSED) until a pull succeeds, and its masters are most often just not ready yet (set up right
 * after the mirror, or restarting), so waiting the SOA retry (4 h by default) would leave it down for hours;
 * 10 s doubling passes an hour at the 10th failure, so a master that stays away costs little.
 */
export const FIRST_RETRY_MS = 10_000;
/** How often a node that must not act (not the leader) looks again. */
const STANDBY_MS = 30_000;
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export interface PullerOptions {
  log: Logger;
  /** Only the cluster leader pulls; the others look again later. */
  shouldAct: () => boolean;
  /** FIRST_RETRY_MS unless given (tests shorten it). */
  firstRetryMs?: number;
}

export class MirrorPuller {
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private readonly running = new Map<number, Promise<void>>();
  private readonly again = new Set<number>();
  /** Failed checks in a row of each mirror that has no copy, for its backoff. */
  private readonly failures = new Map<number, number>();
  private unsubscribe: (() => void) | null = null;
  private stopped = false;
  /** Cuts transfers under way short when the node stops. */
  private readonly abort = new AbortController();
  /** Seconds since the epoch, for TSIG. */
  private readonly now = () => Math.floor(this.services.now() / 1000);

  constructor(
    private readonly services: Services,
    private readonly opts: PullerOptions,
  ) {}

  /** Subscribes to domain changes and checks every mirror once. */
  async start(): Promise<void> {
    this.unsubscribe = this.services.bus.on((c) => this.onChange(c));
    for (const d of await this.services.zones.listMirrors()) this.check(d.id);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    this.unsubscribe?.();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.running.values()]);
  }

  /**
   * A master announced a change (the caller has checked it is one of the mirror's masters). Only the
   * leader pulls, so another node passes the news on through the store, which reaches every node.
   */
  notified(domain: StoredDomain): void {
    if (this.opts.shouldAct()) return this.check(domain.id);
    this.services.mirrors.passOnNotify(domain).catch((e: unknown) => this.opts.log.warn({ err: e, domain: domain.domain }, 'NOTIFY could not be passed on to the leader'));
  }

  private onChange(c: ZoneEvent): void {
    // A mirror created or changed (new masters, new name) starts its backoff afresh.
    if (c.kind === 'domain.created' || c.kind === 'domain.updated' || c.kind === 'domain.deleted') this.failures.delete(c.domainId);
    if (c.kind === 'domain.created' || c.kind === 'domain.updated' || c.kind === 'mirror.notified') this.check(c.domainId);
    else if (c.kind === 'domain.deleted') this.cancel(c.domainId);
  }

  private cancel(id: number): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
  }

  private schedule(id: number, ms: number): void {
    if (this.stopped) return;
    this.cancel(id);
    const timer = setTimeout(() => this.check(id), Math.min(ms, MAX_TIMEOUT_MS));
    timer.unref();
    this.timers.set(id, timer);
  }

  /** Runs one check now, or right after the one under way (whose outcome may predate the trigger). */
  check(id: number): void {
    if (this.stopped) return;
    if (this.running.has(id)) {
      this.again.add(id);
      return;
    }
    const run = this.checkOnce(id)
      .catch((e: unknown) => this.opts.log.error({ err: e, domainId: id }, 'zone mirror check failed'))
      .finally(() => {
        this.running.delete(id);
        if (this.again.delete(id)) this.check(id);
      });
    this.running.set(id, run);
  }

  private async checkOnce(id: number): Promise<void> {
    this.cancel(id);
    const domain = await this.services.zones.byId(id);
    if (!domain || domain.kind !== 'slave') return;
    if (!this.opts.shouldAct()) return this.schedule(id, STANDBY_MS);
    const text = await this.services.mirrors.zoneOf(id);
    const have = text ? parseZone(text) : null;
    const haveSoa = have ? soaData(have.soa) : undefined;
    const errors: string[] = [];
    // The timers to go by: a master's SOA answer of just now, else our copy's.
    let timers: Soa | undefined = haveSoa;
    for (const master of domain.masterIps) {
      try {
        const masterSoa = await querySoa(master, domain, this.now);
        timers = masterSoa;
        if (have && haveSoa && text && !serialNewer(masterSoa.serial, haveSoa.serial)) {
          // Up to date: a successful check, which restarts the expire clock.
          await this.services.mirrors.transferred(id, domain.domain, haveSoa.serial, text);
          return this.schedule(id, timer(masterSoa.refresh));
        }
        const limits = { maxRecords: await this.services.mirrors.maxRecords(domain), timeoutMs: AXFR_TIMEOUT_MS, maxBytes: AXFR_MAX_BYTES, signal: this.abort.signal, tls: domain.masterTls, tlsAuth: domain.masterTlsAuth };
        const content = await pullZone(master, masterPort(domain), domain.domain, domain.masterTsig, limits, this.now);
        const soa = soaData(content.soa);
        await this.services.mirrors.transferred(id, domain.domain, soa.serial, serialiseZone(content));
        this.failures.delete(id);
        this.opts.log.info({ domain: domain.domain, master, serial: soa.serial, records: content.answers.length }, 'zone mirror transferred');
        return this.schedule(id, timer(soa.refresh));
      } catch (e) {
        errors.push(`${master}: ${(e as Error).message}`);
      }
    }
    if (this.stopped) return;
    const error = errors.join('; ') || 'no master address';
    this.opts.log.warn({ domain: domain.domain, error }, 'zone mirror transfer failed');
    await this.services.mirrors.failed(id, error);
    const retry = timer(timers?.retry ?? (domain.retry || DEFAULT_TIMERS.retry));
    if (have) return this.schedule(id, retry);
    // Nothing served until a pull succeeds: try again soon, backing off (see FIRST_RETRY_MS).
    const failures = (this.failures.get(id) ?? 0) + 1;
    this.failures.set(id, failures);
    this.schedule(id, Math.min((this.opts.firstRetryMs ?? FIRST_RETRY_MS) * 2 ** (failures - 1), retry));
  }
}

const timer = (seconds: number): number => Math.max(seconds, MIN_TIMER_S) * 1000;

/** The master's current SOA for the zone (UDP, and TCP when the answer is truncated; TLS alone for a mirror over TLS). */
async function querySoa(master: string, domain: StoredDomain, now: () => number): Promise<Soa> {
  const zone = domain.domain;
  const id = randomInt(65536);
  const query = packet.encode({
    type: 'query',
    id,
    flags: queryFlags(OPCODE.QUERY),
    questions: [{ type: 'SOA', class: 'IN', name: zone }],
  });
  const answers = (msg: Buffer): Received | null => {
    const p = received(msg);
    return p.packet.id === id && p.packet.type === 'response' ? p : null;
  };
  let exchange = toMaster(domain.masterTsig, query, now);
  const overStream = async (): Promise<Received> => {
    let got: Received | null = null;
    exchange = toMaster(domain.masterTsig, query, now);
    await tcpExchange(master, masterPort(domain), exchange.request, (buf) => ((got = received(buf)), true), { timeoutMs: SOA_TIMEOUT_MS, maxBytes: 70_000, tls: domain.masterTls, tlsAuth: domain.masterTlsAuth });
    return got as unknown as Received;
  };
  let answer = domain.masterTls ? await overStream() : await udpExchange(master, MASTER_PORT, exchange.request, answers, SOA_TIMEOUT_MS);
  if (truncated(answer.packet.flags)) answer = await overStream();
  exchange.check(answer.raw);
  const rcode = rcodeOf(answer.packet.flags);
  if (rcode !== 0) throw new Error(`SOA query answered ${rcodeName(rcode)}`);
  const soa = answer.answers.find((a) => a.type === SOA_TYPE.type && a.name.toLowerCase() === zone);
  if (!soa) throw new Error('the master has no SOA for the zone');
  return soaData(checkSoa(soa, zone));
}

