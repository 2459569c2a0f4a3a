/**
 * One DNS message in, its answers out, whichever way it came (UDP, TCP, a worker thread): a signed message's
 * TSIG is checked first and its answers signed last; UPDATE, NOTIFY and AXFR/IXFR are handed on, standard
 * queries answered from the zones in memory through the response cache. What an answer carries for its client
 * alone (its ECS option: steering-client.ts; a cookie, NSID: answer-options.ts) is appended to it last, before
 * TSIG. Any failure is logged and answered SERVFAIL, so no message can take the process down.
 */
import type * as dnsPacket from 'dns-packet';
import type { Logger } from 'pino';
import { SecondFactorSetupError, SuspendedError } from '../../model/errors.js';
import type { Services } from '../../services/index.js';
import { secure } from '../dnssec/secure.js';
import { SigningError, type SignatureCache } from '../dnssec/sign.js';
import type { AliasCache } from '../alias/cache.js';
import { handleNotify, handleTransfer, type NotifyTarget, type TransferRequest } from '../transfer/index.js';
import { decodeStrict } from '../transfer/wire.js';
import { EDE, optRecordAt, withEdnsOptions } from '../wire/edns-options.js';
import { padResponse } from '../wire/padding.js';
import { CLASS_IN, EDNS_UDP_SIZE, OPCODE, RCODE, TCP_MAX, META_TYPE } from '../wire/message.js';
import { parseQuery, plainQuery, type Malformed, type Query } from '../wire/query.js';
import { tsigSize } from '../wire/tsig.js';
import { ResponseWriter } from '../wire/writer.js';
import { emptyResult, errorResult, type Result } from '../zone/result.js';
import { Draws } from '../zone/steer.js';
import type { Zone } from '../zone/zone.js';
import { answerQuery } from './answer.js';
import { ownOptions, type ClientAddress } from './steering-client.js';
import { detached, type AnswerExtras, type AnswerOptions } from './answer-options.js';
import { AnswerTooLarge, answerLimit, encodeResponse } from './response.js';
import { arrivedAt, type UdpSender } from './udp-socket.js';
import type { CachedAnswer, ResponseCache } from './response-cache.js';
import { answerClass, replyClass } from './rrl.js';
import { checkTsig, type Signer } from './tsig-check.js';
import { handleUpdate } from './update.js';
import type { ZoneCache } from './zone-cache.js';

export type Transport = 'udp' | 'tcp';

/** The answer to a plain query, with the zone that gave it, until when it may be reused and what it carries for its client alone. */
export type PlainAnswer = CachedAnswer<Zone>;

/** The answers to a message, with what response rate limiting (rrl.ts) needs to know of them. */
export interface Answers {
  outs: Buffer[];
  /** Their class (answerClass, replyClass). */
  cls: number;
  /** The message's source is real, so its answers are never limited: its TSIG verified, or it brought a valid server cookie. */
  verifiedClient: boolean;
}

/** The opcodes served; any other is NOTIMP, whatever the message holds (RFC 1035 4.1.1). */
const SERVED_OPCODES: ReadonlySet<number> = new Set(Object.values(OPCODE));
const PROHIBITED = { code: EDE.PROHIBITED, text: 'UPDATE needs a TSIG key allowed to change the zone' };
const NOT_SIGNED = { code: EDE.RRSIGS_MISSING, text: 'the zone could not be signed' };

export interface HandlerParts {
  zones: ZoneCache;
  responses: ResponseCache;
  signatures: SignatureCache;
  /** The options answers carry for their client alone: our cookies, NSID. */
  options: AnswerOptions;
  /** The configured name servers (UPDATE and transfers need them). */
  nameservers: string[];
  log: Logger;
  /** Where NOTIFY accepted for a zone mirror goes; without it, it is acknowledged only. */
  notifyTarget: NotifyTarget | undefined;
  /** ALIAS targets' addresses, for answers and transfers; without it ALIAS records answer nothing. */
  aliases?: AliasCache;
}

/** An answer that cannot be made before this settles (an ALIAS target's first resolution). */
interface Waiting {
  wait: Promise<unknown>;
}

