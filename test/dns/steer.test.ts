/**
 * Steered answers in a zone built in memory (no store, no sockets): which records each client gets, the ECS
 * scope, fail open, weights, several CNAMEs; and what a transfer carries of the same zone.
 */
import * as dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { resolve } from '../../src/dns/zone/lookup.js';
import { mayServeNothing, type SteeringClient } from '../../src/dns/zone/steer.js';
import { parseQuery, type Query } from '../../src/dns/wire/query.js';
import { buildZone, setOf } from '../../src/dns/zone/zone.js';
import { Problems } from '../../src/model/errors.js';
import type { RecordFields } from '../../src/model/records/index.js';
import { checkSteering, servedSteering, type Steering } from '../../src/model/steering.js';
import { transferred } from '../../src/model/steering-transfer.js';
import type { ZoneContent, ZoneRecord } from '../../src/model/zone.js';

const DOWN = new Set([7]);
const rr = (name: string, type: string, data: Record<string, unknown>, steering?: Steering): ZoneRecord => ({
  name,
  type,
  ttl: 300,
  data: data as RecordFields,
  ...(steering ? { steered: servedSteering(steering, DOWN) } : {}),
});
const a = (name: string, address: string, steering?: Steering) => rr(`${name}.example.com`, 'A', { address }, steering);

const content: ZoneContent = {
  soa: rr('example.com', 'SOA', { mname: 'ns1.example.com', rname: 'hostmaster.example.com', serial: 1, refresh: 3600, retry: 600, expire: 86400, minimum: 300 }),
  answers: [
    a('geo', '192.0.2.2', { subnets: ['127.0.0.2/32'] }),
    a('geo', '192.0.2.3', { subnets: ['127.0.0.3/32', '10.0.0.0/8'] }),
    a('geo', '192.0.2.99'),
    a('nested', '192.0.2.8', { subnets: ['10.0.0.0/8'] }),
    a('nested', '192.0.2.16', { subnets: ['10.1.0.0/16'] }),
    a('only', '192.0.2.50', { subnets: ['127.0.0.2/32'] }),
    a('health', '192.0.2.60', { healthcheck: 7 }),
    a('health', '192.0.2.61', { healthcheck: 8 }),
    a('allDown', '192.0.2.70', { healthcheck: 7 }),
    a('allDown', '192.0.2.71', { healthcheck: 7 }),
    a('zero', '192.0.2.80', { weight: 0 }),
    a('zero', '192.0.2.81', { weight: 1 }),
    a('v6', '192.0.2.90', { subnets: ['2001:db8::/32'] }),
    a('v6', '192.0.2.91'),
    rr('cdn.example.com', 'CNAME', { target: 'geo.example.com' }, { weight: 1 }),
    rr('cdn.example.com', 'CNAME', { target: 'nested.example.com' }, { weight: 1 }),
  ],
};
const zone = buildZone(1, content, null, () => undefined);

function query(name: string, type = 'A'): Query {
  const q = parseQuery(dnsPacket.encode({ type: 'query', id: 1, questions: [{ name, type: type as dnsPacket.RecordType, class: 'IN' }] }));
  if (!q || 'malformed' in q) throw new Error(`unusable query for ${name}`);
  return q;
}

/** A client network: "10.1.2.0/24". */
function client(cidr: string): SteeringClient {
  const [address, prefix] = cidr.split('/');
  const bytes = Uint8Array.from(address?.includes(':') ? Buffer.from((address as string).replace('::', ':0:0:0:0:0:').split(':').slice(0, 8).map((w) => w.padStart(4, '0')).join(''), 'hex') : (address as string).split('.').map(Number));
  return { bytes, prefix: Number(prefix) };
}

/** The addresses answered and the scope, for `name` asked by `from`. */
function ask(name: string, from: string | null): { addresses: string[]; scope: number | undefined } {
  const r = resolve(zone, query(`${name}.example.com`), undefined, () => (from ? client(from) : null));
  const addresses = r.answer.filter((e) => e.set.type === 1).flatMap((e) => e.set.items.map((i) => (typeof i === 'string' ? [...Buffer.from(i, 'latin1')].join('.') : String(i))));
  return { addresses: addresses.sort(), scope: r.steered?.scope };
}

