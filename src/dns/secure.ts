/**
 * A signed zone's answers to queries with the DO bit (RFC 4035 3.1): every authoritative RRset of the
 * answer and authority sections with its RRSIG records, and what the lookup noted it must prove (result.ts
 * `Denial`) as NSEC3 records (RFC 5155 7.2) with theirs; a referral carries the delegation's DS records, or
 * the proof it has none. Glue and additional addresses go unsigned (RFC 4035 3.1.1 asks for their
 * signatures only as room allows). The zone's signed form — keys, NSEC3 chain — is built once per zone
 * version (signZone); signatures come from the shared cache (sign.ts).
 */
import { parentKey } from '../model/labels.js';
import { dnssecApex, type ZoneKey, type ZoneSigning } from '../model/dnssec.js';
import { decodeRdata, rdataOf, recordType, recordTypeByCode, type RecordFields, type RecordType } from '../model/records/index.js';
import type { Soa, ZoneContent, ZoneRecord } from '../model/zone.js';
import { TYPE } from './message.js';
import { denialNames, Nsec3Chain } from './nsec3.js';
import type { Denial, Entry, Result } from './result.js';
import type { SignatureCache } from './sign.js';
import { encodeRdata, type Rdata } from './writer.js';
import { buildZone, setOf, type RRset, type Zone } from './zone.js';

/** What a zone version needs to answer signed. */
export interface SignedZone {
  keys: ZoneKey[];
  chain: Nsec3Chain;
  /** TTL of NSEC3 records: that of negative answers, min(SOA TTL, MINIMUM) (RFC 9077). */
  negativeTtl: number;
  /** RRSIG sets already made for this version's RRsets, until their signatures are due to be made anew. */
  rrsigs: WeakMap<RRset, { set: RRset; refreshAt: number }>;
  /** NSEC3 RRsets by chain index. */
  nsec3: Map<number, RRset>;
}

const typeOf = (name: string): RecordType => recordType(name) as RecordType;

/** The rdata of one served record in canonical form (RFC 4034 6.2), from what the writer keeps. */
function canonical(t: RecordType, item: Rdata): Buffer {
  if (typeof item !== 'string') return rdataOf(t, item, true);
  const wire = Buffer.from(item, 'latin1');
  return rdataOf(t, decodeRdata(t, wire, 0, wire.length), true);
}

/** Whether a name lies below a zone cut (glue, occluded data): not part of the signed zone. */
function belowCut(zone: Zone, key: string): boolean {
  for (let k = parentKey(key); k !== zone.key && k !== ''; k = parentKey(k)) if (setOf(zone.nodes.get(k) ?? null, TYPE.NS)) return true;
  return false;
}

/**
 * The signed form of a zone version: its NSEC3 chain over every authoritative name, empty non-terminals and
 * delegations included (no opt-out), each with its types — RRSIG where something there is signed.
 */
export function signZone(zone: Zone, signing: ZoneSigning): SignedZone {
  const names = new Map<string, number[]>();
  for (const [key, node] of zone.nodes) {
    if (key !== zone.key && belowCut(zone, key)) continue;
    const types: number[] = [];
    const delegation = key !== zone.key && setOf(node, TYPE.NS) !== undefined;
    for (let set = node; set; set = set.next) if (!delegation || set.type === TYPE.NS || set.type === TYPE.DS) types.push(set.type);
    // At a delegation only the DS set is ours to sign.
    if (types.length > 0 && (!delegation || types.includes(TYPE.DS))) types.push(TYPE.RRSIG);
    names.set(key, types);
  }
  const soa = zone.soa.items[0] as unknown as Soa;
  return {
    keys: signing.keys,
    chain: new Nsec3Chain(zone.key, names),
    negativeTtl: Math.min(zone.soa.ttl, (soa.minimum ?? 0) >>> 0),
    rrsigs: new WeakMap(),
    nsec3: new Map(),
  };
}

