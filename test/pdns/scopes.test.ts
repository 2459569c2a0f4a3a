/**
 * API key scopes on the PowerDNS door: a key limited to some domains, a read-only key, a key for some records
 * and a key for some networks see and change through the door exactly what they may on interface B — each
 * request below is made on both doors with the same key, and the outcome (allowed, refused with 403, hidden as
 * 404, not authenticated 401) must be the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';
import { call } from '../v1/support.js';
import { pdns, pdnsZone, rrset, rrsetLines } from './support.js';

const PASSWORD = 'correct horse battery staple';

let server: TestServer;
let full: string;
let ids: { a: number; b: number };

async function scoped(scope: unknown): Promise<string> {
  return (await server.services.accounts.issueKey('scopes', PASSWORD, { label: 'scoped', scope })).key;
}

beforeAll(async () => {
  server = await startTestServer();
  full = (await server.user('scopes', PASSWORD)).key;
  await pdnsZone(server.base, full, 'a.example');
  await pdnsZone(server.base, full, 'b.example');
  const domains = (await call(server.base, 'GET', '/v1/domains', { key: full })).body as { id: number; domain: string }[];
  ids = { a: domains.find((d) => d.domain === 'a.example')?.id as number, b: domains.find((d) => d.domain === 'b.example')?.id as number };
});
afterAll(() => server.close());

/** What a status means to a scope: allowed, refused, hidden or not authenticated. */
const outcome = (status: number) => (status < 300 ? 'allowed' : status === 403 ? 'refused' : status === 404 ? 'hidden' : status === 401 ? 'unauthenticated' : `other ${status}`);

interface Row {
  what: string;
  /** Made anew for each key: every write asks for something the zone does not hold yet. */
  door: () => [method: string, path: string, body?: unknown];
  v1: [method: string, path: () => string, body?: unknown];
}

/** Makes each write's content new. */
let n = 0;

const ROWS: Row[] = [
  { what: 'read zone a', door: () => ['GET', '~/zones/a.example.'], v1: ['GET', () => `/v1/domains/${ids.a}`] },
  { what: 'read zone b', door: () => ['GET', '~/zones/b.example.'], v1: ['GET', () => `/v1/domains/${ids.b}`] },
  {
    what: 'an _acme-challenge TXT in a',
    door: () => ['PATCH', '~/zones/a.example.', { rrsets: [rrset('_acme-challenge.a.example.', 'TXT', [`"t${++n}"`], 300)] }],
    v1: ['POST', () => `/v1/domains/${ids.a}/TXT`, { name: '_acme-challenge', text: 't2', ttl: 300 }],
  },
  {
    what: 'an A record in a',
    door: () => ['PATCH', '~/zones/a.example.', { rrsets: [rrset('www.a.example.', 'A', [`192.0.2.${++n}`])] }],
    v1: ['POST', () => `/v1/domains/${ids.a}/A`, { name: 'www2', address: '192.0.2.1' }],
  },
  {
    what: 'an A record in b',
    door: () => ['PATCH', '~/zones/b.example.', { rrsets: [rrset('www.b.example.', 'A', [`192.0.2.${++n}`])] }],
    v1: ['POST', () => `/v1/domains/${ids.b}/A`, { name: 'www2', address: '192.0.2.1' }],
  },
  { what: 'a new zone', door: () => ['POST', '~/zones', { name: 'new-door.example.', kind: 'Native', nameservers: [] }], v1: ['POST', () => '/v1/domains', { domain: 'new-b.example', soa: 'h@example.com' }] },
  { what: "zone a's DNSSEC", door: () => ['POST', '~/zones/a.example./cryptokeys', { keytype: 'csk', active: true }], v1: ['PUT', () => `/v1/domains/${ids.a}/dnssec`, { enabled: true }] },
  { what: 'a TSIG key', door: () => ['POST', '~/tsigkeys', { name: 'scoped-door.key' }], v1: ['POST', () => '/v1/tsigkeys', { name: 'scoped-b.key' }] },
];

describe('scoped API keys on the PowerDNS door', () => {
  it.each([
    ['domains: [a]', () => ({ domains: [ids.a] }), ['allowed', 'hidden', 'allowed', 'allowed', 'hidden', 'refused', 'allowed', 'allowed']],
    ['read_only', () => ({ read_only: true }), ['allowed', 'allowed', 'refused', 'refused', 'refused', 'refused', 'refused', 'refused']],
    ['records: _acme-challenge TXT', () => ({ records: { names: ['_acme-challenge'], types: ['TXT'] } }), ['allowed', 'allowed', 'allowed', 'refused', 'refused', 'refused', 'refused', 'refused']],
    ['subnets: 10.0.0.0/8', () => ({ subnets: ['10.0.0.0/8'] }), Array(8).fill('unauthenticated')],
  ] as const)('a key with %s sees and changes what it may on interface B', async (_name, scope, expected) => {
    const key = await scoped(scope());
    const got: string[] = [];
    for (const row of ROWS) {
      const door = await pdns(server.base, key, ...row.door());
      const v1 = await call(server.base, row.v1[0], row.v1[1](), { key, ...(row.v1[2] === undefined ? {} : { body: row.v1[2] }) });
      expect(outcome(door.status), `${row.what} on the door (${door.text}) vs interface B (${v1.text})`).toBe(outcome(v1.status));
      expect(Object.keys(door.body ?? {}).includes('error') || door.status < 300, door.text).toBe(true);
      got.push(outcome(door.status));
    }
    expect(got).toEqual(expected);
    // Clean up what an allowed key made, so the next key meets the same zones.
    for (const zone of ['new-door.example', 'new-b.example']) await pdns(server.base, full, 'DELETE', `~/zones/${zone}.`);
    for (const name of ['scoped-door.key', 'scoped-b.key']) await pdns(server.base, full, 'DELETE', `~/tsigkeys/${name}.`);
    await call(server.base, 'PUT', `/v1/domains/${ids.a}/dnssec`, { key: full, body: { enabled: false } });
  });

  it('lists only the zones a domains scope allows, and a refused PATCH changes nothing', async () => {
    const key = await scoped({ domains: [ids.a] });
    expect((await pdns(server.base, key, 'GET', '~/zones')).body.map((z: any) => z.name)).toEqual(['a.example.']);
    const records = await scoped({ records: { names: ['_acme-challenge'], types: ['TXT'] } });
    const before = await rrsetLines(server.base, full, 'a.example');
    const r = await pdns(server.base, records, 'PATCH', '~/zones/a.example.', { rrsets: [rrset('_acme-challenge.a.example.', 'TXT', ['"ok"']), rrset('mail.a.example.', 'A', ['192.0.2.25'])] });
    expect(r.status).toBe(403);
    expect(await rrsetLines(server.base, full, 'a.example')).toEqual(before);
  });
});