describe('steered answers', () => {
  it.each([
    ['geo', '127.0.0.2/32', ['192.0.2.2'], 32],
    ['geo', '127.0.0.3/32', ['192.0.2.3'], 32],
    ['geo', '10.1.2.0/24', ['192.0.2.3'], 8],
    ['geo', '127.0.0.1/32', ['192.0.2.99'], 31],
    // 192 and both 127 and 10 part at the first bit.
    ['geo', '192.0.2.0/24', ['192.0.2.99'], 1],
    ['nested', '10.1.9.0/24', ['192.0.2.16'], 16],
    ['nested', '10.2.0.0/16', ['192.0.2.8'], 15],
    // A source prefix too short to say whether the client is in 10.1.0.0/16: only 10.0.0.0/8 can match.
    ['nested', '10.0.0.0/12', ['192.0.2.8'], 12],
    ['only', '127.0.0.1/32', [], 31],
    ['only', '127.0.0.2/32', ['192.0.2.50'], 32],
    ['v6', '10.0.0.0/8', ['192.0.2.91'], 0],
    ['v6', '2001:db8:1::/48', ['192.0.2.90'], 32],
  ] as const)('%s asked from %s gets %j, scope %d', (name, from, addresses, scope) => {
    expect(ask(name, from)).toEqual({ addresses: [...addresses], scope });
  });

  it('leaves out a record whose check is down, and serves all when all are down (fail open)', () => {
    expect(ask('health', '127.0.0.1/32').addresses).toEqual(['192.0.2.61']);
    expect(ask('allDown', '127.0.0.1/32').addresses).toEqual(['192.0.2.70', '192.0.2.71']);
  });

  it('never chooses weight 0 beside a weight above it', () => {
    for (let i = 0; i < 200; i++) expect(ask('zero', null).addresses).toEqual(['192.0.2.81']);
  });

  it('answers one of several CNAMEs, the same object each time it is chosen (signatures made once)', () => {
    const chosen = new Map<string, unknown>();
    for (let i = 0; i < 100; i++) {
      const r = resolve(zone, query('cdn.example.com'), undefined, () => client('127.0.0.1/32'));
      const cname = r.answer[0]?.set;
      expect(cname?.items).toHaveLength(1);
      const key = JSON.stringify(cname?.items[0]);
      if (chosen.has(key)) expect(chosen.get(key)).toBe(cname);
      chosen.set(key, cname);
    }
    expect(chosen.size).toBe(2);
  });

  it('marks plain answers as not steered', () => {
    expect(resolve(zone, query('example.com', 'SOA')).steered).toBeUndefined();
  });

  it('says which sets some clients get as NODATA (every record with subnets)', () => {
    expect(mayServeNothing(setOf(zone.nodes.get('only.example.com') ?? null, 1) as never)).toBe(true);
    expect(mayServeNothing(setOf(zone.nodes.get('geo.example.com') ?? null, 1) as never)).toBe(false);
  });
});

describe('what a transfer carries', () => {
  it('what a client no subnet matches gets, minus down records, every weighted one, one of several CNAMEs', () => {
    const out = transferred(content.answers).map((r) => `${r.name} ${r.type} ${JSON.stringify(r.data)}`);
    expect(out).toEqual([
      'geo.example.com A {"address":"192.0.2.99"}',
      'health.example.com A {"address":"192.0.2.61"}',
      'allDown.example.com A {"address":"192.0.2.70"}',
      'allDown.example.com A {"address":"192.0.2.71"}',
      'zero.example.com A {"address":"192.0.2.80"}',
      'zero.example.com A {"address":"192.0.2.81"}',
      'v6.example.com A {"address":"192.0.2.91"}',
      'cdn.example.com CNAME {"target":"geo.example.com"}',
    ]);
  });
});

describe('checkSteering', () => {
  it('normalises subnets and drops an empty object', () => {
    const p = new Problems();
    expect(checkSteering({ subnets: ['2001:DB8:0::/32', '10.0.0.0/8', '10.0.0.0/8'], weight: 0 }, p)).toEqual({ weight: 0, subnets: ['2001:db8::/32', '10.0.0.0/8'] });
    expect(checkSteering({}, p)).toBeNull();
    expect(p.empty).toBe(true);
  });

  it('names the network meant when host bits are set', () => {
    const p = new Problems();
    checkSteering({ subnets: ['10.1.2.3/8'] }, p);
    expect(p.list[0]?.message).toMatch(/did you mean "10\.0\.0\.0\/8"/);
  });
});