export class DnsHandler {
  /** The random numbers of the answer being made (answer() uses them synchronously, one query at a time). */
  private readonly draws = new Draws();

  constructor(
    private readonly services: Services,
    private readonly parts: HandlerParts,
  ) {}

  /**
   * The response messages to one received message (none for messages not worth an answer); `padded`: each
   * with EDNS padded (RFC 8467: over TLS and HTTPS), a signed one before it is signed.
   */
  async handle(raw: Buffer, remoteAddress: string, transport: Transport, padded = false): Promise<Buffer[]> {
    return (await this.answers(raw, remoteAddress, transport, padded)).outs;
  }

  /** handle() with what response rate limiting needs to know of the answers. */
  async answers(raw: Buffer, remoteAddress: string, transport: Transport, padded = false): Promise<Answers> {
    let q: Query | Malformed | null = null;
    try {
      q = parseQuery(raw);
      if (!q) return classed([]);
      // An opcode we do not serve is NOTIMP even when the rest cannot be read (ISC's compliance tests send a header alone).
      if ('malformed' in q) return classed(pad([SERVED_OPCODES.has(q.opcode) ? this.malformed(q, raw, remoteAddress) : notImplemented(q)], padded));
      // Kept across the waits below, while other queries are answered: its own copy.
      const extras = detached(this.parts.options.forQuery(q, raw, remoteAddress, this.services.now));
      this.parts.options.counted(extras);
      let limit = answerLimit(q, transport, extras ? extras.options.length : 0);
      let signer: Signer | null = null;
      if (q.tsig) {
        const checked = await checkTsig(this.services, q, q.tsig, raw, limit);
        // A refusal answers a signature that did not verify: its source may be forged.
        if ('refusal' in checked) return classed([checked.refusal]);
        signer = checked;
        // The answer leaves room for its own TSIG record.
        limit -= tsigSize(signer.secret);
      }
      const { outs: out, cls } = await this.respond(q, raw, remoteAddress, transport, limit, signer);
      // One message answers all but transfers, whose client is on TCP, where cookies are optional (RFC 7873 5.2.3).
      if (extras && out.length === 1) out[0] = appendOptions(out[0] as Buffer, extras.options);
      // Padded before signing: the padding is in the OPT record, which the MAC covers (RFC 7830 4).
      const ready = pad(out, padded, signer ? tsigSize(signer.secret) : 0);
      return { outs: signer ? signer.sign(ready) : ready, cls, verifiedClient: signer !== null || extras?.validServerCookie === true };
    } catch (e) {
      this.parts.log.warn({ err: (e as Error).message, remoteAddress, transport }, 'DNS message could not be answered');
      if (!q) return classed([]);
      try {
        return classed(pad([encodeResponse(q, e instanceof SigningError ? errorResult(RCODE.SERVFAIL, NOT_SIGNED) : emptyResult(RCODE.SERVFAIL), TCP_MAX)], padded));
      } catch {
        return classed([]);
      }
    }
  }

  /**
   * Answers a plain query at once, with nothing to wait for (the hot path); null for anything else, and for a
   * query that fails here: handle() answers it again, logging why and sending SERVFAIL. `address` is the
   * client's (over UDP its sender's bytes), read only when the query has a cookie or meets steering; `draws`,
   * the random numbers a DNS worker thread's weighted picks took for it (steer.ts Draws).
   */
  quickAnswer(raw: Buffer, transport: Transport, address: string | UdpSender, draws: readonly number[] | null = null): PlainAnswer | null {
    try {
      const q = plainQuery(parseQuery(raw));
      if (!q || this.parts.zones.pendingFor(q)) return null;
      const extras = this.parts.options.forQuery(q, raw, address, this.services.now);
      // Over UDP the clock read once for the batch the query came in (a reading costs as much as a cached answer's lookup).
      const now = arrivedAt(address, this.services.now);
      const a = this.answer(q, raw, answerLimit(q, transport, extras ? extras.options.length : 0), extras, address, this.draws.reset(draws), now);
      if ('wait' in a) return null;
      this.parts.options.counted(extras);
      return a;
    } catch {
      return null;
    }
  }

