/**
 * Lookups in one zone built in memory (no store, no sockets): each case is a question and the answer's
 * rcode, AA flag and the owner and type of every RRset in each section, in order.
 */
import * as dnsPacket from 'dns-packet';
import dnsTypes from 'dns-packet/types.js';
import { describe, expect, it } from 'vitest';
import { resolve } from '../../src/dns/zone/lookup.js';
import { parseQuery, type Query } from '../../src/dns/wire/query.js';
import type { Entry } from '../../src/dns/zone/result.js';
import { buildZone } from '../../src/dns/zone/zone.js';
import type { RecordFields } from '../../src/model/records/index.js';
import type { ZoneContent, ZoneRecord } from '../../src/model/zone.js';

const rr = (name: string, type: string, data: Record<string, unknown>): ZoneRecord => ({ name, type, ttl: 3600, data: data as RecordFields });

const content: ZoneContent = {
  soa: rr('example.com', 'SOA', { mname: 'ns1.example.com', rname: 'hostmaster.example.com', serial: 1, refresh: 3600, retry: 600, expire: 86400, minimum: 300 }),
  answers: [
    rr('example.com', 'NS', { nameserver: 'ns1.example.com' }),
    rr('example.com', 'NS', { nameserver: 'ns.other.test' }),
    rr('example.com', 'MX', { priority: 10, mail_server: 'mail.example.com' }),
    rr('ns1.example.com', 'A', { address: '192.0.2.53' }),
    rr('mail.example.com', 'A', { address: '192.0.2.25' }),
    rr('www.example.com', 'A', { address: '192.0.2.1' }),
    rr('www.example.com', 'AAAA', { address: '2001:db8::1' }),
    // b.c.example.com and c.example.com exist with no records (empty non-terminals).
    rr('a.b.c.example.com', 'TXT', { text: 'deep' }),
    // A delegation: one in-domain name server (required glue), one elsewhere in our zone (sibling glue), one outside.
    rr('sub.example.com', 'NS', { nameserver: 'ns1.sub.example.com' }),
    rr('sub.example.com', 'NS', { nameserver: 'ns.sibling.example.com' }),
    rr('sub.example.com', 'NS', { nameserver: 'ns.elsewhere.test' }),
    rr('ns1.sub.example.com', 'A', { address: '192.0.2.54' }),
    rr('ns.sibling.example.com', 'A', { address: '192.0.2.55' }),
    rr('*.example.com', 'A', { address: '192.0.2.100' }),
    rr('*.example.com', 'TXT', { text: 'wild' }),
    rr('alias.example.com', 'CNAME', { target: 'www.example.com' }),
    rr('alias2.example.com', 'CNAME', { target: 'alias.example.com' }),
    rr('loop1.example.com', 'CNAME', { target: 'loop2.example.com' }),
    rr('loop2.example.com', 'CNAME', { target: 'loop1.example.com' }),
    rr('out.example.com', 'CNAME', { target: 'www.other.test' }),
    rr('deleg.example.com', 'CNAME', { target: 'host.sub.example.com' }),
    rr('dangling.example.com', 'CNAME', { target: 'gone.www.example.com' }),
    rr('towild.example.com', 'CNAME', { target: 'anything.example.com' }),
  ],
};

const skipped: string[] = [];
const zone = buildZone(1, content, null, (why) => skipped.push(why));

function query(name: string, type: string): Query {
  const q = parseQuery(dnsPacket.encode({ type: 'query', id: 1, questions: [{ name, type: type as dnsPacket.RecordType, class: 'IN' }] }));
  if (!q || 'malformed' in q) throw new Error(`unusable query for ${name} ${type}`);
  return q;
}

/** "owner TYPE" of each RRset of a section, owner as written in the answer. */
const sets = (entries: Entry[]): string[] => entries.map((e) => `${e.owner ? e.owner.join('.') : e.set.owner} ${dnsTypes.toString(e.set.type)}`);

interface Case {
  name: string;
  qtype: string;
  rcode: 'NOERROR' | 'NXDOMAIN';
  aa: boolean;
  answer: readonly string[];
  authority: readonly string[];
  additional: readonly string[];
}

