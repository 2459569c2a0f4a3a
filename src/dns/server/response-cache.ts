/**
 * Encoded answers, reused for repeated questions. A response is header + question + the rest; names in
 * the rest point into the question (compression is case-insensitive), so the rest depends only on the
 * lower-case name, type, class, size limit and EDNS, never on the query's letter case or id. A hit copies
 * the query's own question bytes (its case echoed exactly) between a fresh header and the cached rest.
 * Emptied on every zone change (a health check's status change is one), so it never outlives the data it
 * was built from. What is the client's own (its ECS option, cookie, NSID: steering-client.ts ownOptions) is
 * not cached: `get` appends it to the OPT record, whose place in the rest is kept, and the answer is cached
 * under a limit smaller by its size.
 *
 * Steered answers (dns/zone/steer.ts) are one variant each, kept as such: the question's slot is a fork on the
 * first steered set the lookup met, holding per variant chosen of it the answer made with it (or the fork on
 * the next steered set met). A hit makes the choice for its own client at each fork, as a lookup would (health,
 * subnet, a weighted pick at random each time), and serves the answer kept for that variant, or misses; so no
 * client is given a variant chosen for another, and a variant's encoding (and signatures) are made once.
 */
import { MAX_NAME_WIRE } from '../../model/labels.js';
import type { SteeringChoice } from '../../model/steering.js';
import { optRecordAt } from '../wire/edns-options.js';
import { putU16 } from '../wire/message.js';
import type { Query } from '../wire/query.js';
import type { Chosen } from '../zone/result.js';
import { eligible, pickedKey, variantKey, type Draws, type Eligible, type SteeringClient } from '../zone/steer.js';
import type { Zone } from '../zone/zone.js';
import type { AnswerExtras } from './answer-options.js';
import { ownOptions, steeringClient, type ClientAddress } from './steering-client.js';
import { senderAddressStart } from './udp-socket.js';

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
  /** How many octets were appended to the response for its client alone (ECS option, cookie, NSID): see `sharedAnswer`. */
  optionsLength: number;
  /** The query carried a valid server cookie of ours (answer-options.ts): its source address is not forged. */
  validServerCookie: boolean;
  /** Its class for response rate limiting (rrl.ts answerClass). */
  cls: number;
  /** The variant it is, when the lookup met steered sets: what `put` keeps it under. */
  choices: Chosen[] | null;
}

/** Where a steered answer's variants part: the set's steering, and per variant of it what follows. */
interface Fork<Z extends AnsweringZone> {
  steering: SteeringChoice;
  variants: Map<string, Slot<Z>>;
  /** The last client's network (a copy) and what steps 1 and 2 left for it: a resolver asks again and again. */
  last: { client: SteeringClient; eligible: Eligible; key: string } | null;
}

type Slot<Z extends AnsweringZone> = Entry<Z> | Fork<Z>;

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
  /** The choices that led to it, when steered (what a DNS worker thread is told: thread-messages.ts). */
  choices: Chosen[] | null;
}

/** Entries kept at most; beyond it the cache starts over (random names must not grow it without bound). */
const MAX_ENTRIES = 100_000;
const QR = 0x8000;
/** Bits copied from the query: opcode, RD, CD. */
const FROM_QUERY = 0x7800 | 0x0100 | 0x0010;
const FROM_ANSWER = 0x0400 | 0x0200 | 0x000f;

export class ResponseCache<Z extends AnsweringZone = Zone> {
  private readonly entries = new Map<string, Slot<Z>>();

  clear(): void {
    this.entries.clear();
  }

  /**
   * The answer to `q` built from the cache and the zone that gave it, or null. `raw` is the query message;
   * the client's own options (its ECS option, `extras`' cookie and NSID) are appended to its OPT record (the
   * answer was cached under `limit`, their size left free). `address` is the client's, for steered answers,
   * whose weighted picks take `draws`' numbers (a miss hands them to the lookup: steer.ts Draws).
   */
  get(q: Query, raw: Buffer, limit: number, now: number, extras: AnswerExtras | null = null, address: ClientAddress = null, draws: Draws | null = null): CachedAnswer<Z> | null {
    if (q.questionEnd === 0) return null;
    let slot = this.entries.get(questionKey(raw, q.questionEnd, limit, q.edns));
    let scope = 0;
    let client: SteeringClient | null | undefined;
    while (slot && 'variants' in slot) {
      let memo: { eligible: Eligible; key: string } | null = lastClientIs(slot, q, address);
      if (!memo) {
        if (client === undefined) client = steeringClient(q, address);
        memo = forClient(slot, client);
      }
      const { eligible: left, key } = memo;
      if (left.scope > scope) scope = left.scope;
      slot = slot.variants.get(left.weighted ? pickedKey(slot.steering, left, draws) : key);
    }
    const e = slot;
    // A mirror's copy past its expiry is answered afresh (REFUSED).
    if (!e || now >= e.staleAt || (e.zone?.expiresAt != null && now >= e.zone.expiresAt)) return null;
    const extra = e.optAt >= 0 ? ownOptions(q, e.zone !== null, scope, extras) : null;
    const out = Buffer.allocUnsafe(q.questionEnd + e.rest.length + (extra ? extra.length : 0));
    putU16(out, q.id, 0);
    putU16(out, QR | (q.flags & FROM_QUERY) | e.flags, 2);
    // TypedArray#set: Buffer#copy makes a view of its source first, which costs more than the copy of an answer.
    out.set(e.counts, 4);
    // The question octet by octet: Buffer#copy of a part makes a view of it first, which costs more than these few dozen.
    for (let i = 12; i < q.questionEnd; i++) out[i] = raw[i] as number;
    out.set(e.rest, q.questionEnd);
    if (extra) {
      out.set(extra, q.questionEnd + e.rest.length);
      const rdlength = q.questionEnd + e.optAt + 9;
      out.writeUInt16BE(out.readUInt16BE(rdlength) + extra.length, rdlength);
    }
    return { response: out, zone: e.zone, staleAt: e.staleAt, optionsLength: extra ? extra.length : 0, validServerCookie: extras ? extras.validServerCookie : false, cls: e.cls, choices: e.choices };
  }

