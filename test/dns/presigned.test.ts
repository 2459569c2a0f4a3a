/**
 * A mirror's copy of a signed zone, built in memory (no store, no sockets): lookups with the master's NSEC3
 * records among the zone's names, and what a query with DO gets from the master's records (presigned.ts
 * through secure.ts). The signatures are not real: only which records are sent is looked at here; delv
 * validates real ones in dnssec-mirror.test.ts.
 */
import * as dnsPacket from 'dns-packet';
import dnsTypes from 'dns-packet/types.js';
import { describe, expect, it } from 'vitest';
import { resolve } from '../../src/dns/zone/lookup.js';
import { nsec3Hash } from '../../src/dns/dnssec/nsec3.js';
import { presigned } from '../../src/dns/dnssec/presigned.js';
import { parseQuery } from '../../src/dns/wire/query.js';
import type { Entry, Result } from '../../src/dns/zone/result.js';
import { secure } from '../../src/dns/dnssec/secure.js';
import { buildZone } from '../../src/dns/zone/zone.js';
import { base32hex } from '../../src/model/records/common.js';
import type { RecordFields } from '../../src/model/records/index.js';
import type { ZoneRecord } from '../../src/model/zone.js';

const Z = 'example.com';
const SALT = 'AABB';
const rr = (name: string, type: string, data: Record<string, unknown>, ttl = 3600): ZoneRecord => ({ name, type, ttl, data: data as RecordFields });
const sig = (name: string, covered: string, ttl = 3600) =>
  rr(name, 'RRSIG', { type_covered: covered, algorithm: 13, labels: name.split('.').filter((l) => l !== '*').length, original_ttl: ttl, expiration: 1900000000, inception: 1700000000, key_tag: 1, signer_name: Z, signature: 'AAAA' }, ttl);
const hashOf = (name: string) => nsec3Hash(name, 1, Buffer.from(SALT, 'hex'));

/** The zone's data, its RRSIGs, and an NSEC3 chain (opt-out: the insecure delegation `sub` left out) with salt and 1 iteration. */
function signedZone(withChain: boolean) {
  const data = [
    rr(Z, 'NS', { nameserver: `ns.${Z}` }),
    rr(`ns.${Z}`, 'A', { address: '192.0.2.53' }),
    rr(`www.${Z}`, 'A', { address: '192.0.2.1' }, 120),
    rr(`www.${Z}`, 'AAAA', { address: '2001:db8::1' }),
    rr(`*.${Z}`, 'A', { address: '192.0.2.100' }),
    rr(`alias.${Z}`, 'CNAME', { target: `www.${Z}` }),
    rr(`sub.${Z}`, 'NS', { nameserver: 'ns.elsewhere.test' }),
  ];
  const types = new Map<string, string[]>([
    [Z, ['NS', 'SOA', 'RRSIG', 'DNSKEY', 'NSEC3PARAM']],
    [`ns.${Z}`, ['A', 'RRSIG']],
    [`www.${Z}`, ['A', 'AAAA', 'RRSIG']],
    [`*.${Z}`, ['A', 'RRSIG']],
    [`alias.${Z}`, ['CNAME', 'RRSIG']],
  ]);
  const sigs = [sig(Z, 'SOA'), sig(Z, 'NS'), sig(Z, 'DNSKEY'), sig(`ns.${Z}`, 'A'), sig(`www.${Z}`, 'A', 120), sig(`www.${Z}`, 'AAAA'), sig(`*.${Z}`, 'A'), sig(`alias.${Z}`, 'CNAME')];
  const chain: ZoneRecord[] = [];
  if (withChain) {
    sigs.push(sig(Z, 'NSEC3PARAM'));
    const sorted = [...types].map(([name, t]) => ({ hash: hashOf(name), t })).sort((a, b) => Buffer.compare(a.hash, b.hash));
    sorted.forEach((e, i) => {
      const owner = `${base32hex(e.hash).toLowerCase()}.${Z}`;
      const next = (sorted[(i + 1) % sorted.length] as { hash: Buffer }).hash;
      chain.push(rr(owner, 'NSEC3', { hash_algorithm: 1, flags: 1, iterations: 1, salt: SALT, next_hashed_owner: base32hex(next), types: e.t }, 300), sig(owner, 'NSEC3', 300));
    });
    chain.push(rr(Z, 'NSEC3PARAM', { hash_algorithm: 1, flags: 0, iterations: 1, salt: SALT }, 0));
  }
  const soa = rr(Z, 'SOA', { mname: `ns.${Z}`, rname: `hostmaster.${Z}`, serial: 1, refresh: 3600, retry: 600, expire: 86400, minimum: 300 });
  const zone = buildZone(1, { soa, answers: [...data, rr(Z, 'DNSKEY', { flags: 257, protocol: 3, algorithm: 13, public_key: 'AAAA' }), ...sigs, ...chain] }, 0, (why) => {
    throw new Error(why);
  });
  return { zone, nsec3Owners: chain.filter((r) => r.type === 'NSEC3').map((r) => r.name) };
}