const SOA = 'example.com SOA';
const REFERRAL = { rcode: 'NOERROR', aa: false, answer: [], authority: ['sub.example.com NS'], additional: ['ns1.sub.example.com A', 'ns.sibling.example.com A'] } as const;

const cases: Record<string, Case> = {
  'exact match': { name: 'www.example.com', qtype: 'A', rcode: 'NOERROR', aa: true, answer: ['www.example.com A'], authority: [], additional: [] },
  'apex SOA': { name: 'example.com', qtype: 'SOA', rcode: 'NOERROR', aa: true, answer: [SOA], authority: [], additional: [] },
  'apex NS with the in-zone server address': { name: 'example.com', qtype: 'NS', rcode: 'NOERROR', aa: true, answer: ['example.com NS'], authority: [], additional: ['ns1.example.com A'] },
  'MX with the mail server address': { name: 'example.com', qtype: 'MX', rcode: 'NOERROR', aa: true, answer: ['example.com MX'], authority: [], additional: ['mail.example.com A'] },
  'NODATA: the name exists without the type': { name: 'www.example.com', qtype: 'MX', rcode: 'NOERROR', aa: true, answer: [], authority: [SOA], additional: [] },
  'NXDOMAIN: nothing at or below the name, no wildcard': { name: 'gone.www.example.com', qtype: 'A', rcode: 'NXDOMAIN', aa: true, answer: [], authority: [SOA], additional: [] },
  'empty non-terminal: NODATA, not NXDOMAIN': { name: 'b.c.example.com', qtype: 'A', rcode: 'NOERROR', aa: true, answer: [], authority: [SOA], additional: [] },
  'empty non-terminal next to the apex': { name: 'c.example.com', qtype: 'TXT', rcode: 'NOERROR', aa: true, answer: [], authority: [SOA], additional: [] },
  'below an empty non-terminal: NXDOMAIN': { name: 'x.b.c.example.com', qtype: 'A', rcode: 'NXDOMAIN', aa: true, answer: [], authority: [SOA], additional: [] },
  'delegation: referral with NS in authority, AA clear': { name: 'host.sub.example.com', qtype: 'A', ...REFERRAL },
  'delegation point itself': { name: 'sub.example.com', qtype: 'A', ...REFERRAL },
  'NS at the delegation point: a referral, not an answer': { name: 'sub.example.com', qtype: 'NS', ...REFERRAL },
  'glue: the in-domain server required, the sibling after it': { name: 'ns1.sub.example.com', qtype: 'A', ...REFERRAL },
  'DS at the delegation point answered by the parent': { name: 'sub.example.com', qtype: 'DS', rcode: 'NOERROR', aa: true, answer: [], authority: [SOA], additional: [] },
  'DS below the delegation point: a referral': { name: 'host.sub.example.com', qtype: 'DS', ...REFERRAL },
  'wildcard synthesis': { name: 'nothere.example.com', qtype: 'A', rcode: 'NOERROR', aa: true, answer: ['nothere.example.com A'], authority: [], additional: [] },
  'wildcard synthesis several labels down': { name: 'x.y.example.com', qtype: 'TXT', rcode: 'NOERROR', aa: true, answer: ['x.y.example.com TXT'], authority: [], additional: [] },
  'wildcard without the type: NODATA': { name: 'nothere.example.com', qtype: 'MX', rcode: 'NOERROR', aa: true, answer: [], authority: [SOA], additional: [] },
  'no wildcard at an existing name': { name: 'www.example.com', qtype: 'TXT', rcode: 'NOERROR', aa: true, answer: [], authority: [SOA], additional: [] },
  'no wildcard at an empty non-terminal': { name: 'c.example.com', qtype: 'A', rcode: 'NOERROR', aa: true, answer: [], authority: [SOA], additional: [] },
  'no wildcard below an existing name': { name: 'x.www.example.com', qtype: 'A', rcode: 'NXDOMAIN', aa: true, answer: [], authority: [SOA], additional: [] },
  'no wildcard under a delegation': { name: 'nothere.sub.example.com', qtype: 'A', ...REFERRAL },
  'CNAME chain inside the zone': {
    name: 'alias2.example.com', qtype: 'A', rcode: 'NOERROR', aa: true,
    answer: ['alias2.example.com CNAME', 'alias.example.com CNAME', 'www.example.com A'], authority: [], additional: [],
  },
  'CNAME asked for: not followed': { name: 'alias2.example.com', qtype: 'CNAME', rcode: 'NOERROR', aa: true, answer: ['alias2.example.com CNAME'], authority: [], additional: [] },
  'CNAME chain to a name without the type: NODATA': {
    name: 'alias.example.com', qtype: 'MX', rcode: 'NOERROR', aa: true, answer: ['alias.example.com CNAME'], authority: [SOA], additional: [],
  },
  'CNAME to a name that does not exist: NXDOMAIN after the CNAME': {
    name: 'dangling.example.com', qtype: 'A', rcode: 'NXDOMAIN', aa: true, answer: ['dangling.example.com CNAME'], authority: [SOA], additional: [],
  },
  'CNAME to a wildcard name': {
    name: 'towild.example.com', qtype: 'A', rcode: 'NOERROR', aa: true, answer: ['towild.example.com CNAME', 'anything.example.com A'], authority: [], additional: [],
  },
  'CNAME loop: each alias once, then stop': {
    name: 'loop1.example.com', qtype: 'A', rcode: 'NOERROR', aa: true, answer: ['loop1.example.com CNAME', 'loop2.example.com CNAME'], authority: [], additional: [],
  },
  'CNAME to an out-of-zone target: the chain stops': { name: 'out.example.com', qtype: 'A', rcode: 'NOERROR', aa: true, answer: ['out.example.com CNAME'], authority: [], additional: [] },
  'CNAME into a delegated name: the referral follows, AA for the alias': {
    name: 'deleg.example.com', qtype: 'A', rcode: 'NOERROR', aa: true,
    answer: ['deleg.example.com CNAME'], authority: ['sub.example.com NS'], additional: ['ns1.sub.example.com A', 'ns.sibling.example.com A'],
  },
  'ANY: every set at the name': { name: 'www.example.com', qtype: 'ANY', rcode: 'NOERROR', aa: true, answer: ['www.example.com A', 'www.example.com AAAA'], authority: [], additional: [] },
  'ANY at an alias: the CNAME, not followed': { name: 'alias.example.com', qtype: 'ANY', rcode: 'NOERROR', aa: true, answer: ['alias.example.com CNAME'], authority: [], additional: [] },
  'ANY at an empty non-terminal: NODATA': { name: 'c.example.com', qtype: 'ANY', rcode: 'NOERROR', aa: true, answer: [], authority: [SOA], additional: [] },
};

