/**
 * Our own zones signed online: the signed view (secure.ts `SignedView`) of a master zone version with
 * DNSSEC turned on — its keys and NSEC3 chain, built once per zone version (signZone), its RRSIG records
 * made when first asked for and kept in the shared cache (sign.ts) — and the same zone signed in full for
 * a transfer (signedRecords).
 */
import { setImmediate } from 'node:timers/promises';
import { parentKey } from '../../model/labels.js';
import { dnssecApex, type ZoneKey, type ZoneSigning } from '../../model/dnssec.js';
import { decodeRdata, DS, NS, NSEC3, rdataOf, recordTypeByCode, RRSIG, type RecordType } from '../../model/records/index.js';
import type { ZoneContent, ZoneRecord } from '../../model/zone.js';
import { zoneNegativeTtl } from '../zone/negative.js';
import { Nsec3Chain } from './nsec3.js';
import type { DenialChain, SignedView } from './secure.js';
import type { SignatureCache } from './sign.js';
import { encodeRdata, type Rdata } from '../wire/writer.js';
import { buildZone, setOf, type RRset, type Zone, type ZoneNode } from '../zone/zone.js';
import { mayServeNothing } from '../zone/steer.js';

/** The rdata of one served record in canonical form (RFC 4034 6.2), from what the writer keeps. */
function canonical(t: RecordType, item: Rdata): Buffer {
  if (typeof item !== 'string') return rdataOf(t, item, true);
  const wire = Buffer.from(item, 'latin1');
  return rdataOf(t, decodeRdata(t, wire, 0, wire.length), true);
}

/** Whether a name lies below a zone cut (glue, occluded data): not part of the signed zone. */
function belowCut(zone: Zone, key: string): boolean {
  for (let k = parentKey(key); k !== zone.key && k !== ''; k = parentKey(k)) if (setOf(zone.nodes.get(k) ?? null, NS.code)) return true;
  return false;
}

/** The types the chain lists at one name of the zone (RRSIG among them), or null when the name is not in the chain (below a cut). */
function chainTypes(zone: Zone, key: string, node: ZoneNode): number[] | null {
  if (key !== zone.key && belowCut(zone, key)) return null;
  const types: number[] = [];
  const delegation = key !== zone.key && setOf(node, NS.code) !== undefined;
  for (let set = node; set; set = set.next) if ((!delegation || set.type === NS.code || set.type === DS.code) && !mayServeNothing(set)) types.push(set.type);
  // At a delegation only the DS set is ours to sign.
  if (types.length > 0 && (!delegation || types.includes(DS.code))) types.push(RRSIG.code);
  return types;
}

/**
 * The NSEC3 chain of a zone version: every authoritative name, empty non-terminals and delegations included
 * (no opt-out). `previous`, the chain of the version before, lends the hashes of the names they share; when
 * `touched` says which names this version changed (a patch that moved no zone cut), the chain is `previous`
 * with those names and the names above them made anew.
 */
function chainOf(zone: Zone, previous?: Nsec3Chain, touched?: ReadonlySet<string>): Nsec3Chain {
  if (previous && touched) {
    const changes = new Map<string, number[] | null>();
    for (const k of touched) {
      for (let p = k; !changes.has(p); p = parentKey(p)) {
        const node = zone.nodes.get(p);
        changes.set(p, node === undefined ? null : chainTypes(zone, p, node));
        if (p === zone.key || p === '') break;
      }
    }
    return Nsec3Chain.patched(previous, changes);
  }
  const names = new Map<string, number[]>();
  for (const [key, node] of zone.nodes) {
    const types = chainTypes(zone, key, node);
    if (types) names.set(key, types);
  }
  return Nsec3Chain.of(zone.key, names, previous);
}

/** The signed view of one of our zone versions: signatures made with its keys, proofs from its NSEC3 chain. */
export class OnlineView implements SignedView, DenialChain {
  readonly kind = 'nsec3' as const;
  readonly chain: DenialChain = this;
  readonly nsec3Chain: Nsec3Chain;
  /** TTL of NSEC3 records: that of negative answers, min(SOA TTL, MINIMUM) (RFC 9077). */
  private readonly negativeTtl: number;
  /** RRSIG sets already made for this version's RRsets, until their signatures are due to be made anew. */
  private readonly rrsigs = new WeakMap<RRset, { set: RRset; refreshAt: number }>();
  /** NSEC3 RRsets by chain index. */
  private readonly nsec3 = new Map<number, RRset>();

