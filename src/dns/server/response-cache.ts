/**
 * Encoded answers, reused for repeated questions. A response is header + question + the rest; names in
 * the rest point into the question (compression is case-insensitive), so the rest depends only on the
 * lower-case name, type, class, size limit and EDNS, never on the query's letter case or id. A hit copies
 * the query's own question bytes (its case echoed exactly) between a fresh header and the cached rest.
 * Emptied on every zone change, so it never outlives the data it was built from. What is the client's own
 * (its cookie, NSID: answer-options.ts) is not cached: `get` appends it to the OPT record, whose place in the
 * rest is kept, and the answer is cached under a limit smaller by its size. Steered answers (dns/zone/steer.ts) and
 * answers to queries with an EDNS Client Subnet are made afresh each time: they are their client's alone.
 */
import { optRecordAt } from '../wire/edns-options.js';
import type { Query } from '../wire/query.js';
import type { AnswerExtras } from './answer-options.js';
import type { Zone } from '../zone/zone.js';

/** What an entry remembers of the zone that answered: the zone itself, or on a DNS worker thread its id and name. */
export interface AnsweringZone {
  /** A mirror's copy expires (epoch ms); null otherwise. */
  expiresAt: number | null;
}

/** An answer, made or from the cache, with the zone that gave it and until when it may be reused (epoch ms). */
export interface CachedAnswer<Z extends AnsweringZone> {
  response: Buffer;
  zone: Z | null;
  staleAt: number;
  /** How many octets were appended to the response for its client alone (cookie, NSID): see `sharedAnswer`. */
  optionsLength: number;
  /** The query carried a valid server cookie of ours (answer-options.ts): its source address is not forged. */
  validServerCookie: boolean;
  /** Its class for response rate limiting (rrl.ts answerClass). */
  cls: number;
}

interface Entry<Z extends AnsweringZone> {
  /** AA, TC and RCODE bits of the header. */
  flags: number;
  /** QDCOUNT..ARCOUNT as written. */
  counts: Buffer;
  rest: Buffer;
  /** Where the OPT record starts in `rest`; -1 without one. */
  optAt: number;
  /** The zone that answered (null for REFUSED and the like). */
  zone: Z | null;
  /** Epoch ms from which it is answered afresh (a signed answer whose signatures are due to be made anew). */
  staleAt: number;
  cls: number;
}

/** Entries kept at most; beyond it the cache starts over (random names must not grow it without bound). */
const MAX_ENTRIES = 100_000;
const QR = 0x8000;
/** Bits copied from the query: opcode, RD, CD. */
const FROM_QUERY = 0x7800 | 0x0100 | 0x0010;
const FROM_ANSWER = 0x0400 | 0x0200 | 0x000f;

export class ResponseCache<Z extends AnsweringZone = Zone> {
  private readonly entries = new Map<string, Entry<Z>>();

  private static key(q: Query, limit: number): string {
    return `${q.key}\u0000${q.qtype}\u0000${q.qclass}\u0000${limit}\u0000${q.edns ? (q.edns.dnssecOk ? 2 : 1) : 0}`;
  }

  clear(): void {
    this.entries.clear();
  }

  /**
   * The answer to `q` built from the cache and the zone that gave it, or null. `raw` is the query message;
   * `extras`' options are appended to its OPT record (the answer was cached under `limit`, their size left free).
   */
  get(q: Query, raw: Buffer, limit: number, now: number, extras: AnswerExtras | null = null): CachedAnswer<Z> | null {
    if (q.questionEnd === 0 || q.edns?.ecs) return null;
    const e = this.entries.get(ResponseCache.key(q, limit));
    // A mirror's copy past its expiry is answered afresh (REFUSED).
    if (!e || now >= e.staleAt || (e.zone?.expiresAt != null && now >= e.zone.expiresAt)) return null;
    const extra = extras && e.optAt >= 0 ? extras.options : null;
    const out = Buffer.allocUnsafe(q.questionEnd + e.rest.length + (extra ? extra.length : 0));
    out.writeUInt16BE(q.id, 0);
    out.writeUInt16BE(QR | (q.flags & FROM_QUERY) | e.flags, 2);
    e.counts.copy(out, 4);
    // The question octet by octet: Buffer#copy of a part makes a view of it first, which costs more than these few dozen.
    for (let i = 12; i < q.questionEnd; i++) out[i] = raw[i] as number;
    e.rest.copy(out, q.questionEnd);
    if (extra) {
      extra.copy(out, q.questionEnd + e.rest.length);
      const rdlength = q.questionEnd + e.optAt + 9;
      out.writeUInt16BE(out.readUInt16BE(rdlength) + extra.length, rdlength);
    }
    return { response: out, zone: e.zone, staleAt: e.staleAt, optionsLength: extra ? extra.length : 0, validServerCookie: extras ? extras.validServerCookie : false, cls: e.cls };
  }

  /** Keeps the rest of a response just built for `q` (without what it carries for its client alone). */
  put(q: Query, response: Buffer, limit: number, { zone, staleAt, cls }: Pick<CachedAnswer<Z>, 'zone' | 'staleAt' | 'cls'>): void {
    // Not kept: an answer for one client alone (steered: staleAt 0), or to a query with a client subnet (its ECS option is the client's).
    if (q.questionEnd === 0 || response.length < q.questionEnd || staleAt === 0 || q.edns?.ecs) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(ResponseCache.key(q, limit), {
      flags: response.readUInt16BE(2) & FROM_ANSWER,
      counts: Buffer.from(response.subarray(4, 12)),
      rest: Buffer.from(response.subarray(q.questionEnd)),
      optAt: q.edns ? optRecordAt(response) - q.questionEnd : -1,
      zone,
      staleAt,
      cls,
    });
  }
}