  /**
   * A message that could not be read past its header: FORMERR, save a query for a server cookie alone (no
   * question, a COOKIE option: RFC 7873 5.4), answered NOERROR with our cookie.
   */
  private malformed(q: Malformed, raw: Buffer, remoteAddress: string): Buffer {
    const edns = q.edns;
    if (q.badCookie) this.parts.options.countMalformed();
    if (!q.noQuestion || q.opcode !== OPCODE.QUERY || !edns || edns.cookieAt === 0 || edns.version !== 0) return encodeResponse(q, emptyResult(RCODE.FORMERR), TCP_MAX);
    const probe: Query = { id: q.id, flags: q.flags, opcode: q.opcode, labels: [], key: '', qtype: 0, qclass: 0, edns, tsig: null, questionEnd: 0 };
    const extras = this.parts.options.forQuery(probe, raw, remoteAddress, this.services.now);
    this.parts.options.counted(extras);
    const response = encodeResponse(q, emptyResult(RCODE.NOERROR), TCP_MAX);
    return extras ? appendOptions(response, extras.options) : response;
  }

  /** The answers to a message whose TSIG, if any, verified: by opcode (and AXFR/IXFR by type). */
  private async respond(q: Query, raw: Buffer, remoteAddress: string, transport: Transport, limit: number, signer: Signer | null): Promise<Answers> {
    if (q.edns && q.edns.version !== 0) return classed([encodeResponse(q, emptyResult(RCODE.BADVERS), limit)]);
    if (signer?.key) {
      // A key of a suspended account, or of a member held by require_2fa, verified but may not act (the services
      // decide): REFUSED with the reason, signed like any answer to it.
      try {
        this.services.tsigKeys.checkActive(signer.key);
      } catch (e) {
        if (!(e instanceof SuspendedError || e instanceof SecondFactorSetupError)) throw e;
        this.parts.log.info({ key: signer.key.name, remoteAddress, why: e.message }, 'DNS message signed with a key that may not act refused');
        return classed([encodeResponse(q, errorResult(RCODE.REFUSED, { code: EDE.PROHIBITED, text: e.message }), limit)]);
      }
    }
    if (q.opcode === OPCODE.UPDATE) {
      // Only a customer's key may update (a mirror's master key is for NOTIFY); unsigned: REFUSED (RFC 2136 3.3).
      if (!signer?.key) return classed([encodeResponse(q, errorResult(RCODE.REFUSED, PROHIBITED), limit)]);
      const { nameservers, log } = this.parts;
      return classed([encodeResponse(q, await handleUpdate(this.services, q, raw, signer.key, { remoteAddress, nameservers, log }), limit)]);
    }
    if (q.opcode === OPCODE.NOTIFY || (q.opcode === OPCODE.QUERY && (q.qtype === META_TYPE.AXFR || q.qtype === META_TYPE.IXFR))) {
      // Our zones are IN zones: a transfer or NOTIFY of another class (CH, ANY) is NOTIMP, as knotd answers CH.
      if (q.qclass !== CLASS_IN) return classed([encodeResponse(q, emptyResult(RCODE.NOTIMP), limit)]);
      const req = this.transferRequest(raw, remoteAddress, transport, signer);
      if (!req) return classed([encodeResponse(q, emptyResult(RCODE.FORMERR), limit)]);
      return classed(q.opcode === OPCODE.NOTIFY ? [await handleNotify(req, this.parts.notifyTarget)] : await handleTransfer(req));
    }
    if (q.opcode !== OPCODE.QUERY) return classed([notImplemented(q)]);
    const pending = this.parts.zones.pendingFor(q);
    if (pending) await pending;
    let a = this.answer(q, raw, limit, null, remoteAddress, this.draws.reset(), this.services.now());
    // A first resolution settles once (resolved or failed): the answer made after it no longer waits.
    for (let i = 0; 'wait' in a && i < 2; i++) {
      await a.wait;
      a = this.answer(q, raw, limit, null, remoteAddress, this.draws.reset(), this.services.now());
    }
    if ('wait' in a) throw new Error('an ALIAS target is still being resolved');
    return { outs: [a.response], cls: a.cls, verifiedClient: false };
  }

