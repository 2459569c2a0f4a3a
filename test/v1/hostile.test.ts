/**
 * Property-based hostile input against interface B: whatever arrives (paths, methods, query strings,
 * bodies, content types, credentials), the answer is a well-formed problem document or a valid success,
 * never a 5xx; afterwards the store's invariants hold and every stored object still renders through its schema.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_TYPE_NAMES, RECORD_TYPES } from '../../src/model/records/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { checkAllZones } from '../support/zonefile.js';
import { client, type Client } from './support.js';
import { peers } from '../support/peers.js';

const needsNamedCheckzone = peers('named-checkzone');

let server: TestServer;
let key: string;
let api: Client;
let domainId: number;
let recordId: number;

beforeAll(async () => {
  server = await startTestServer();
  await server.user('alice');
  // Requests use a key whose id (5) is none of the ids the generators aim at, so random DELETEs of
  // /v1/keys/{id} do not lock the rest of the run out.
  for (let i = 0; i < 4; i++) key = (await server.services.accounts.issueKey('alice', 'correct horse battery staple')).key;
  api = client(server.base, key);
  domainId = (await api.post('/v1/domains', { domain: 'hostile.example', soa: 'h@hostile.example' })).body.id;
  recordId = (await api.post(`/v1/domains/${domainId}/A`, { name: 'www', address: '192.0.2.1' })).body.id;
});
afterAll(() => server.close());

const HOSTILE = [
  "' OR 1=1 --", '"; DROP TABLE domains; --', '<script>alert(1)</script>', '../../etc/passwd', '%00', '\u0000', '\u202e', '\ud83d\ude00', '\ud800',
  '9'.repeat(400), '-1', '-9223372036854775809', '1e308', 'NaN', 'Infinity', '0x10', ' 5 ', '[remote_addr]', '*', '.', '..', '@', '',
  'a'.repeat(70) + '.example', 'hostile.example', 'x.hostile.example.', '192.0.2.1', '::1', 'a@hostile.example',
];
const FIELDS = [
  'domain', 'soa', 'default_ttl', 'status', 'axfr', 'masters', 'name', 'address', 'target', 'priority', 'weight', 'port', 'service',
  'protocol', 'text', 'mail_server', 'nameserver', 'ttl', 'username', 'password', 'label', 'expires', 'id', 'type', 'transfer', 'constructor',
];

/** Percent-encodes; a lone surrogate becomes the bytes of one (broken UTF-8 is hostile input too). */
const enc = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80';
  }
};

const id = () =>
  fc.oneof(
    // The ids exist only once beforeAll ran: read them when a value is generated.
    fc.constantFrom(() => String(domainId), () => String(recordId)).map((f) => f()),
    fc.constantFrom('0', '-1', '999999', '1.5', '1e3', 'abc', '%00', '%2F', '9'.repeat(40), ''),
    fc.string({ maxLength: 10 }).map(enc),
  );
const typeSegment = fc.oneof(fc.constantFrom(...RECORD_TYPE_NAMES, 'records', 'queries', 'a', 'CAA', 'PTR'), fc.string({ maxLength: 8 }).map(enc));
const path = fc.oneof(
  fc.constantFrom('/v1/domains', '/v1/zonemirrors', '/v1/keys', '/v1/events', '/v1', '/v1/', '/v1/openapi.json'),
  id().map((i) => `/v1/domains/${i}`),
  id().map((i) => `/v1/zonemirrors/${i}`),
  id().map((i) => `/v1/keys/${i}`),
  fc.tuple(id(), typeSegment).map(([i, t]) => `/v1/domains/${i}/${t}`),
  fc.tuple(id(), typeSegment, id()).map(([i, t, r]) => `/v1/domains/${i}/${t}/${r}`),
  fc.string({ maxLength: 20 }).map((s) => `/v1/${enc(s)}`),
);
const scalar = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 10 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 5 }), fc.jsonValue({ maxDepth: 3 }));
const query = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom('limit', 'after', 'name', 'type', 'domain'), fc.string({ maxLength: 6 })), fc.oneof(fc.constantFrom(...HOSTILE), fc.integer().map(String))), { maxLength: 4 })
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')}` : ''));
const body = fc.oneof(
  fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 8 })), value, { maxKeys: 8 }).map((o) => JSON.stringify(o)),
  fc.json({ maxDepth: 4 }),
  fc.string({ maxLength: 60 }),
  fc.constantFrom('{', '['.repeat(3000) + ']'.repeat(3000), '{"a":1}{"b":2}', '\u0000', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}', ''),
);
const request = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
  path,
  query,
  body: fc.option(body, { nil: undefined }),
  contentType: fc.constantFrom('application/json', 'application/merge-patch+json', 'text/plain', 'application/x-www-form-urlencoded', undefined, 'application/json; charset=latin1'),
  auth: fc.constantFrom('bearer', 'basic', 'none', 'garbage'),
  ifMatch: fc.option(fc.constantFrom('*', '"x"', 'W/"x"', ''), { nil: undefined }),
});

