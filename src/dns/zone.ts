/**
 * One zone in memory, as queries read it: every owner name (and every empty non-terminal between an owner
 * and the apex) by lookup key, each with its chain of RRsets, rdata pre-encoded for the writer. Built from
 * a zone's content (model/zone.ts) by buildZone, and patched at the names a change touched (patchZone).
 */
import { checkName, isWithin, keyOf, lowerAscii, parentKey } from '../model/labels.js';
import { recordTypeByCode, type RecordFields, type RecordType } from '../model/records/index.js';
import { wireTtl } from '../model/ttl.js';
import { soaData, type ZoneContent, type ZoneRecord } from '../model/zone.js';
import { encodeRdata, servedType, type Rdata } from './writer.js';
import { TYPE } from './message.js';

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
  for (const k of names) nodes.delete(k);
  for (const [k, node] of fresh) {
    if (node !== null) {
      trim(node);
      nodes.set(k, node);
    } else if (!nodes.has(k)) nodes.set(k, null);
  }
  for (const k of names) {
    if (nodes.has(k)) continue;
    if (hasBelow(nodes, k)) nodes.set(k, null);
    else for (let p = parentKey(k); p !== zone.key && p !== '' && nodes.get(p) === null && !hasBelow(nodes, p); p = parentKey(p)) nodes.delete(p);
  }
  return { ...zone, soa, serial: soaData(content.soa).serial, nodes };
}

/** Whether one of the names, other than the apex, is a zone cut (holds NS). */
export function cutAmong(zone: Zone, names: ReadonlySet<string>): boolean {
  for (const k of names) if (k !== zone.key && setOf(zone.nodes.get(k) ?? null, TYPE.NS)) return true;
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
  }
}

/** Whether some name in `nodes` lies below `key` (a scan: patches touch few names, and only emptied ones ask). */
function hasBelow(nodes: ReadonlyMap<string, ZoneNode>, key: string): boolean {
  const tail = '.' + key;
  for (const k of nodes.keys()) {
    if (!k.endsWith(tail)) continue;
    // `a\.b.example` ends in `.b.example` but is a child of `example`: walk up to be sure.
    let p = parentKey(k);
    while (p.length > key.length) p = parentKey(p);
    if (p === key) return true;
  }
  return false;
}

/** The name a CNAME set points at (its one record's target). */
export function aliasTarget(set: RRset): string {
  return (recordTypeByCode(set.type) as RecordType).aliasTarget?.(set.items[0] as RecordFields) ?? '';
}
