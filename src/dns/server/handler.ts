/**
 * One DNS message in, its answers out, whichever way it came (UDP, TCP, a worker thread): a signed message's
 * TSIG is checked first and its answers signed last; UPDATE, NOTIFY and AXFR/IXFR are handed on, standard
 * queries answered from the zones in memory through the response cache. Any failure is logged and answered
 * SERVFAIL, so no message can take the process down.
 */
import type * as dnsPacket from 'dns-packet';
import type { Logger } from 'pino';
import type { Services } from '../../services/index.js';
import { secure } from '../dnssec/secure.js';
import type { SignatureCache } from '../dnssec/sign.js';
import { handleNotify, handleTransfer, type NotifyTarget, type TransferRequest } from '../transfer/index.js';
import { decodeStrict } from '../transfer/wire.js';
import { CLASS_IN, OPCODE, RCODE, TCP_MAX, META_TYPE } from '../wire/message.js';
import { parseQuery, plainQuery, type Malformed, type Query } from '../wire/query.js';
import { tsigSize } from '../wire/tsig.js';
import { emptyResult, type Result } from '../zone/result.js';
import type { Zone } from '../zone/zone.js';
import { answerQuery } from './answer.js';
import { AnswerTooLarge, encodeResponse, udpLimit } from './response.js';
import type { PlainAnswer, ResponseCache } from './response-cache.js';
import { answerClass, replyClass } from './rrl.js';
import { checkTsig, type Signer } from './tsig-check.js';
import { handleUpdate } from './update.js';
import type { ZoneCache } from './zone-cache.js';

export type Transport = 'udp' | 'tcp';

/** The answers to a message, with what response rate limiting (rrl.ts) needs to know of them. */
export interface Answers {
  outs: Buffer[];
  /** Their class (answerClass, replyClass). */
  cls: number;
  /** The message's source is real, so its answers are never limited: it was TSIG-signed and verified. */
  verifiedClient: boolean;
}

export interface HandlerParts {
  zones: ZoneCache;
  responses: ResponseCache;
  signatures: SignatureCache;
  /** The configured name servers (UPDATE and transfers need them). */
  nameservers: string[];
  log: Logger;
  /** Where NOTIFY accepted for a zone mirror goes; without it, it is acknowledged only. */
  notifyTarget: NotifyTarget | undefined;
}

export class DnsHandler {
  constructor(
    private readonly services: Services,
    private readonly parts: HandlerParts,
  ) {}

  /** The response messages to one received message (none for messages not worth an answer). */
  async handle(raw: Buffer, remoteAddress: string, transport: Transport): Promise<Buffer[]> {
    return (await this.answers(raw, remoteAddress, transport)).outs;
  }

  /** handle() with what response rate limiting needs to know of the answers. */
  async answers(raw: Buffer, remoteAddress: string, transport: Transport): Promise<Answers> {
    let q: Query | Malformed | null = null;
    try {
      q = parseQuery(raw);
      if (!q) return unsigned([]);
      if ('malformed' in q) return unsigned([encodeResponse(q, emptyResult(RCODE.FORMERR), TCP_MAX)]);
      let limit = transport === 'udp' ? udpLimit(q) : TCP_MAX;
      let signer: Signer | null = null;
      if (q.tsig) {
        const checked = await checkTsig(this.services, q, q.tsig, raw, limit);
        // A refusal answers a signature that did not verify: its source may be forged.
        if ('refusal' in checked) return unsigned([checked.refusal]);
        signer = checked;
        // The answer leaves room for its own TSIG record.
        limit -= tsigSize(signer.secret);
      }
      const a = await this.respond(q, raw, remoteAddress, transport, limit, signer);
      return signer ? { ...a, outs: signer.sign(a.outs), verifiedClient: true } : a;
    } catch (e) {
      this.parts.log.warn({ err: (e as Error).message, remoteAddress, transport }, 'DNS message could not be answered');
      if (!q) return unsigned([]);
      try {
        return unsigned([encodeResponse(q, emptyResult(RCODE.SERVFAIL), TCP_MAX)]);
      } catch {
        return unsigned([]);
      }
    }
  }

  /**
   * Answers a plain query at once, with nothing to wait for (the hot path); null for anything else, and for a
   * query that fails here: handle() answers it again, logging why and sending SERVFAIL.
   */
  quickAnswer(raw: Buffer, transport: Transport): PlainAnswer | null {
    try {
      const q = plainQuery(parseQuery(raw));
      if (!q || this.parts.zones.pendingFor(q.key)) return null;
      return this.answer(q, raw, transport === 'udp' ? udpLimit(q) : TCP_MAX);
    } catch {
      return null;
    }
  }