// Bodies close to valid ones (the registry's field names, plausible values, one hostile here and there),
// so that the services' own rules are exercised too, not only the schemas.
const plausible = fc.oneof(
  fc.constantFrom('www', '', '@', '*.w', '_sip', 'sub.hostile.example.', '192.0.2.7', '2001:db8::7', 'mail.hostile.example', 'tcp', 'udp', 'sip', 'v=spf1 -all', 'h.example', 'issue', 'iodef', 'letsencrypt.org; validationmethods=dns-01', 'mailto:a@h.example'),
  fc.integer({ min: 0, max: 70000 }),
  scalar,
);
const nearValid = fc.oneof(
  ...RECORD_TYPES.map((t) =>
    fc
      .record(Object.fromEntries(Object.keys(t.v1Fields).map((f) => [f, plausible])), { requiredKeys: [...t.v1Required] })
      .map((b) => ({ path: `/v1/domains/${domainId}/${t.type}`, body: JSON.stringify(b) })),
  ),
  fc
    .record({ domain: fc.oneof(fc.constantFrom('n1.example', 'n2.example', 'hostile.example'), scalar), soa: fc.oneof(fc.constant('a@n.example'), scalar), default_ttl: plausible, status: fc.oneof(fc.constantFrom('active', 'inactive'), scalar), axfr: value, masters: value }, { requiredKeys: ['domain'] })
    .chain((b) => fc.constantFrom('/v1/domains', '/v1/zonemirrors').map((p) => ({ path: p, body: JSON.stringify(b) }))),
);
const nearValidRequest = fc.tuple(nearValid, fc.constantFrom('POST', 'PUT', 'PATCH')).map(([nv, method]) => ({
  // Collections take POST; a record of the test domain takes PUT and PATCH too.
  method: /\/(domains|zonemirrors)$/.test(nv.path) ? 'POST' : method,
  path: method !== 'POST' && !/\/(domains|zonemirrors)$/.test(nv.path) ? `${nv.path}/${recordId}` : nv.path,
  query: '',
  body: nv.body,
  contentType: 'application/json',
  auth: 'bearer',
  ifMatch: undefined,
}));
const anyRequest = fc.oneof(request, nearValidRequest);

type HostileRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

async function send(r: HostileRequest): Promise<Response> {
  const headers: Record<string, string> = {};
  if (r.auth === 'bearer') headers.authorization = `Bearer ${key}`;
  if (r.auth === 'basic') headers.authorization = `Basic ${Buffer.from(`u:${key}`).toString('base64')}`;
  if (r.auth === 'garbage') headers.authorization = 'Bearer \u00ff\u00fe';
  if (r.contentType && r.body !== undefined) headers['content-type'] = r.contentType;
  if (r.ifMatch !== undefined) headers['if-match'] = r.ifMatch;
  const withBody = r.body !== undefined && r.method !== 'GET' && r.method !== 'HEAD';
  return fetch(`${server.base}${r.path}${r.query}`, { method: r.method, headers, ...(withBody ? { body: r.body } : {}) });
}

async function expectWellFormed(r: HostileRequest, res: Response): Promise<void> {
  const label = `${r.method} ${r.path}${r.query}`;
  const text = await res.text();
  expect(res.status, `${label} -> ${text.slice(0, 300)}`).toBeLessThan(500);
  expect(text).not.toMatch(/\bat .*\.(js|ts):\d+/); // no stack trace
  if (res.status >= 400) {
    expect(res.headers.get('content-type'), label).toMatch(/^application\/problem\+json/);
    if (r.method === 'HEAD') return;
    const p = JSON.parse(text);
    expect(Object.keys(p).sort()).toEqual(['detail', 'errors', 'status', 'title', 'type']);
    expect(p.status).toBe(res.status);
    expect(p.errors.length).toBeGreaterThan(0);
    for (const e of p.errors) {
      expect(e.field === null || typeof e.field === 'string').toBe(true);
      expect(typeof e.reason).toBe('string');
    }
  } else if (text !== '') {
    expect(res.headers.get('content-type'), label).toMatch(/^(application\/json|text\/html|application\/javascript)/);
    if (/json/.test(res.headers.get('content-type') ?? '')) JSON.parse(text);
  }
}

describe('interface B under hostile input', () => {
  it('always answers a problem document or a well-formed success, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(anyRequest, async (r) => expectWellFormed(r as HostileRequest, await send(r as HostileRequest))),
      { numRuns: 500 },
    );
  }, 180_000);

  needsNamedCheckzone.it('leaves the store consistent, and every stored object still renders through its schema', async () => {
    const store = server.services.store;
    const before = new Map((await store.domainKeys()).map((d) => [d.id, d.serial]));
    await fc.assert(fc.asyncProperty(anyRequest, async (r) => expectWellFormed(r as HostileRequest, await send(r as HostileRequest))), { numRuns: 200 });
    const domains = await store.domainKeys();
    for (const d of domains) if (before.has(d.id)) expect(d.serial).toBeGreaterThanOrEqual(before.get(d.id)!);
    let reachable = 0;
    for (const d of domains) reachable += await store.countRecords(d.id);
    expect(await store.countAllRecords()).toBe(reachable);
    // Output validation turns a stored object that breaks its schema into a 500: none may. (A fresh key:
    // the random requests may have revoked the first one.)
    const issued = await server.services.accounts.issueKey('alice', 'correct horse battery staple');
    const reader = client(server.base, issued.key);
    for (const d of domains) {
      const urls = d.kind === 'master' ? [`/v1/domains/${d.id}`, `/v1/domains/${d.id}/records?limit=500`] : [`/v1/zonemirrors/${d.id}`];
      for (const url of urls) expect((await reader.get(url)).status, url).toBe(200);
    }
    // Every zone still exports as a master file BIND accepts.
    await checkAllZones(server);
  }, 180_000);
});
