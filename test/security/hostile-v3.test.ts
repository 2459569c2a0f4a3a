/**
 * Property-based hostile input against interface A: whatever arrives, the answer is a well-formed
 * envelope with HTTP 200, and afterwards the store's invariants still hold.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, v3, type TestServer } from '../support/server.js';
import { checkAllZones } from '../support/zonefile.js';
import { peers } from '../support/peers.js';

const needsNamedCheckzone = peers('named-checkzone');

let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  key = (await server.user('alice')).key;
  await v3(server.base, { api_action: 'domain.create', api_key: key, Domain: 'hostile.example', Type: 'master', SOA_Email: 'h@hostile.example' });
});
afterAll(() => server.close());

const ACTIONS = [
  'domain.create', 'domain.update', 'domain.delete', 'domain.list', 'domain.resource.create', 'domain.resource.update',
  'domain.resource.delete', 'domain.resource.list', 'domain.resources.list', 'test.echo', 'api.spec', 'user.getapikey', 'batch',
];
const PARAMS = [
  'DomainID', 'ResourceID', 'Domain', 'Type', 'SOA_Email', 'Name', 'Target', 'Priority', 'Weight', 'Port', 'Protocol', 'TTL_sec',
  'status', 'master_ips', 'axfr_ips', 'Refresh_sec', 'Expire_sec', 'Retry_sec', 'Description', 'lpm_displayGroup',
  'username', 'password', 'expires', 'label', 'api_requestArray',
];
const HOSTILE = [
  "' OR 1=1 --", '"; DROP TABLE domains; --', '<script>alert(1)</script>', '../../etc/passwd', '%00', '\u0000', '\u202e', '\ud83d\ude00',
  '9'.repeat(400), '-1', '-9223372036854775809', '1e308', 'NaN', 'Infinity', '0x10', ' 5 ', '[remote_addr]', '*', '.', '..', '@',
  'a'.repeat(70) + '.example', '[{"api_action":"domain.delete","DomainID":1}]', '[' + '['.repeat(5000), '{"__proto__":{"x":1}}',
];

const caseVariant = (name: string) => fc.constantFrom(name, name.toLowerCase(), name.toUpperCase());
const value = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer().map(String),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  fc.constantFrom('1', '2'), // the test domain's ID, and one that does not exist
);
const request = fc.record({
  action: fc.oneof(fc.constantFrom(...ACTIONS).chain(caseVariant), fc.string({ maxLength: 30 })),
  params: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...PARAMS).chain(caseVariant), fc.string({ maxLength: 12 })), value), { maxLength: 8 }),
  method: fc.constantFrom('GET', 'POST-form', 'POST-multipart'),
  authed: fc.boolean(),
});

type HostileRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

async function send(r: HostileRequest): Promise<Response> {
  const pairs: [string, string][] = [['api_action', r.action], ...(r.authed ? [['api_key', key] as [string, string]] : []), ...r.params];
  if (r.method === 'GET') {
    const qs = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
    return fetch(`${server.base}/api/?${qs}`);
  }
  if (r.method === 'POST-form') {
    return fetch(`${server.base}/api/`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(pairs).toString() });
  }
  const form = new FormData();
  for (const [k, v] of pairs) form.append(k, v);
  return fetch(`${server.base}/api/`, { method: 'POST', body: form });
}

describe('interface A under hostile input', () => {
  it('always answers a well-formed envelope with HTTP 200', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const res = await send(r);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/json;charset=UTF-8');
        const text = await res.text();
        expect(text).not.toMatch(/\bat .*\.(js|ts):\d+/); // no stack trace
        const body = JSON.parse(text);
        const envelopes = Array.isArray(body) ? body : [body];
        for (const env of envelopes) {
          expect(Object.keys(env).sort()).toEqual(['ACTION', 'DATA', 'ERRORARRAY']);
          expect(Array.isArray(env.ERRORARRAY)).toBe(true);
          expect(typeof env.ACTION).toBe('string');
          for (const e of env.ERRORARRAY) {
            expect(Number.isInteger(e.ERRORCODE)).toBe(true);
            expect(typeof e.ERRORMESSAGE).toBe('string');
          }
          if (env.ERRORARRAY.length > 0) expect(env.DATA).toEqual({});
        }
      }),
      { numRuns: 400 },
    );
  }, 120_000);

  it('answers broken bodies in the envelope', async () => {
    const cases: RequestInit[] = [
      { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated' },
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '%E0%A4%A=%ZZ&api_action=test.echo' },
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"api_action": "domain.list"' },
      { method: 'POST', headers: { 'content-type': 'text/xml' }, body: '<x/>' },
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: Buffer.from([0xff, 0xfe, 0x00, 0x41]) },
    ];
    for (const init of cases) {
      const res = await fetch(`${server.base}/api/?api_action=test.echo&api_key=${key}`, init);
      expect(res.status, String(init.headers && JSON.stringify(init.headers))).toBe(200);
      const body = (await res.json()) as { ERRORARRAY: unknown[] };
      expect(Array.isArray(body.ERRORARRAY)).toBe(true);
    }
  });

  needsNamedCheckzone.it('leaves the store consistent: no orphan records, serials never lower than before', async () => {
    const store = server.services.store;
    const before = new Map((await store.domainKeys()).map((d) => [d.id, d.serial]));
    await fc.assert(fc.asyncProperty(request, async (r) => void (await (await send(r)).text())), { numRuns: 150 });
    const domains = await store.domainKeys();
    for (const d of domains) if (before.has(d.id)) expect(d.serial).toBeGreaterThanOrEqual(before.get(d.id)!);
    // No orphans: every record in the store belongs to a domain that exists.
    let reachable = 0;
    for (const d of domains) reachable += await store.countRecords(d.id);
    expect(await store.countAllRecords()).toBe(reachable);
    // Every zone still exports as a master file BIND accepts.
    await checkAllZones(server);
  }, 120_000);
});