/** Adds signatures and proofs to `r`, an answer of `zone` (signed) to a query with DO; returns when its signatures are due anew. */
export function secure(zone: Zone, signed: SignedZone, r: Result, cache: SignatureCache, now: number): number {
  let refreshAt = Infinity;
  const rrsigType = typeOf('RRSIG');
  const sigsOf = (set: RRset): RRset => {
    const hit = signed.rrsigs.get(set);
    if (hit && hit.refreshAt > now) {
      refreshAt = Math.min(refreshAt, hit.refreshAt);
      return hit.set;
    }
    const t = recordTypeByCode(set.type) as RecordType;
    const made = cache.sign(zone.name, signed.keys, { owner: set.owner, type: set.type, ttl: set.ttl, rdata: set.items.map((i) => canonical(t, i)) }, now);
    const sigSet: RRset = { type: TYPE.RRSIG, ttl: set.ttl, owner: set.owner, items: made.rrsigs.map((d) => encodeRdata(rrsigType, d)), additional: null, next: null };
    signed.rrsigs.set(set, { set: sigSet, refreshAt: made.refreshAt });
    refreshAt = Math.min(refreshAt, made.refreshAt);
    return sigSet;
  };
  const withSigs = (entries: Entry[], skip: (e: Entry) => boolean): Entry[] => {
    const out: Entry[] = [];
    for (const e of entries) {
      out.push(e);
      if (!skip(e)) out.push({ set: sigsOf(e.set), ...(e.owner ? { owner: e.owner } : {}), ...(e.ttl !== undefined ? { ttl: e.ttl } : {}) });
    }
    return out;
  };
  r.answer = withSigs(r.answer, () => false);
  // A delegation's NS set is the child's: not signed by the parent (RFC 4035 2.2).
  r.authority = withSigs(r.authority, (e) => e.set.type === TYPE.NS && e.set !== setOf(zone.nodes.get(zone.key) ?? null, TYPE.NS));
  const nsec3Type = typeOf('NSEC3');
  const proofs = new Set<number>();
  const nsec3 = (i: number) => {
    if (i < 0 || proofs.has(i)) return;
    proofs.add(i);
    let set = signed.nsec3.get(i);
    if (!set) {
      const { owner, data } = signed.chain.record(i);
      set = { type: TYPE.NSEC3, ttl: signed.negativeTtl, owner, items: [encodeRdata(nsec3Type, data as RecordFields)], additional: null, next: null };
      signed.nsec3.set(i, set);
    }
    r.authority.push({ set }, { set: sigsOf(set) });
  };
  const { chain } = signed;
  for (const d of r.denial ?? []) prove(d);
  function prove(d: Denial): void {
    switch (d.kind) {
      case 'nodata':
        nsec3(chain.matching(d.name));
        break;
      case 'nxdomain': {
        const n = denialNames(d.name, d.encloser);
        nsec3(chain.matching(n.encloser));
        nsec3(chain.covering(n.nextCloser));
        nsec3(chain.covering(n.wildcard));
        break;
      }
      case 'wildcard':
        nsec3(chain.covering(denialNames(d.name, d.encloser).nextCloser));
        break;
      case 'wildcard-nodata': {
        const n = denialNames(d.name, d.encloser);
        nsec3(chain.matching(n.encloser));
        nsec3(chain.covering(n.nextCloser));
        nsec3(chain.matching(n.wildcard));
        break;
      }
      case 'referral': {
        const ds = setOf(zone.nodes.get(d.cut) ?? null, TYPE.DS);
        if (ds) r.authority.push({ set: ds }, { set: sigsOf(ds) });
        else nsec3(chain.matching(d.cut));
        break;
      }
    }
  }
  return refreshAt;
}


/**
 * A signed zone as a transfer carries it (RFC 5936 with RFC 4035): its records, the DNSKEY, CDS, CDNSKEY and
 * NSEC3PARAM records, an RRSIG for every authoritative RRset and the whole NSEC3 chain with its signatures,
 * so a plain secondary serves it signed. `answers` carry their RRsets' TTLs (withRRsetTtls); the SOA stays
 * apart (it opens and closes the transfer). Signatures come from the same cache as answers'.
 */
export function signedRecords(content: ZoneContent, signing: ZoneSigning, cache: SignatureCache, now: number): ZoneRecord[] {
  const answers = [...content.answers, ...dnssecApex(content.soa.name, signing)];
  const zone = buildZone(0, { soa: content.soa, answers }, null, () => undefined);
  const signed = signZone(zone, signing);
  const out: ZoneRecord[] = [...answers];
  const sign = (set: RRset, owner: string) => {
    const t = recordTypeByCode(set.type) as RecordType;
    const made = cache.sign(zone.name, signed.keys, { owner, type: set.type, ttl: set.ttl, rdata: set.items.map((i) => canonical(t, i)) }, now);
    for (const data of made.rrsigs) out.push({ name: owner, type: 'RRSIG', ttl: set.ttl, data });
  };
  const apexNs = setOf(zone.nodes.get(zone.key) ?? null, TYPE.NS);
  for (const [key, node] of zone.nodes) {
    if (key !== zone.key && belowCut(zone, key)) continue;
    for (let set = node; set; set = set.next) if (set.type !== TYPE.NS || set === apexNs) sign(set, set.owner);
  }
  for (let i = 0; i < signed.chain.entries.length; i++) {
    const { owner, data } = signed.chain.record(i);
    out.push({ name: owner, type: 'NSEC3', ttl: signed.negativeTtl, data });
    sign({ type: TYPE.NSEC3, ttl: signed.negativeTtl, owner, items: [encodeRdata(typeOf('NSEC3'), data)], additional: null, next: null }, owner);
  }
  return out;
}
