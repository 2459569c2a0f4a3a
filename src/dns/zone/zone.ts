/**
 * One zone in memory, as queries read it: every owner name (and every empty non-terminal between an owner
 * and the apex) by lookup key, each with its chain of RRsets, rdata pre-encoded for the writer. Built from
 * a zone's content (model/zone.ts) by buildZone, and patched at the names a change touched (patchZone).
 */
import { checkName, firstLabelEnd, isWithin, keyOf, lowerAscii, parentKey } from '../../model/labels.js';
import { NS, recordTypeByCode, soaData, type RecordFields, type RecordType } from '../../model/records/index.js';
import { wireTtl } from '../../model/ttl.js';
import type { ZoneContent, ZoneRecord } from '../../model/zone.js';
import type { ServedSteering, SteeringChoice } from '../../model/steering.js';
import { STEERABLE_ALIASES } from '../../model/steered-aliases.js';
import { encodeRdata, servedType, type Rdata } from '../wire/writer.js';


/** One RRset as served: every record of one type at one name. */
export interface RRset {
  type: number;
  /** RFC 2181 5.2: the records of one set share a TTL; records given different ones are served at the lowest. */
  ttl: number;
  /** Owner as stored (case kept), presentation form. */
  owner: string;
  items: Rdata[];
  /** Per item, the lookup key of the host it wants addresses for (MX, SRV, NS targets); null when none does. */
  additional: (string | null)[] | null;
  /** The next set at the same name (a chain rather than an array: one object less for every name). */
  next: RRset | null;
  /** Present when a record of the set has steering: answers hold the variant chosen for their client (steer.ts). */
  steering?: SetSteering;
}

/**
 * The steering of a set's records, item by item (what a choice needs: steer.ts), and the variants of the set
 * answers have held (made once each).
 */
export interface SetSteering extends SteeringChoice {
  items: ServedSteering[];
  variants: Map<string, RRset>;
}

/** How a record without steering stands among steered ones: up, unweighted, for every client. */
const UNSTEERED: ServedSteering = Object.freeze({ down: false, weight: null, subnets: null });

/** Notes the steering of the item just added to `set` (the records before it, if any, had none). */
function addSteering(set: RRset, steering: ServedSteering | undefined): void {
  set.steering ??= { items: set.items.slice(0, -1).map(() => UNSTEERED), one: STEERABLE_ALIASES.has(recordTypeByCode(set.type)?.type ?? ''), variants: new Map() };
  set.steering.items.push(steering ?? UNSTEERED);
}

/** The record sets at one name: the first of its chain, or null at an empty non-terminal. */
export type ZoneNode = RRset | null;

export const setOf = (node: ZoneNode, type: number): RRset | undefined => {
  for (let set = node; set; set = set.next) if (set.type === type) return set;
  return undefined;
};

export interface Zone {
  id: number;
  /** Lookup key of the apex. */
  key: string;
  /** The apex as stored. */
  name: string;
  soa: RRset;
  /** The SOA serial of this version. */
  serial: number;
  /** Every owner name and every name between an owner and the apex (null there), by lookup key. */
  nodes: Map<string, ZoneNode>;
  /**
   * How many names of `nodes` lie directly below each name that has any (the apex's parent not counted), so a
   * patch knows whether a name it emptied stays as an empty non-terminal without reading the whole zone. Made
   * by the first patch that empties a name, then changed with `nodes`, in place.
   */
  below?: Map<string, number>;
  /** Epoch ms after which a mirror's copy is no longer served; null for master zones. */
  expiresAt: number | null;
}

/**
 * Builds the lookup structure of one zone. Records outside the zone or that cannot be put on the wire are
 * left out (reported through `skip`), never served half-encoded.
 */
export function buildZone(id: number, content: ZoneContent, expiresAt: number | null, skip: (why: string) => void): Zone {
  const key = keyOf(lowerAscii(content.soa.name));
  const nodes = new Map<string, ZoneNode>();
  const soa = addRecords(nodes, key, content, skip);
  for (const node of nodes.values()) trim(node);
  return { id, key, name: content.soa.name, soa, serial: soaData(content.soa).serial, nodes, expiresAt };
}

/**
 * The next version of a zone, in which the names `names` (lookup keys; the apex among them, as its SOA
 * moves with every change) hold exactly the records `content` gives for them. The zone's map of names is
 * changed in place, so a write costs in proportion to the names it touched, not to the zone: the caller
 * makes and installs the version in one synchronous step, between two queries, and serves the version
 * before no more. Everything that can fail (encoding) is done before the map changes. A name left without
 * records stays as an empty non-terminal while something lies below it; otherwise it goes, and so do the
 * empty non-terminals above it that it alone kept.
 */
