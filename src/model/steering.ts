/**
 * A record's `steering` (issue 32): which clients it is served to and when. Every part is optional:
 * - `healthcheck`: the id of one of the account's health checks; while it is down the record is left out
 *   of answers, unless every candidate of the answer is down (then all are served: fail open);
 * - `subnets`: CIDR networks; the record is served only to clients inside one of them (the query's EDNS
 *   Client Subnet, else its source address), the most specific match winning;
 * - `weight` (0–255): among the candidates left, one is chosen at random in proportion to its weight.
 * This module holds the shape and its rules; dns/zone/steer.ts chooses at answer time, and
 * model/steering-transfer.ts what a transfer carries.
 */
import * as ip from '@leichtgewicht/ip-codec';
import type { Problems } from './errors.js';
import { cidrOf } from './names.js';

/** The steering of a record as stored and as interface B shows it. */
export interface Steering {
  healthcheck?: number;
  weight?: number;
  subnets?: string[];
}

/** The steering of a record as served: its check's status resolved (down or not), subnets as bits. */
export interface ServedSteering {
  /** The record's health check is down now. */
  down: boolean;
  /** Null when the record carries no weight. */
  weight: number | null;
  /** Null when the record carries no subnets (it is served to every client no subnet matched). */
  subnets: readonly Subnet[] | null;
}

/**
 * What choosing among the records of one set needs (dns/zone/steer.ts): their steering, item by item, and
 * whether exactly one of them is served whatever the weights (CNAME and ALIAS: one alias per answer).
 */
export interface SteeringChoice {
  items: readonly ServedSteering[];
  one: boolean;
}

/** A network as matched: its address bytes (4 or 16) and prefix length. */
export interface Subnet {
  bytes: Uint8Array;
  prefix: number;
}

export const MAX_WEIGHT = 255;
/** Subnets one record may name: enough for a region's networks, few enough that matching stays cheap. */
export const MAX_SUBNETS = 64;

/** The check ids the records' steering names, each once. */
export function checksOf(records: readonly { steering?: Steering | null }[]): number[] {
  const ids = new Set<number>();
  for (const r of records) if (r.steering?.healthcheck !== undefined) ids.add(r.steering.healthcheck);
  return [...ids];
}

/**
 * Checks and normalises a steering object (subnets written as their network, each once); problems are
 * named `steering.<part>`. Null when there is nothing to keep (an empty object steers nothing).
 */
export function checkSteering(value: unknown, p: Problems): Steering | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || Array.isArray(value)) {
    p.add('steering', 'steering must be an object {"healthcheck": ID, "weight": N, "subnets": ["CIDR", ...]}, each part optional.');
    return null;
  }
  const v = value as Record<string, unknown>;
  const out: Steering = {};
  for (const key of Object.keys(v)) {
    if (key !== 'healthcheck' && key !== 'weight' && key !== 'subnets') p.add(`steering.${key}`, `steering has no part '${key}'; its parts are healthcheck, weight and subnets.`);
  }
  if (v.healthcheck !== undefined && v.healthcheck !== null) {
    if (!Number.isSafeInteger(v.healthcheck) || (v.healthcheck as number) < 1) p.add('steering.healthcheck', 'steering.healthcheck must be the id of one of your health checks (a positive integer).');
    else out.healthcheck = v.healthcheck as number;
  }
  if (v.weight !== undefined && v.weight !== null) {
    if (!Number.isInteger(v.weight) || (v.weight as number) < 0 || (v.weight as number) > MAX_WEIGHT) p.add('steering.weight', `steering.weight must be an integer from 0 to ${MAX_WEIGHT}.`);
    else out.weight = v.weight as number;
  }
  if (v.subnets !== undefined && v.subnets !== null) {
    const subnets = checkSubnets(v.subnets, p);
    if (subnets) out.subnets = subnets;
  }
  return Object.keys(out).length > 0 ? out : null;
}

function checkSubnets(value: unknown, p: Problems): string[] | null {
  if (!Array.isArray(value)) {
    p.add('steering.subnets', 'steering.subnets must be a list of CIDR networks such as "192.0.2.0/24" or "2001:db8::/32".');
    return null;
  }
  if (value.length === 0) {
    p.add('steering.subnets', 'steering.subnets must name at least one network; leave it out to serve the record to every client.');
    return null;
  }
  if (value.length > MAX_SUBNETS) {
    p.add('steering.subnets', `steering.subnets may name at most ${MAX_SUBNETS} networks (it names ${value.length}).`);
    return null;
  }
  const out = new Set<string>();
  for (const [i, s] of value.entries()) {
    const problem = typeof s === 'string' ? subnetProblem(s) : 'is not a string';
    if (problem) p.add(`steering.subnets.${i}`, `steering.subnets[${i}] ${problem}.`);
    else out.add(networkText(s as string));
  }
  return [...out];
}

/** Why `text` is not a CIDR network (address/prefix, no host bits set), or null. */
function subnetProblem(text: string): string | null {
  const shown = JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
  if (!text.includes('/')) return `${shown} is not a CIDR network: write ADDRESS/PREFIX, such as "192.0.2.0/24"`;
  const cidr = cidrOf(text);
  if (!cidr) return `${shown} is not a CIDR network: write ADDRESS/PREFIX with an IPv4 prefix of 0-32 or an IPv6 prefix of 0-128, such as "192.0.2.0/24"`;
  const net = subnetOf(text) as Subnet;
  const network = `${ip.decode(net.bytes)}/${net.prefix}`;
  if (!Buffer.from(ip.encode(cidr.address)).equals(Buffer.from(net.bytes))) return `${shown} has bits set after its prefix; did you mean "${network}"?`;
  return null;
}

/** The network in its canonical text (IPv6 compressed, lower case). */
function networkText(text: string): string {
  const net = subnetOf(text) as Subnet;
  return `${ip.decode(net.bytes)}/${net.prefix}`;
}

/** A CIDR network as bytes, bits past its prefix cleared; null when it is not one. */
export function subnetOf(text: string): Subnet | null {
  const cidr = cidrOf(text);
  if (!cidr) return null;
  const bytes = new Uint8Array(ip.encode(cidr.address));
  clearAfter(bytes, cidr.prefix);
  return { bytes, prefix: cidr.prefix };
}

/** Clears the bits of `bytes` from `prefix` on (a network's host part). */
export function clearAfter(bytes: Uint8Array, prefix: number): void {
  for (let bit = prefix; bit < bytes.length * 8; bit++) bytes[bit >> 3] = (bytes[bit >> 3] as number) & ~(0x80 >> (bit & 7));
}

/** What serving a record needs of its steering: its check's status looked up in `down`, its subnets as bits. */
export function servedSteering(s: Steering | null | undefined, down: ReadonlySet<number>): ServedSteering | undefined {
  if (!s) return undefined;
  return {
    down: s.healthcheck !== undefined && down.has(s.healthcheck),
    weight: s.weight ?? null,
    subnets: s.subnets ? s.subnets.map((t) => subnetOf(t)).filter((x): x is Subnet => x !== null) : null,
  };
}

/** Two steering values are the same (for "did the record change"). */
export const sameSteering = (a: Steering | null | undefined, b: Steering | null | undefined): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