  /**
   * Keeps the rest of a response just built for `q` (without what it carries for its client alone), as the
   * variant `choices` says when its lookup met steered sets.
   */
  put(q: Query, response: Buffer, limit: number, { zone, staleAt, cls, choices }: Pick<CachedAnswer<Z>, 'zone' | 'staleAt' | 'cls' | 'choices'>): void {
    if (q.questionEnd === 0 || response.length < q.questionEnd) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const entry: Entry<Z> = {
      flags: response.readUInt16BE(2) & FROM_ANSWER,
      counts: Buffer.from(response.subarray(4, 12)),
      rest: Buffer.from(response.subarray(q.questionEnd)),
      optAt: q.edns ? optRecordAt(response) - q.questionEnd : -1,
      zone,
      staleAt,
      cls,
      choices,
    };
    // Each choice made forks the slot it stands in (the question's, then the previous choice's variant).
    let slots: Map<string, Slot<Z>> = this.entries;
    let at = questionKey(response, q.questionEnd, limit, q.edns);
    for (const c of choices ?? []) {
      const slot = slots.get(at);
      const fork = slot && 'variants' in slot ? slot : { steering: c.steering, variants: new Map<string, Slot<Z>>(), last: null };
      slots.set(at, fork);
      slots = fork.variants;
      at = c.key;
    }
    slots.set(at, entry);
  }
}

/**
 * What Buffer#toString('latin1') calls once it has checked its arguments, which cost as much as the string itself
 * here (in Node.js's Buffer since its first versions, not in its types).
 */
const latin1 = (Buffer.prototype as unknown as { latin1Slice(this: Buffer, start: number, end: number): string }).latin1Slice;

/** Where questionKey writes a key: a question (a name of 255 octets at most, type and class) and three octets after it. */
const keyScratch = Buffer.alloc(MAX_NAME_WIRE + 7);

/**
 * The slot of a question: as written from octet 12 up to `end` of `message` (the query, or the response, which
 * repeats it) — its name's wire form with ASCII letters lower-cased (compression is case-insensitive, so the rest
 * of the answer is too), type and class — then size limit and EDNS (none, without DO, with DO), as one flat
 * string made in one step (a key joined from parts costs a string per part and a flattening before its hash).
 */
function questionKey(message: Uint8Array, end: number, limit: number, edns: Query['edns']): string {
  const n = end - 12;
  for (let i = 0; i < n; i++) {
    const c = message[12 + i] as number;
    keyScratch[i] = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
  }
  putU16(keyScratch, limit, n);
  keyScratch[n + 2] = edns ? (edns.dnssecOk ? 2 : 1) : 0;
  return latin1.call(keyScratch, 0, n + 3);
}

/** Steps 1 and 2 of the fork's choice for `client`: remembered for the last client, worked out for another. */
function forClient<Z extends AnsweringZone>(fork: Fork<Z>, client: SteeringClient | null): { eligible: Eligible; key: string } {
  const last = fork.last;
  if (last && client && sameNetwork(last.client, client)) return last;
  const e = eligible(fork.steering, client);
  const memo = { eligible: e, key: e.weighted ? '' : variantKey(e.items) };
  // Without a client (no address) there is nothing to compare the next one with.
  if (client) fork.last = { client: { bytes: Uint8Array.from(client.bytes), prefix: client.prefix }, ...memo };
  return memo;
}

const sameNetwork = (a: SteeringClient, b: SteeringClient): boolean => sameBytes(a, b.bytes, 0, b.bytes.length, b.prefix);

/** Whether `a` is the network of `length` octets at `bytes[from]` with `prefix`. */
function sameBytes(a: SteeringClient, bytes: Uint8Array, from: number, length: number, prefix: number): boolean {
  if (a.prefix !== prefix || a.bytes.length !== length) return false;
  for (let i = 0; i < length; i++) if (a.bytes[i] !== bytes[from + i]) return false;
  return true;
}

/**
 * The fork's memo when the query's client is the network it was made for (steeringClient's, compared in place:
 * the usual hit makes no object), else null.
 */
function lastClientIs<Z extends AnsweringZone>(fork: Fork<Z>, q: Query, address: ClientAddress): Fork<Z>['last'] {
  const last = fork.last;
  if (!last) return null;
  const ecs = q.edns?.ecs;
  if (ecs) return sameBytes(last.client, ecs.bytes, 0, ecs.bytes.length, ecs.sourcePrefix) ? last : null;
  if (address === null || typeof address === 'string') return null;
  const start = senderAddressStart(address);
  const length = address.at + 16 - start;
  return sameBytes(last.client, address.bytes, start, length, length * 8) ? last : null;
}
