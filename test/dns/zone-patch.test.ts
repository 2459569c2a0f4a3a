/**
 * A zone version patched at the names a change touched (patchZone) is the version built from scratch
 * (buildZone) from the same records: same names, empty non-terminals included, same RRsets in the same
 * order, same TTLs; the names it did not touch keep their RRsets; and a patch that fails changes nothing. Signed, its
 * NSEC3 chain patched from the version before's is the chain made from scratch.
 */
import { describe, expect, it } from 'vitest';
import { signZone } from '../../src/dns/dnssec/online.js';
import type { SignatureCache } from '../../src/dns/dnssec/sign.js';
import { buildZone, cutAmong, patchZone, type Zone } from '../../src/dns/zone/zone.js';
import type { ZoneSigning } from '../../src/model/dnssec.js';
import { keyOf } from '../../src/model/labels.js';
import type { RecordFields } from '../../src/model/records/index.js';
import type { ZoneContent, ZoneRecord } from '../../src/model/zone.js';

const APEX = 'example.com';
const soa = (serial: number): ZoneRecord => ({
  name: APEX,
  type: 'SOA',
  ttl: 3600,
  data: { mname: 'ns1.example.com', rname: 'hostmaster.example.com', serial, refresh: 3600, retry: 600, expire: 86400, minimum: 300 } as RecordFields,
});

/** Owners drawn from a small tree, so that changes make and unmake empty non-terminals and delegations. */
const OWNERS = ['example.com', 'www.example.com', 'WWW.example.com', 'a.b.c.example.com', 'b.c.example.com', 'x.c.example.com', 'c.example.com', 'sub.example.com', 'ns.sub.example.com', '*.example.com', 'a\\.b.example.com', 'deep.a.b.c.example.com'];

function randomRecord(rand: () => number): ZoneRecord {
  const name = OWNERS[Math.floor(rand() * OWNERS.length)] as string;
  const ttl = [300, 3600, 60][Math.floor(rand() * 3)] as number;
  const n = Math.floor(rand() * 4);
  switch (Math.floor(rand() * 4)) {
    case 0:
      return { name, type: 'A', ttl, data: { address: `192.0.2.${n}` } as RecordFields };
    case 1:
      return { name, type: 'TXT', ttl, data: { text: `t${n}` } as RecordFields };
    case 2:
      return { name, type: 'MX', ttl, data: { priority: n, mail_server: `mx${n}.example.com` } as RecordFields };
    default:
      // Name servers at the apex or at one delegation, whose glue lies below it.
      return { name: rand() < 0.5 ? APEX : 'sub.example.com', type: 'NS', ttl, data: { nameserver: `ns${n}.example.net` } as RecordFields };
  }
}

/** A small deterministic generator, so a failure can be replayed from its seed. */
function generator(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x80000000;
  };
}

/** The zone's names in order, each with its RRsets as [type, ttl, owner, items]. */
function shape(zone: Zone) {
  return [...zone.nodes.entries()]
    .map(([k, node]) => {
      const sets = [];
      for (let set = node; set; set = set.next) sets.push([set.type, set.ttl, set.owner, set.items, set.additional]);
      return [k, sets] as const;
    })
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The chain needs no keys, and no signature is made here. */
const SIGNING: ZoneSigning = { keys: [], cds: null, dnskeyTtl: 3600 };
const NO_CACHE = {} as SignatureCache;

const noSkip = (why: string) => {
  throw new Error(why);
};

describe('patching a zone version', () => {
  it('gives the zone built from scratch, over hundreds of random changes', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const rand = generator(seed);
      let records: ZoneRecord[] = Array.from({ length: 10 }, () => randomRecord(rand));
      let serial = 1;
      let zone = buildZone(1, { soa: soa(serial), answers: records }, null, noSkip);
      let view = signZone(zone, SIGNING, NO_CACHE);
      for (let step = 0; step < 30; step++) {
        // A change removes some records and adds others; the names touched are those of both.
        const touched = new Set([keyOf(APEX)]);
        const removed = records.filter(() => rand() < 0.15);
        const added = Array.from({ length: Math.floor(rand() * 3) }, () => randomRecord(rand));
        for (const r of [...removed, ...added]) touched.add(keyOf(r.name));
        records = [...records.filter((r) => !removed.includes(r)), ...added];
        serial++;
        const atTouched: ZoneContent = { soa: soa(serial), answers: records.filter((r) => touched.has(keyOf(r.name))) };
        const before = new Map(zone.nodes);
        // The chain is patched only when no zone cut is among the names, before or after (as the cache does).
        const cut = cutAmong(zone, touched);
        zone = patchZone(zone, atTouched, touched, noSkip);
        const fresh = buildZone(1, { soa: soa(serial), answers: records }, null, noSkip);
        expect(shape(zone), `seed ${seed}, step ${step}`).toEqual(shape(fresh));
        expect(zone.serial).toBe(serial);
        view = signZone(zone, SIGNING, NO_CACHE, view, cut || cutAmong(zone, touched) ? undefined : touched);
        expect(view.nsec3Chain.entries, `seed ${seed}, step ${step}`).toEqual(signZone(fresh, SIGNING, NO_CACHE).nsec3Chain.entries);
        for (const [k, node] of before) if (!touched.has(k) && zone.nodes.has(k)) expect(zone.nodes.get(k)).toBe(node);
      }
    }
  });

  it('keeps a name with nothing left as an empty non-terminal while a name lies below it, and drops the chain above the last one', () => {
    const a = (name: string): ZoneRecord => ({ name, type: 'A', ttl: 300, data: { address: '192.0.2.1' } as RecordFields });
    const v1 = buildZone(1, { soa: soa(1), answers: [a('b.c.example.com'), a('a.b.c.example.com')] }, null, noSkip);
    const v2 = patchZone(v1, { soa: soa(2), answers: [] }, new Set([APEX, 'b.c.example.com']), noSkip);
    expect(v2.nodes.get('b.c.example.com')).toBeNull();
    expect(v2.nodes.get('c.example.com')).toBeNull();
    const v3 = patchZone(v2, { soa: soa(3), answers: [] }, new Set([APEX, 'a.b.c.example.com']), noSkip);
    expect([...v3.nodes.keys()]).toEqual([APEX]);
  });

  it('leaves the map of names as it was when a record cannot be served, the SOA included', () => {
    const a = (name: string): ZoneRecord => ({ name, type: 'A', ttl: 300, data: { address: '192.0.2.1' } as RecordFields });
    const v1 = buildZone(1, { soa: soa(1), answers: [a('www.example.com')] }, null, noSkip);
    const names = [...v1.nodes.keys()];
    const broken = { ...soa(2), data: { ...soa(2).data, mname: 'x'.repeat(300) } as RecordFields };
    expect(() => patchZone(v1, { soa: broken, answers: [] }, new Set([APEX, 'www.example.com']), () => {})).toThrow(/unusable SOA/);
    expect([...v1.nodes.keys()]).toEqual(names);
  });
});