export function patchZone(zone: Zone, content: ZoneContent, names: ReadonlySet<string>, skip: (why: string) => void): Zone {
  const fresh = new Map<string, ZoneNode>();
  const soa = addRecords(fresh, zone.key, content, skip);
  const nodes = zone.nodes;
  let below = zone.below;
  const drop = (k: string) => {
    if (nodes.delete(k) && below && k !== zone.key) count(below, parentKey(k), -1);
  };
  const put = (k: string, node: ZoneNode) => {
    if (below && k !== zone.key && !nodes.has(k)) count(below, parentKey(k), 1);
    nodes.set(k, node);
  };
  for (const k of names) drop(k);
  for (const [k, node] of fresh) {
    if (node !== null) {
      trim(node);
      put(k, node);
    } else if (!nodes.has(k)) put(k, null);
  }
  for (const k of names) {
    if (nodes.has(k)) continue;
    below ??= childCounts(nodes, zone.key);
    // Something lies below: an empty non-terminal, as are the names above it this patch emptied before it.
    if (below.has(k)) for (let p = k; p !== zone.key && p !== '' && !nodes.has(p); p = parentKey(p)) put(p, null);
    else for (let p = parentKey(k); p !== zone.key && p !== '' && nodes.get(p) === null && !below.has(p); p = parentKey(p)) drop(p);
  }
  return { ...zone, soa, serial: soaData(content.soa).serial, nodes, ...(below ? { below } : {}) };
}

/** Whether one of the names, other than the apex, is a zone cut (holds NS). */
export function cutAmong(zone: Zone, names: ReadonlySet<string>): boolean {
  for (const k of names) if (k !== zone.key && setOf(zone.nodes.get(k) ?? null, NS.code)) return true;
  return false;
}

/** Adds the zone's SOA and records to `nodes` and returns the SOA set. */
function addRecords(nodes: Map<string, ZoneNode>, apex: string, content: ZoneContent, skip: (why: string) => void): RRset {
  const add = (a: ZoneRecord): RRset | null => {
    let t: RecordType;
    let rdata: Rdata;
    try {
      t = servedType(a.type);
      checkName(a.name);
      rdata = encodeRdata(t, a.data);
    } catch (e) {
      skip(`${a.name} ${a.type}: ${(e as Error).message}`);
      return null;
    }
    const k = keyOf(a.name);
    if (!isWithin(k, apex)) {
      skip(`${a.name} ${a.type}: outside the zone ${apex}`);
      return null;
    }
    const type = t.code;
    const ttl = wireTtl(a.ttl);
    const target = t.additionalTarget?.(a.data);
    const extra = target ? keyOf(target) : null;
    // Arrays start as literals: V8 sizes those exactly, while a push onto [] makes room for 17.
    const node = nodes.get(k) ?? null;
    let set = setOf(node, type);
    if (!set) {
      set = { type, ttl, owner: a.name, items: [rdata], additional: extra === null ? null : [extra], next: null };
      let last = node;
      while (last?.next) last = last.next;
      if (last) last.next = set;
      else nodes.set(k, set);
    } else {
      if (ttl < set.ttl) set.ttl = ttl;
      if (extra !== null && !set.additional) set.additional = set.items.map(() => null);
      set.items.push(rdata);
      set.additional?.push(extra);
    }
    if (a.steered || set.steering) addSteering(set, a.steered);
    // Names between the owner and the apex exist (empty non-terminals): NODATA there, not NXDOMAIN. None above the apex.
    if (k !== apex) for (let p = parentKey(k); p !== apex && p !== ''; p = parentKey(p)) if (!nodes.has(p)) nodes.set(p, null);
    return set;
  };
  const soa = add(content.soa);
  if (!soa) throw new Error(`zone ${apex}: unusable SOA`);
  for (const a of content.answers) if (a.type !== 'SOA') add(a);
  return soa;
}

/** Sets that grew by push are copied to arrays of their exact length. */
function trim(node: ZoneNode): void {
  for (let set = node; set; set = set.next) {
    if (set.items.length < 2) continue;
    set.items = set.items.slice();
    if (set.additional) set.additional = set.additional.slice();
    if (set.steering) set.steering.items = set.steering.items.slice();
  }
}

/** Zone.below for `nodes`: one pass over the zone, where scanning it for each emptied name was one pass each. */
function childCounts(nodes: ReadonlyMap<string, ZoneNode>, apex: string): Map<string, number> {
  const below = new Map<string, number>();
  let atApex = 0;
  for (const k of nodes.keys()) {
    if (k === apex) continue;
    // Most names lie right below the apex: counted without making the parent's string (a third of the time).
    const dot = firstLabelEnd(k);
    if (dot === k.length - apex.length - 1) atApex++;
    else count(below, k.slice(dot + 1), 1);
  }
  if (atApex > 0) below.set(apex, atApex);
  return below;
}

function count(below: Map<string, number>, parent: string, by: 1 | -1): void {
  const n = (below.get(parent) ?? 0) + by;
  if (n > 0) below.set(parent, n);
  else below.delete(parent);
}

/** The name a CNAME set points at (its one record's target). */
export function aliasTarget(set: RRset): string {
  return (recordTypeByCode(set.type) as RecordType).aliasTarget?.(set.items[0] as RecordFields) ?? '';
}
