/**
 * Steered answers (issue 32, docs/dns.md "Steering"): of an RRset whose records carry steering, the records
 * one client is served, chosen at answer time in three steps —
 * 1. health: records whose check is down leave, unless all are down (fail open, as Route 53 does);
 * 2. subnets: the client is the query's EDNS Client Subnet (RFC 7871), else its source address; the records
 *    whose subnet matches it most specifically stay, else the records without subnets (for every client no
 *    subnet matched), else none (NODATA);
 * 3. weight: when a record left carries a weight (or several CNAME/ALIAS records are left), one of them, at
 *    random in proportion to its weight (a record without one counts as 1; weight 0 only when all are 0).
 * Each variant of a set is one object, made once, so a signed zone's signatures of it are made once too. An
 * ECS answer says for how much of the client's network the choice holds (the scope, RFC 7871 7.2.1). The
 * answer notes each choice it made, so the response cache can keep one answer per variant and make the same
 * cheap choice for each client it serves (dns/server/response-cache.ts).
 */
import type { ServedSteering, SteeringChoice, Subnet } from '../../model/steering.js';
import { DEFAULT_WEIGHT } from '../../model/steering-transfer.js';
import type { Result } from './result.js';
import type { RRset } from './zone.js';

/** Whom an answer is for: the network its choice is made by (ECS's, or the source address as a /32 or /128). */
export interface SteeringClient {
  bytes: Uint8Array;
  prefix: number;
}

/**
 * The steering of one answer: `pick` gives the variant of each set the answer takes (undefined: NODATA), and
 * notes on the result each choice made (for the response cache) and the ECS scope. The client is worked out
 * the first time a steered set needs it; weighted picks take their random numbers from `draws` when given.
 */
export function steerer(r: Result, client: () => SteeringClient | null, draws: Draws | null = null): (set: RRset | undefined) => RRset | undefined {
  let known: SteeringClient | null | undefined;
  return (set) => {
    if (!set?.steering) return set;
    if (known === undefined) known = client();
    const steered = (r.steered ??= { scope: 0, choices: [] });
    const { items, scope } = choose(set.steering, known, draws);
    if (scope > steered.scope) steered.scope = scope;
    const key = variantKey(items);
    steered.choices.push({ steering: set.steering, key });
    return items.length === 0 ? undefined : variant(set, items, key);
  };
}

/** The indexes of the items served to `client`, and the scope the choice holds for (a weighted pick is random each time). */
function choose(steering: SteeringChoice, client: SteeringClient | null, draws: Draws | null = null): { items: number[]; scope: number } {
  const e = eligible(steering, client);
  return { items: e.weighted ? [byWeight(e.items, steering.items, draws)] : e.items, scope: e.scope };
}

/** What steps 1 and 2 leave for one client (the same each time it asks): the items, the scope, whether step 3 picks one. */
export interface Eligible {
  items: number[];
  scope: number;
  weighted: boolean;
}

/** Steps 1 and 2 for `client` (plain loops: a cached steered answer runs them for each new client, response-cache.ts). */
export function eligible(steering: SteeringChoice, client: SteeringClient | null): Eligible {
  const served = steering.items;
  const candidates: number[] = [];
  for (let i = 0; i < served.length; i++) if (!(served[i] as ServedSteering).down) candidates.push(i);
  if (candidates.length === 0) for (let i = 0; i < served.length; i++) candidates.push(i);
  const { items, scope } = bySubnet(candidates, served, client);
  let weighted = items.length > 1 && steering.one;
  for (let k = 0; !weighted && items.length > 1 && k < items.length; k++) weighted = (served[items[k] as number] as ServedSteering).weight !== null;
  return { items, scope, weighted };
}

/** The key of the variant served of what `eligible` left: step 3 (at random each time) when it picks one. */
export const pickedKey = (steering: SteeringChoice, e: Eligible, draws: Draws | null): string => (e.weighted ? String(byWeight(e.items, steering.items, draws)) : variantKey(e.items));

/**
 * The random numbers of one answer's weighted picks (step 3), in the order taken. The response cache (or a DNS
 * worker thread's) that picked a variant it has not kept yet hands its numbers to the lookup that answers
 * instead, which so picks the same: were the pick made anew, variants not kept yet would be served less
 * often than their weights say until they are.
 */
export class Draws {
  private readonly taken: number[] = [];
  private at = 0;

  /** For a new answer: `given` (another thread's numbers for it) first, then fresh ones. */
  reset(given: readonly number[] | null = null): this {
    // Setting an array's length goes through V8's runtime even when it is 0 already (most answers draw nothing).
    if (this.taken.length !== 0) this.taken.length = 0;
    if (given) this.taken.push(...given);
    this.at = 0;
    return this;
  }

  /** The same picks again: the numbers taken so far are taken anew, in order. */
  rewind(): this {
    this.at = 0;
    return this;
  }