  /**
   * A standard query's answer: from the response cache, else looked up, signed when asked for, and cached;
   * what it carries for its client alone (ECS option, `extras`: made room for in `limit`) appended. A steered
   * answer's lookup picks as the cache did (`draws` rewound), so the variants it had not kept are served as
   * often as their weights say.
   */
  private answer(q: Query, raw: Buffer, limit: number, extras: AnswerExtras | null, address: ClientAddress, draws: Draws, now: number): PlainAnswer | Waiting {
    const { zones, responses } = this.parts;
    let answer = responses.get(q, raw, limit, now, extras, address, draws);
    if (!answer) {
      const { result, zone } = answerQuery(zones, q, now, this.parts.aliases, address, draws.rewind());
      if (result.wait) return { wait: result.wait };
      const signed = zone && q.edns?.dnssecOk ? zones.signed(zone) : undefined;
      // A signed answer is kept only until its signatures are due to be made anew, one with an ALIAS's addresses
      // until they run out; a steered one as the variant it is (response-cache.ts).
      const signedUntil = zone && signed ? secure(zone, signed, result, Math.floor(now / 1000)) * 1000 : Infinity;
      const staleAt = Math.min(signedUntil, result.until ?? Infinity);
      const shared = this.encode(q, result, zone, limit);
      const cls = answerClass(q, result, zone, shared);
      const choices = result.steered?.choices ?? null;
      responses.put(q, shared, limit, { zone, staleAt, cls, choices });
      const own = ownOptions(q, zone !== null, result.steered?.scope ?? 0, extras);
      const response = own ? appendOptions(shared, own) : shared;
      answer = { response, zone, staleAt, optionsLength: response === shared ? 0 : (own as Buffer).length, validServerCookie: extras ? extras.validServerCookie : false, cls, choices };
    }
    if (answer.zone) this.services.metrics.countQuery(answer.zone.id, answer.zone.name, 1, now);
    return answer;
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
    const { nameservers, signatures, aliases } = this.parts;
    return { services: this.services, query, raw, remoteAddress, transport, nameservers, key: signer?.key ?? null, keyName: signer?.secret.name ?? null, signatures, aliases: aliases ?? null };
  }
}

/**
 * `response` with the client's own options appended to its OPT record; as it was without OPT, or when they would
 * take it past the largest message (a zone transfer's, which made no room for them).
 */
function appendOptions(response: Buffer, options: Buffer): Buffer {
  if (response.length + options.length > TCP_MAX) return response;
  const at = optRecordAt(response);
  return at < 0 ? response : withEdnsOptions(response, at, options);
}

/**
 * `outs` padded when `padded` (each leaving room for a TSIG record of `tsig` octets, added after); a refusal of a
 * TSIG that did not verify is not, as it ends with its TSIG record already.
 */
const pad = (outs: Buffer[], padded: boolean, tsig = 0): Buffer[] => (padded ? outs.map((m) => padResponse(m, tsig)) : outs);

/** The answer without what it carries for its client alone (ECS option, cookie, NSID): what another cache may keep. */
export function sharedAnswer({ response, optionsLength }: PlainAnswer): Buffer {
  if (optionsLength === 0) return response;
  const at = optRecordAt(response);
  const out = Buffer.from(response.subarray(0, response.length - optionsLength));
  out.writeUInt16BE(out.readUInt16BE(at + 9) - optionsLength, at + 9);
  return out;
}

/**
 * NOTIMP for an opcode we do not serve: the header alone (RFC 1035 4.1.1; ISC's EDNS compliance tests expect no
 * question, and no RD or CD, which only QUERY defines), with OPT when the query had one.
 */
function notImplemented(q: Query | Malformed): Buffer {
  const w = new ResponseWriter();
  if (q.edns) w.opt(EDNS_UDP_SIZE, RCODE.NOTIMP, q.edns.dnssecOk);
  return w.finish(q.id, q.flags & 0x7800, RCODE.NOTIMP, false, false);
}

/** Answers to a message, classed by their first message's rcode and opcode; their client not verified. */
function classed(outs: Buffer[]): Answers {
  const first = outs[0];
  return { outs, cls: first ? replyClass(first) : 0, verifiedClient: false };
}