function ask(zone: ReturnType<typeof signedZone>['zone'], name: string, type: string, dnssec: boolean): Result {
  const q = parseQuery(dnsPacket.encode({ type: 'query', id: 1, questions: [{ name, type: type as dnsPacket.RecordType, class: 'IN' }] }));
  if (!q || 'malformed' in q) throw new Error('unusable query');
  const r = resolve(zone, q);
  const view = presigned(zone);
  if (dnssec && view) secure(zone, view, r, 1800000000);
  return r;
}

/** "owner TYPE" of each RRset of a section; an RRSIG set with the types it covers. */
const sets = (entries: Entry[]): string[] =>
  entries.map((e) => {
    const owner = e.owner ? e.owner.join('.') : e.set.owner;
    const type = dnsTypes.toString(e.set.type);
    if (type !== 'RRSIG') return `${owner} ${type}`;
    const covered = e.set.items.map((i) => dnsTypes.toString(((i as string).charCodeAt(0) << 8) | (i as string).charCodeAt(1)));
    return `${owner} RRSIG(${covered.join(',')}) ttl ${e.ttl ?? e.set.ttl}`;
  });

describe('a presigned zone in memory', () => {
  const { zone, nsec3Owners } = signedZone(true);
  const hashed = (name: string) => `${base32hex(hashOf(name)).toLowerCase()}.${Z}`;

  it('keeps its NSEC3 owner names apart from the others: they exist, the wildcard still answers every other name', () => {
    const owner = nsec3Owners[0] as string;
    expect(ask(zone, owner, 'A', false)).toMatchObject({ rcode: 0, answer: [] });
    expect(sets(ask(zone, owner, 'NSEC3', false).answer)).toEqual([`${owner} NSEC3`]);
    expect(sets(ask(zone, `nothere.${Z}`, 'A', false).answer)).toEqual([`nothere.${Z} A`]);
    expect(sets(ask(zone, `www.${Z}`, 'A', false).answer)).toEqual([`www.${Z} A`]);
  });

  it('answers with DO with the RRSIG records of each RRset only, at its TTL; a wildcard with those at the wildcard', () => {
    expect(sets(ask(zone, `www.${Z}`, 'A', true).answer)).toEqual([`www.${Z} A`, `www.${Z} RRSIG(A) ttl 120`]);
    expect(sets(ask(zone, `alias.${Z}`, 'A', true).answer)).toEqual([`alias.${Z} CNAME`, `alias.${Z} RRSIG(CNAME) ttl 3600`, `www.${Z} A`, `www.${Z} RRSIG(A) ttl 120`]);
    const wild = ask(zone, `a.b.${Z}`, 'A', true);
    expect(sets(wild.answer)).toEqual([`a.b.${Z} A`, `a.b.${Z} RRSIG(A) ttl 3600`]);
    // The next closer name (b.example.com) covered.
    expect(sets(wild.authority).filter((s) => s.endsWith('NSEC3'))).toHaveLength(1);
  });

  it('sends the RRSIG records of an ANY answer once', () => {
    expect(sets(ask(zone, `www.${Z}`, 'ANY', true).answer)).toEqual([`www.${Z} A`, `www.${Z} AAAA`, `www.${Z} RRSIG(A,AAAA) ttl 120`]);
  });

  it("proves NODATA with the name's own NSEC3 record", () => {
    const r = ask(zone, `www.${Z}`, 'TXT', true);
    expect(sets(r.authority)).toEqual([`${Z} SOA`, `${Z} RRSIG(SOA) ttl 300`, `${hashed(`www.${Z}`)} NSEC3`, `${hashed(`www.${Z}`)} RRSIG(NSEC3) ttl 300`]);
  });

  it('proves what an opt-out chain leaves out with the closest provable encloser: the apex, and the record covering the delegation', () => {
    for (const r of [ask(zone, `sub.${Z}`, 'DS', true), ask(zone, `host.sub.${Z}`, 'A', true)]) {
      const nsec3 = sets(r.authority).filter((s) => s.endsWith('NSEC3'));
      expect(nsec3).toHaveLength(2);
      expect(nsec3).toContain(`${hashed(Z)} NSEC3`);
    }
  });

  it('without a chain, sends signatures and no proof; unsigned zones get no view', () => {
    const bare = signedZone(false).zone;
    const r = ask(bare, `nothere.${Z}.`, 'TXT', true);
    expect(r.answer).toEqual([]);
    expect(sets(r.authority)).toEqual([`${Z} SOA`, `${Z} RRSIG(SOA) ttl 300`]);
    const plain = buildZone(2, { soa: rr(Z, 'SOA', { mname: `ns.${Z}`, rname: `h.${Z}`, serial: 1, refresh: 1, retry: 1, expire: 1, minimum: 1 }), answers: [] }, 0, () => undefined);
    expect(presigned(plain)).toBeUndefined();
  });
});