describe('lookup in one zone', () => {
  it('builds the zone with every record, and no name above its apex', () => {
    expect(skipped).toEqual([]);
    expect([...zone.nodes.keys()].filter((k) => !k.endsWith('example.com'))).toEqual([]);
  });

  it.each(Object.entries(cases))('%s', (_, c) => {
    const r = resolve(zone, query(c.name, c.qtype));
    expect({ rcode: r.rcode, aa: r.aa, answer: sets(r.answer), authority: sets(r.authority), additional: sets(r.additional) }).toEqual({
      rcode: c.rcode === 'NOERROR' ? 0 : 3,
      aa: c.aa,
      answer: c.answer,
      authority: c.authority,
      additional: c.additional,
    });
  });

  it('marks in-domain glue required and sibling glue optional', () => {
    const r = resolve(zone, query('host.sub.example.com', 'A'));
    expect(r.additional.map((e) => [e.set.owner, e.required])).toEqual([
      ['ns1.sub.example.com', true],
      ['ns.sibling.example.com', false],
    ]);
  });

  it('gives negative answers the SOA at min(SOA TTL, MINIMUM)', () => {
    for (const name of ['gone.www.example.com', 'www.example.com']) {
      const r = resolve(zone, query(name, 'MX'));
      expect(r.authority.map((e) => e.ttl)).toEqual([300]);
    }
  });

  it('answers with the owner as asked, letter case included', () => {
    const r = resolve(zone, query('NotHere.Example.COM', 'A'));
    expect(sets(r.answer)).toEqual(['NotHere.Example.COM A']);
  });
});