  constructor(
    private readonly zone: Zone,
    readonly keys: readonly ZoneKey[],
    private readonly cache: SignatureCache,
    previous?: OnlineView,
    touched?: ReadonlySet<string>,
  ) {
    this.nsec3Chain = chainOf(zone, previous?.nsec3Chain, touched);
    this.negativeTtl = zoneNegativeTtl(zone);
  }

  signatures(set: RRset, now: number): { set: RRset; refreshAt: number } {
    const hit = this.rrsigs.get(set);
    if (hit && hit.refreshAt > now) return hit;
    const t = recordTypeByCode(set.type) as RecordType;
    const made = this.cache.sign(this.zone.name, this.keys, { owner: set.owner, type: set.type, ttl: set.ttl, rdata: set.items.map((i) => canonical(t, i)) }, now);
    const sigSet: RRset = { type: RRSIG.code, ttl: set.ttl, owner: set.owner, items: made.rrsigs.map((d) => encodeRdata(RRSIG, d)), additional: null, next: null };
    const out = { set: sigSet, refreshAt: made.refreshAt };
    this.rrsigs.set(set, out);
    return out;
  }

  matching(name: string): RRset | undefined {
    return this.record(this.nsec3Chain.matching(name));
  }

  covering(name: string): RRset | undefined {
    return this.record(this.nsec3Chain.covering(name));
  }

  /** The NSEC3 RRset of chain entry `i` (made once per zone version). */
  private record(i: number): RRset | undefined {
    if (i < 0) return undefined;
    let set = this.nsec3.get(i);
    if (!set) {
      const { owner, data } = this.nsec3Chain.record(i);
      set = { type: NSEC3.code, ttl: this.negativeTtl, owner, items: [encodeRdata(NSEC3, data)], additional: null, next: null };
      this.nsec3.set(i, set);
    }
    return set;
  }
}

/** How long signing a transfer runs before it lets queries in. */
const YIELD_AFTER_MS = 5;

/**
 * The signed view of a zone version built with keys: its NSEC3 chain is worked out now, its signatures when
 * asked for. `previous` is the view of the version before; `touched`, the names a patch of it changed when
 * it moved no zone cut.
 */
export function signZone(zone: Zone, signing: ZoneSigning, cache: SignatureCache, previous?: SignedView, touched?: ReadonlySet<string>): OnlineView {
  return new OnlineView(zone, signing.keys, cache, previous instanceof OnlineView ? previous : undefined, touched);
}

/**
 * A signed zone as a transfer carries it (RFC 5936 with RFC 4035): its records, the DNSKEY, CDS, CDNSKEY and
 * NSEC3PARAM records, an RRSIG for every authoritative RRset and the whole NSEC3 chain with its signatures,
 * so a plain secondary serves it signed. `answers` carry their RRsets' TTLs (withRRsetTtls); the SOA stays
 * apart (it opens and closes the transfer). Signatures come from the same cache as answers'. Signing a large
 * zone takes seconds: it gives way to other work every few milliseconds, so queries are answered meanwhile.
 */
export async function signedRecords(content: ZoneContent, signing: ZoneSigning, cache: SignatureCache, now: number): Promise<ZoneRecord[]> {
  const answers = [...content.answers, ...dnssecApex(content.soa.name, signing)];
  const zone = buildZone(0, { soa: content.soa, answers }, null, () => undefined);
  const chain = chainOf(zone);
  const negativeTtl = zoneNegativeTtl(zone);
  const out: ZoneRecord[] = [...answers];
  const sign = (set: RRset, owner: string) => {
    const t = recordTypeByCode(set.type) as RecordType;
    const made = cache.sign(zone.name, signing.keys, { owner, type: set.type, ttl: set.ttl, rdata: set.items.map((i) => canonical(t, i)) }, now);
    for (const data of made.rrsigs) out.push({ name: owner, type: RRSIG.type, ttl: set.ttl, data });
  };
  let since = performance.now();
  const giveWay = async () => {
    if (performance.now() - since < YIELD_AFTER_MS) return;
    await setImmediate();
    since = performance.now();
  };
  const apexNs = setOf(zone.nodes.get(zone.key) ?? null, NS.code);
  for (const [key, node] of zone.nodes) {
    if (key !== zone.key && belowCut(zone, key)) continue;
    for (let set = node; set; set = set.next) if (set.type !== NS.code || set === apexNs) sign(set, set.owner);
    await giveWay();
  }
  for (let i = 0; i < chain.entries.length; i++) {
    await giveWay();
    const { owner, data } = chain.record(i);
    out.push({ name: owner, type: NSEC3.type, ttl: negativeTtl, data });
    sign({ type: NSEC3.code, ttl: negativeTtl, owner, items: [encodeRdata(NSEC3, data)], additional: null, next: null }, owner);
  }
  return out;
}