  /** The answers to a message whose TSIG, if any, verified: by opcode (and AXFR/IXFR by type). */
  private async respond(q: Query, raw: Buffer, remoteAddress: string, transport: Transport, limit: number, signer: Signer | null): Promise<Answers> {
    if (q.edns && q.edns.version !== 0) return unsigned([encodeResponse(q, emptyResult(RCODE.BADVERS), limit)]);
    if (q.opcode === OPCODE.UPDATE) {
      // Only a customer's key may update (a mirror's master key is for NOTIFY); unsigned: REFUSED (RFC 2136 3.3).
      if (!signer?.key) return unsigned([encodeResponse(q, emptyResult(RCODE.REFUSED), limit)]);
      const { nameservers, log } = this.parts;
      const rcode = await handleUpdate(this.services, q, raw, signer.key, { remoteAddress, nameservers, log });
      return unsigned([encodeResponse(q, emptyResult(rcode), limit)]);
    }
    if (q.opcode === OPCODE.NOTIFY || (q.opcode === OPCODE.QUERY && (q.qtype === META_TYPE.AXFR || q.qtype === META_TYPE.IXFR))) {
      // Our zones are IN zones: a transfer or NOTIFY of another class (CH, ANY) is NOTIMP, as knotd answers CH.
      if (q.qclass !== CLASS_IN) return unsigned([encodeResponse(q, emptyResult(RCODE.NOTIMP), limit)]);
      const req = this.transferRequest(raw, remoteAddress, transport, signer);
      if (!req) return unsigned([encodeResponse(q, emptyResult(RCODE.FORMERR), limit)]);
      return unsigned(q.opcode === OPCODE.NOTIFY ? [await handleNotify(req, this.parts.notifyTarget)] : await handleTransfer(req));
    }
    if (q.opcode !== OPCODE.QUERY) return unsigned([encodeResponse(q, emptyResult(RCODE.NOTIMP), limit)]);
    const pending = this.parts.zones.pendingFor(q.key);
    if (pending) await pending;
    const a = this.answer(q, raw, limit);
    return { outs: [a.response], cls: a.cls, verifiedClient: false };
  }

  /** A standard query's answer: from the response cache, else looked up, signed when asked for, and cached. */
  private answer(q: Query, raw: Buffer, limit: number): PlainAnswer {
    const { zones, responses } = this.parts;
    const now = this.services.now();
    let hit = responses.get(q, raw, limit, now);
    if (!hit) {
      const { result, zone } = answerQuery(zones, q, now);
      const signed = zone && q.edns?.dnssecOk ? zones.signed(zone) : undefined;
      // A signed answer is kept only until its signatures are due to be made anew.
      const staleAt = zone && signed ? secure(zone, signed, result, Math.floor(now / 1000)) * 1000 : Infinity;
      const response = this.encode(q, result, zone, limit);
      hit = { response, zone, staleAt, cls: answerClass(q, result, zone, response) };
      responses.put(q, limit, hit);
    }
    if (hit.zone) this.services.metrics.countQuery(hit.zone.id, hit.zone.name);
    return hit;
  }

  /** The encoded answer; SERVFAIL, logged, for one too large for any DNS message (cached like any other). */
  private encode(q: Query, result: Result, zone: Zone | null, limit: number): Buffer {
    try {
      return encodeResponse(q, result, limit);
    } catch (e) {
      if (!(e instanceof AnswerTooLarge)) throw e;
      this.parts.log.warn({ zone: zone?.name, name: q.key, qtype: q.qtype }, 'answer too large for one DNS message; SERVFAIL');
      return encodeResponse(q, emptyResult(RCODE.SERVFAIL), limit);
    }
  }

  /** transfer/ works on dns-packet's decoding (null when the message does not decode strictly). */
  private transferRequest(raw: Buffer, remoteAddress: string, transport: Transport, signer: Signer | null): TransferRequest | null {
    let query: dnsPacket.Packet;
    try {
      // Strict: dns-packet alone accepts records whose data length disagrees with what it read (A rdata).
      query = decodeStrict(raw);
    } catch {
      return null;
    }
    const { nameservers, signatures } = this.parts;
    return { services: this.services, query, raw, remoteAddress, transport, nameservers, key: signer?.key ?? null, keyName: signer?.secret.name ?? null, signatures };
  }
}

/** Answers to a message that was not signed, classed by their first message's rcode and opcode. */
function unsigned(outs: Buffer[]): Answers {
  const first = outs[0];
  return { outs, cls: first ? replyClass(first) : 0, verifiedClient: false };
}
