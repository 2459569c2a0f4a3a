/**
 * NOTIFY (RFC 1996) both ways. Out: after every committed change of a served zone, each address in its
 * `axfr` list (and the catalog's secondaries, services.zones.notifyTargets) is told on port 53, retried with doubling waits until it answers. In: a NOTIFY for one of
 * our zone mirrors from one of its masters makes the puller check at once; any other is REFUSED.
 */
import { randomInt } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { isIPv4 } from 'node:net';
import type * as dnsPacket from 'dns-packet';
import * as packet from 'dns-packet';
import type { Logger } from 'pino';
import { isServed, type StoredDomain } from '../../model/domain.js';
import { normalizeZoneName } from '../../model/names.js';
import type { ZoneEvent } from '../../model/zone-event.js';
import type { Services } from '../../services/index.js';
import { soaData } from '../../model/records/index.js';
import { serialNewer, type ZoneRecord } from '../../model/zone.js';
import type { TransferRequest } from './outgoing.js';
import { EDE } from '../wire/edns-options.js';
import { OPCODE, RCODE } from '../wire/message.js';
import { addressIn, decodeStrict, opcodeOf, queryFlags, rcodeOf, response } from './wire.js';

/**
 * Secondaries are listed as bare addresses (the API's axfr field) and are notified on the standard port
 * (the catalog's secondaries may name another, services/zones.ts); tests run their secondary on a spare
 * loopback address with port 53.
 */
const ATTEMPTS = 5;
const FIRST_WAIT_MS = 1000;

export interface NotifyOptions {
  nameservers: readonly string[];
  log: Logger;
  /** Only the cluster leader sends (it hears every node's changes). */
  shouldAct: () => boolean;
}

interface Pending {
  ip: string;
  resolve: (rcode: number | null) => void;
  timer: NodeJS.Timeout;
}

export class NotifySender {
  private readonly sockets = new Map<'udp4' | 'udp6', Socket>();
  private readonly pending = new Map<number, Pending>();
  /** Per zone and secondary, the serial being announced; a newer change supersedes the retries of an older one. */
  private readonly current = new Map<string, number>();
  private readonly lastSent = new Map<number, number>();
  private unsubscribe: (() => void) | null = null;
  private stopped = false;

  constructor(
    private readonly services: Services,
    private readonly opts: NotifyOptions,
  ) {}

  start(): void {
    this.unsubscribe = this.services.bus.on((c) => {
      this.onChange(c).catch((e: unknown) => this.opts.log.error({ err: e, domain: c.domain }, 'NOTIFY failed'));
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.resolve(null);
    }
    this.pending.clear();
    await Promise.all([...this.sockets.values()].map((s) => new Promise<void>((r) => s.close(() => r()))));
    this.sockets.clear();
  }

  private async onChange(c: ZoneEvent): Promise<void> {
    if (c.kind === 'domain.deleted') {
      this.lastSent.delete(c.domainId);
      return;
    }
    if (!this.opts.shouldAct()) return;
    const domain = await this.services.zones.byId(c.domainId);
    if (!domain || !isServed(domain.status)) return;
    const targets = this.services.zones.notifyTargets(domain, c.kind === 'domain.created');
    if (targets.length === 0) return;
    const soa = await this.services.zones.soa(domain, this.opts.nameservers);
    if (!soa) return;
    const serial = soaData(soa).serial;
    // A mirror re-checked without news, an event heard twice, or one overtaken by a later change.
    const last = this.lastSent.get(domain.id);
    if (last !== undefined && !serialNewer(serial, last)) return;
    this.lastSent.set(domain.id, serial);
    for (const t of targets) void this.notify(domain.domain, t.address, t.port, soa, serial);
  }

  private async notify(zone: string, ip: string, port: number, soa: ZoneRecord, serial: number): Promise<void> {
    const key = `${zone}|${ip}|${port}`;
    this.current.set(key, serial);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (this.stopped || this.current.get(key) !== serial) return;
      const rcode = await this.exchange(ip, port, zone, soa, FIRST_WAIT_MS * 2 ** attempt);
      if (rcode === null) continue;
      if (rcode === RCODE.NOERROR) this.opts.log.debug({ zone, ip, serial }, 'NOTIFY acknowledged');
      else this.opts.log.warn({ zone, ip, serial, rcode }, 'NOTIFY refused by the secondary');
      return this.done(key, serial);
    }
    this.opts.log.warn({ zone, ip, serial }, `NOTIFY not acknowledged after ${ATTEMPTS} attempts`);
    this.done(key, serial);
  }