  next(): number {
    if (this.at === this.taken.length) this.taken.push(Math.random());
    return this.taken[this.at++] as number;
  }

  /** The numbers taken so far (valid until the next reset). */
  get all(): readonly number[] {
    return this.taken;
  }
}

/** A variant's name among a set's variants: the indexes of its items (one item's is V8's cached string of the number). */
export const variantKey = (items: readonly number[]): string => (items.length === 1 ? String(items[0]) : items.join(','));

/** Step 2: the candidates whose subnet matches the client most specifically, else those without subnets. */
function bySubnet(candidates: number[], steering: readonly ServedSteering[], client: SteeringClient | null): { items: number[]; scope: number } {
  let best = -1;
  let matched: number[] = [];
  let any = false;
  for (const i of candidates) {
    const subnets = (steering[i] as ServedSteering).subnets;
    if (!subnets) continue;
    any = true;
    for (const net of subnets) {
      const m = client ? matchLength(client, net) : -1;
      if (m > best) {
        best = m;
        matched = [i];
      } else if (m === best && m >= 0 && matched.at(-1) !== i) matched.push(i);
    }
  }
  if (!any) return { items: candidates, scope: 0 };
  const items = best >= 0 ? matched : candidates.filter((i) => !(steering[i] as ServedSteering).subnets);
  return { items, scope: client ? scopeOf(client, candidates, steering, best) : 0 };
}

/** The prefix length of `net` when it holds the client's network (-1 when not, or when the client's prefix is too short to say). */
function matchLength(client: SteeringClient, net: Subnet): number {
  if (net.bytes.length !== client.bytes.length || net.prefix > client.prefix) return -1;
  return commonBits(client.bytes, net.bytes, net.prefix) >= net.prefix ? net.prefix : -1;
}

/** How many leading bits `a` and `b` share, counting up to `max`. */
function commonBits(a: Uint8Array, b: Uint8Array, max: number): number {
  let bit = 0;
  for (let i = 0; bit < max && i < a.length; i++) {
    const x = (a[i] as number) ^ (b[i] as number);
    if (x === 0) {
      bit += 8;
      continue;
    }
    return Math.min(max, bit + Math.clz32(x) - 24);
  }
  return Math.min(bit, max);
}

/**
 * The shortest prefix of the client's network for which the choice is the same for every client in it: as
 * long as the matched subnet, and long enough to leave every other subnet of the same family (one bit past
 * what the client shares with it), within the client's own prefix.
 */
function scopeOf(client: SteeringClient, candidates: number[], steering: readonly ServedSteering[], matched: number): number {
  let scope = Math.max(matched, 0);
  for (const i of candidates) {
    for (const net of (steering[i] as ServedSteering).subnets ?? []) {
      if (net.bytes.length !== client.bytes.length || matchLength(client, net) >= 0) continue;
      scope = Math.max(scope, Math.min(net.prefix, commonBits(client.bytes, net.bytes, net.prefix) + 1));
    }
  }
  return Math.min(scope, client.prefix);
}

/** Step 3: one of the items, at random in proportion to its weight (equally when every weight is 0). */
function byWeight(items: number[], steering: readonly ServedSteering[], draws: Draws | null): number {
  const random = draws ? draws.next() : Math.random();
  let total = 0;
  for (let k = 0; k < items.length; k++) total += weightOf(steering, items[k] as number);
  if (total === 0) return items[Math.floor(random * items.length)] as number;
  let r = random * total;
  for (let k = 0; k < items.length; k++) {
    r -= weightOf(steering, items[k] as number);
    if (r < 0) return items[k] as number;
  }
  return items.at(-1) as number;
}

const weightOf = (steering: readonly ServedSteering[], i: number): number => (steering[i] as ServedSteering).weight ?? DEFAULT_WEIGHT;

/** The set holding only `items` (named `key`; the set itself when that is all of them), one object per choice. */
function variant(set: RRset, items: number[], key: string): RRset {
  if (items.length === set.items.length) return set;
  const steering = set.steering as NonNullable<RRset['steering']>;
  let v = steering.variants.get(key);
  if (!v) {
    const additional = set.additional;
    v = { type: set.type, ttl: set.ttl, owner: set.owner, items: items.map((i) => set.items[i]) as RRset['items'], additional: additional ? items.map((i) => additional[i] ?? null) : null, next: null };
    steering.variants.set(key, v);
  }
  return v;
}

/**
 * Whether some clients get NODATA for the set: every record of it has subnets. The NSEC3 chain of a signed
 * zone leaves such a type out of its name's bitmap (dnssec/online.ts), so that the NODATA those clients get
 * can be proved; the others' positive answers need no NSEC3 record of the name.
 */
export function mayServeNothing(set: RRset): boolean {
  return set.steering !== undefined && set.steering.items.every((s) => s.subnets !== null);
}