  private done(key: string, serial: number): void {
    if (this.current.get(key) === serial) this.current.delete(key);
  }

  /** Sends one NOTIFY; resolves with the answer's rcode, or null when none came within `waitMs`. */
  private exchange(ip: string, port: number, zone: string, soa: ZoneRecord, waitMs: number): Promise<number | null> {
    return new Promise((resolve) => {
      // Message ids are unique among all NOTIFYs awaiting an answer, so an answer finds its NOTIFY by id.
      let id = randomInt(65536);
      while (this.pending.has(id)) id = randomInt(65536);
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve(null);
      }, waitMs);
      this.pending.set(id, { ip, resolve, timer });
      const msg = packet.encode({
        type: 'query',
        id,
        flags: queryFlags(OPCODE.NOTIFY, true),
        questions: [{ type: 'SOA', class: 'IN', name: zone }],
        // SOA's fields are dns-packet's own names.
        answers: [{ ...soa, class: 'IN' } as unknown as dnsPacket.Answer],
      });
      this.socket(isIPv4(ip) ? 'udp4' : 'udp6').send(msg, port, ip, (err) => {
        if (err) this.opts.log.debug({ zone, ip, err }, 'NOTIFY could not be sent');
      });
    });
  }

  private socket(family: 'udp4' | 'udp6'): Socket {
    let s = this.sockets.get(family);
    if (!s) {
      s = createSocket(family);
      s.on('error', (err) => this.opts.log.warn({ err }, 'NOTIFY socket error'));
      s.on('message', (msg, rinfo) => this.onAnswer(msg, rinfo.address));
      s.unref();
      this.sockets.set(family, s);
    }
    return s;
  }

  private onAnswer(msg: Buffer, from: string): void {
    let p: dnsPacket.Packet;
    try {
      p = decodeStrict(msg);
    } catch {
      return;
    }
    if (p.type !== 'response' || opcodeOf(p.flags) !== OPCODE.NOTIFY) return;
    const pending = this.pending.get(p.id ?? -1);
    if (!pending || !addressIn([pending.ip], from)) return;
    this.pending.delete(p.id ?? -1);
    clearTimeout(pending.timer);
    pending.resolve(rcodeOf(p.flags));
  }
}

/** Where an accepted NOTIFY goes: the node's transfers (startTransfers), whose puller checks the mirror. */
export interface NotifyTarget {
  notified(domain: StoredDomain): void;
}

const NOT_FROM_MASTER = { code: EDE.PROHIBITED, text: 'NOTIFY is taken only for a zone mirror, from its masters' };

/**
 * Answers an incoming NOTIFY: accepted only for a zone mirror, from one of its masters (signed with its key
 * for them, when it has one), and handed to
 * `target` (without one, a node running no transfers, it is acknowledged and nothing else).
 */
export async function handleNotify(req: TransferRequest, target: NotifyTarget | undefined): Promise<Buffer> {
  const { query } = req;
  const question = query.questions?.[0];
  if (!question || (query.questions?.length ?? 0) !== 1) return response(query, RCODE.FORMERR);
  const domain = await req.services.zones.byName(normalizeZoneName(question.name));
  if (question.type !== 'SOA' || !domain || domain.kind !== 'slave' || !addressIn(domain.masterIps, req.remoteAddress)) {
    return response(query, RCODE.REFUSED, NOT_FROM_MASTER);
  }
  // A mirror holding its masters' key takes only NOTIFY signed with it (the server has checked the signature).
  if (domain.masterTsig && req.keyName !== domain.masterTsig.name) return response(query, RCODE.REFUSED, NOT_FROM_MASTER);
  target?.notified(domain);
  return response(query, RCODE.NOERROR);
}
