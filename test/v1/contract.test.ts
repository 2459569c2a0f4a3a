/**
 * The published contract: /v1/openapi.json is a valid OpenAPI 3.1 document, and real responses of every
 * operation it lists (successes and errors) validate against the schemas it publishes for them.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_TYPE_NAMES } from '../../src/model/records/index.js';
import { startPrimary, type Knot } from '../support/knot.js';
import { totpCode } from '../support/oathtool.js';
import { startTestServer, v3, type TestServer } from '../support/server.js';
import { SoftPasskey } from '../support/webauthn.js';
import { call, client, type Client, type Reply } from './support.js';
import { peers } from '../support/peers.js';

// knotd: a primary to import from by AXFR; oathtool: the codes that turn TOTP on and off.
const needsPeers = peers('knotd', 'knotc', 'oathtool');

const addFormats = ((addFormatsModule as any).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

const PASSWORD = 'correct horse battery staple';
let server: TestServer;
let key: string;
let api: Client;
let doc: any;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
/** "METHOD template" of every operation answered with a 2xx and checked. */
const covered = new Set<string>();
const statusesSeen = new Set<number>();

/**
 * A knotd primary that the zone-file transfer imports from (allowed by importAllow), on an address of this file's
 * own: test/panel/zonefile.test.ts starts one on 127.0.38.2:53 while other files run.
 */
const PRIMARY = '127.0.44.2';
let primary: Knot | undefined;

beforeAll(async () => {
  server = await startTestServer({ importAllow: [`${PRIMARY}/32`] });
  ({ key } = await server.user('alice', PASSWORD));
  api = client(server.base, key);
  doc = (await call(server.base, 'GET', '/v1/openapi.json')).body;
});
afterAll(async () => {
  await primary?.stop();
  await server.close();
});

const operations = () =>
  Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
      .map((m) => ({ path, method: m.toUpperCase(), op: item[m] })),
  );

function templateOf(path: string): string {
  const clean = path.split('?')[0] as string;
  const hit = Object.keys(doc.paths).find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(clean));
  if (!hit) throw new Error(`no published path for ${clean}`);
  return hit;
}

/** Validates a real response against the schema the document publishes for its operation and status. */
function check(method: string, path: string, r: Reply): Reply {
  const template = templateOf(path);
  // A method the path does not have (405) is answered with the problem schema its operations publish.
  const op = doc.paths[template][method.toLowerCase()] ?? (r.status === 405 ? Object.values(doc.paths[template])[0] : undefined);
  expect(op, `${method} ${template} is published`).toBeDefined();
  const spec = op.responses[String(r.status)] ?? op.responses.default;
  expect(spec, `${method} ${path} answered ${r.status}, which is not published`).toBeDefined();
  statusesSeen.add(r.status);
  if (r.status === 204) expect(r.text).toBe('');
  else {
    const type = (r.headers.get('content-type') ?? '').split(';')[0] as string;
    const media = spec.content?.[type];
    expect(media, `${method} ${path} ${r.status} as ${type} is published`).toBeDefined();
    const validate = ajv.compile(media.schema);
    // JSON bodies are checked parsed; others (a zone file) as their text.
    const value = /json/.test(type) ? r.body : r.text;
    expect(validate(value), `${method} ${path} ${r.status}: ${JSON.stringify(validate.errors)}\n${r.text}`).toBe(true);
  }
  // Published headers are sent (Link only when another page follows).
  for (const h of Object.keys(spec.headers ?? {}).filter((h) => h !== 'Link')) expect(r.headers.get(h), `${method} ${path} ${r.status} ${h}`).not.toBeNull();
  if (r.status < 300) covered.add(`${method} ${template}`);
  return r;
}

async function run(method: string, path: string, body?: unknown, headers?: Record<string, string>, useKey = true): Promise<Reply> {
  return check(method, path, await call(server.base, method, path, { ...(useKey ? { key } : {}), ...(body === undefined ? {} : { body }), ...(headers ? { headers } : {}) }));
}

const SAMPLE: Record<string, object> = {
  A: { name: 'www', address: '192.0.2.1' },
  AAAA: { name: 'www', address: '2001:db8::1' },
  CNAME: { name: 'alias', target: 'www.contract.example' },
  MX: { mail_server: 'mx.contract.example', priority: 5 },
  NS: { name: 'sub', nameserver: 'ns1.elsewhere.example' },
  TXT: { name: '_t', text: 'hello' },
  SRV: { service: 'sip', protocol: 'udp', port: 5060, target: 'sip.contract.example' },
  CAA: { tag: 'issue', value: 'letsencrypt.org' },
  TLSA: { name: '_443._tcp.www', certificate_usage: 3, selector: 1, matching_type: 1, certificate_association_data: 'CA978112CA1BBDCAFAC231B39A23DC4DA786EFF8147C4E72B9807785AFEE48BB' },
  SSHFP: { name: 'host', algorithm: 4, fingerprint_type: 2, fingerprint: '3E23E8160039594A33894F6564E1B1348BBD7A0088D42C4ACB73EEAED59C009D' },
  PTR: { name: '10', ptrdname: 'host.contract.example' },
  NAPTR: { name: 'sip', order: 100, preference: 10, flags: 'S', services: 'SIP+D2U', replacement: '_sip._udp.contract.example' },
  // At NS's name: a delegation (the NS record is made first).
  DS: { name: 'sub', key_tag: 12345, algorithm: 13, digest_type: 2, digest: '2E7D2C03A9507AE265ECF5B5356885A53393A2029D241394997265A1A25AEFC6' },
  SVCB: { name: '_dns', svc_priority: 1, target_name: 'dns.contract.example', svc_params: { alpn: ['dot'], port: 853 } },
  HTTPS: { svc_priority: 1, target_name: '.', svc_params: { alpn: ['h2'], ech: 'AEX+DQBBpQAgACB/' } },
  ALIAS: { name: 'cdn', target: 'cdn.provider.example' },
};

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const res = await validator.validate(structuredClone(doc));
    expect(res.errors ?? [], JSON.stringify(res.errors)).toEqual([]);
    expect(res.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('publishes every route, each with a success schema and a problem schema', () => {
    const ops = operations();
    const expected = ['/v1/domains', '/v1/domains/{id}', '/v1/domains/{id}/records', '/v1/zonemirrors', '/v1/zonemirrors/{id}', '/v1/keys', '/v1/keys/{id}', '/v1/events', '/v1/tsigkeys', '/v1/tsigkeys/{id}'];
    for (const t of RECORD_TYPE_NAMES) expected.push(`/v1/domains/{id}/${t}`, `/v1/domains/{id}/${t}/{rid}`);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(expected));
    for (const { path, method, op } of ops) {
      expect(op.responses.default.content['application/problem+json'].schema, `${method} ${path}`).toBeDefined();
      const success = Object.keys(op.responses).filter((s) => /^2/.test(s));
      expect(success.length, `${method} ${path}`).toBe(1);
      const ok = op.responses[success[0] as string];
      expect(ok.description, `${method} ${path}`).not.toBe('Default Response');
      if (success[0] === '201') expect(Object.keys(ok.headers ?? {}), `${method} ${path}`).toContain('Location');
      if (method === 'GET' && path.endsWith('}')) expect(Object.keys(ok.headers ?? {}), `${method} ${path}`).toContain('ETag');
    }
    expect(doc.info.description).toMatch(/status/);
    expect(doc.components.securitySchemes).toMatchObject({ bearer: { scheme: 'bearer' }, basic: { scheme: 'basic' } });
  });
});

describe('output validation', () => {
  it('never sends a body that breaks its schema: data broken behind the API\'s back is a 500 problem', async () => {
    const d = await api.post('/v1/domains', { domain: 'broken.example', soa: 'a@broken.example' });
    const r = await api.post(`/v1/domains/${d.body.id}/MX`, { mail_server: 'mx.broken.example' });
    const rec = (await server.services.store.listRecords(d.body.id))[0]!;
    await server.services.store.updateRecord(rec.id, { ...rec, data: { ...rec.data, priority: -7 } }, Date.now());
    for (const url of [`/v1/domains/${d.body.id}/MX/${r.body.id}`, `/v1/domains/${d.body.id}/MX`, `/v1/domains/${d.body.id}/records`]) {
      const g = await api.get(url);
      expect(g.status, url).toBe(500);
      expect(g.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(g.text).not.toContain('-7');
    }
  });
});

describe('real responses match the published schemas', () => {
  needsPeers.it('for every operation, and for every error status', async () => {
    // Keys
    const k = await run('POST', '/v1/keys', { username: 'alice', password: PASSWORD, label: 'contract' }, undefined, false);
    expect(k.status).toBe(201);
    await run('GET', '/v1/keys');
    await run('GET', `/v1/keys/${k.body.id}`);

    // Domains, also one made through interface A in edit mode
    const d = await run('POST', '/v1/domains', { domain: 'contract.example', soa: 'a@contract.example', axfr: '' });
    const id = d.body.id;
    const a = await v3(server.base, { api_action: 'domain.create', api_key: key, Domain: 'legacy.example', Type: 'master', SOA_Email: 'a@legacy.example', status: 2, TTL_sec: 1 });
    await run('GET', `/v1/domains/${a.DATA.DomainID}`);
    await run('GET', '/v1/domains');
    await run('GET', `/v1/domains?name=contract.example&limit=1`);
    await run('GET', `/v1/domains/${id}`);
    await run('PUT', `/v1/domains/${id}`, { domain: 'contract.example', soa: 'b@contract.example', axfr: ['192.0.2.1'] });
    await run('PATCH', `/v1/domains/${id}`, { status: 'inactive' });

    // Records of every type, plus interface A records that v1 rules would not have accepted as input
    for (const t of RECORD_TYPE_NAMES) {
      const c = await run('POST', `/v1/domains/${id}/${t}`, SAMPLE[t]);
      expect(c.status, c.text).toBe(201);
      await run('GET', `/v1/domains/${id}/${t}`);
      await run('GET', `/v1/domains/${id}/${t}/${c.body.id}`);
      await run('PATCH', `/v1/domains/${id}/${t}/${c.body.id}`, { ttl: 300 });
      await run('PUT', `/v1/domains/${id}/${t}/${c.body.id}`, SAMPLE[t]);
    }
    const fromA: Record<string, string | number>[] = [
      { Type: 'SRV', Name: '_my_svc', Protocol: 'tcp', Target: 'x.example', Port: 1 },
      { Type: 'A', Name: '*.wild', Target: '[remote_addr]' },
    ];
    for (const args of fromA) {
      expect((await v3(server.base, { api_action: 'domain.resource.create', api_key: key, DomainID: id, ...args })).ERRORARRAY).toEqual([]);
    }
    await run('GET', `/v1/domains/${id}/records`);
    await run('GET', `/v1/domains/${id}/records?type=SRV&limit=1`);
    // Bulk changes: every op in successes, and a refused list (422)
    const bulk = await run('POST', `/v1/domains/${id}/changes`, {
      changes: [
        { op: 'create', type: 'A', name: 'bulk', address: '192.0.2.8' },
        { op: 'create', type: 'TXT', name: 'bulk', text: 'x' },
      ],
    });
    expect(bulk.status, bulk.text).toBe(200);
    const bulk2 = await run('POST', `/v1/domains/${id}/changes`, {
      changes: [
        { op: 'update', type: 'A', id: bulk.body.changes[0].id, ttl: 300 },
        { op: 'delete', type: 'TXT', id: bulk.body.changes[1].id },
      ],
    });
    expect(bulk2.status, bulk2.text).toBe(200);
    expect((await run('POST', `/v1/domains/${id}/changes`, { changes: [{ op: 'create', type: 'A', address: 'x' }] })).status).toBe(422);
    // Last type first: a type another needs (NS, for DS) goes after the records that need it.
    for (const t of [...RECORD_TYPE_NAMES].reverse()) {
      const list = await run('GET', `/v1/domains/${id}/${t}`);
      for (const r of list.body) await run('DELETE', `/v1/domains/${id}/${t}/${r.id}`);
    }

    // Zone mirrors, with transfer state
    const m = await run('POST', '/v1/zonemirrors', { domain: 'mirror-contract.example', masters: ['192.0.2.53'] });
    await server.services.mirrors.failed(m.body.id, 'refused');
    await run('GET', '/v1/zonemirrors');
    await run('GET', `/v1/zonemirrors/${m.body.id}`);
    await run('PUT', `/v1/zonemirrors/${m.body.id}`, { domain: 'mirror-contract.example', masters: ['192.0.2.54'] });
    await run('PATCH', `/v1/zonemirrors/${m.body.id}`, { axfr: ['2001:db8::1'] });
    await run('PATCH', `/v1/zonemirrors/${m.body.id}`, { tsig: { name: 'master-key', algorithm: 'hmac-sha512', secret: 'MDEyMzQ1Njc4OWFiY2RlZg==' } });
    await run('DELETE', `/v1/zonemirrors/${m.body.id}`);

    // TSIG keys
    const t = await run('POST', '/v1/tsigkeys', { name: 'contract.example.', domains: [id], update: { names: ['_acme-challenge'], types: ['TXT'] } });
    expect(t.status, t.text).toBe(201);
    await run('GET', '/v1/tsigkeys');
    await run('GET', `/v1/tsigkeys/${t.body.id}`);
    await run('PATCH', `/v1/tsigkeys/${t.body.id}`, { update: true, transfer: true });
    await run('DELETE', `/v1/tsigkeys/${t.body.id}`);

    // Members: invited, accepted (no key), read, changed, removed
    const member = await run('POST', '/v1/members', { username: 'contract-member', role: 'editor', domains: [id] });
    expect(member.status, member.text).toBe(201);
    await run('POST', '/v1/invitations', { token: member.body.invitation, password: 'a member password' }, undefined, false);
    await run('GET', '/v1/members');
    await run('GET', `/v1/members/${member.body.id}`);
    await run('PATCH', `/v1/members/${member.body.id}`, { role: 'viewer', domains: null });
    await run('DELETE', `/v1/members/${member.body.id}`);
    // Health checks, and a record that steers by one
    const h = await run('POST', '/v1/healthchecks', { type: 'https', address: '192.0.2.10', path: '/health' });
    expect(h.status, h.text).toBe(201);
    await run('GET', '/v1/healthchecks');
    await run('GET', `/v1/healthchecks/${h.body.id}`);
    await run('PATCH', `/v1/healthchecks/${h.body.id}`, { interval: 30 });
    const steered = await run('POST', `/v1/domains/${id}/A`, { name: 'steered', address: '192.0.2.11', steering: { healthcheck: h.body.id, weight: 2, subnets: ['198.51.100.0/24'] } });
    expect(steered.status, steered.text).toBe(201);
    await run('DELETE', `/v1/domains/${id}/A/${steered.body.id}`);
    await run('DELETE', `/v1/healthchecks/${h.body.id}`);

    // DNSSEC: on, a rollover, off
    await run('GET', `/v1/domains/${id}/dnssec`);
    await run('PUT', `/v1/domains/${id}/dnssec`, { enabled: true, algorithm: 'ED25519' });
    await run('POST', `/v1/domains/${id}/dnssec/rollover`, { algorithm: 'ECDSAP256SHA256' });
    await run('GET', `/v1/domains/${id}/dnssec`);
    await run('PUT', `/v1/domains/${id}/dnssec`, { enabled: false });

    await run('GET', '/v1/events');
    await run('GET', `/v1/events?domain=${id}&limit=2`);
    await run('DELETE', `/v1/domains/${id}`);
    await run('DELETE', `/v1/keys/${k.body.id}`);

    // Security: TOTP on and off, a passkey registered, signed in with and removed, require_2fa, the password
    await run('GET', '/v1/me/totp');
    const totp = await run('POST', '/v1/me/totp', {});
    await run('POST', '/v1/me/totp/confirm', { code: totpCode(totp.body.secret) });
    await run('DELETE', '/v1/me/totp', { code: totpCode(totp.body.secret, 1) });
    const creation = await run('POST', '/v1/me/passkeys/options', {});
    const passkey = new SoftPasskey(server.base, creation.body.rp.id);
    const pk = await run('POST', '/v1/me/passkeys', { name: 'contract', response: passkey.register(creation.body) });
    await run('GET', '/v1/me/passkeys');
    const request = await run('POST', '/v1/sign-in/passkey/options', {}, undefined, false);
    await run('POST', '/v1/sign-in/passkey', { response: passkey.signIn(request.body) }, undefined, false);
    await run('GET', '/v1/account');
    await run('PATCH', '/v1/account', { require_2fa: false });
    await run('DELETE', `/v1/me/passkeys/${pk.body.id}`);
    await run('PUT', '/v1/me/password', { current: PASSWORD, new: PASSWORD });

    // Errors: each status through a route that publishes the problem schema
    await run('POST', '/v1/domains', { domain: 'bad!', extra: 1 }); // 400
    await run('GET', '/v1/domains', undefined, undefined, false); // 401
    await run('GET', `/v1/domains/${id}`); // 404
    await run('DELETE', '/v1/domains'); // 405
    const dup = await run('POST', '/v1/domains', { domain: 'legacy.example', soa: 'a@legacy.example' }); // 409
    expect(dup.status).toBe(409);
    await run('PATCH', `/v1/domains/${a.DATA.DomainID}`, {}, { 'if-match': '"stale"' }); // 412
    const big = await call(server.base, 'POST', '/v1/domains', { key, raw: JSON.stringify({ domain: 'x'.repeat(2 << 20) }), headers: { 'content-type': 'application/json' } });
    check('POST', '/v1/domains', big); // 413
    check('POST', '/v1/domains', await call(server.base, 'POST', '/v1/domains', { key, raw: 'x', headers: { 'content-type': 'text/plain' } })); // 415
    for (const s of [400, 401, 404, 405, 409, 412, 413, 415, 422]) expect(statusesSeen, `status ${s}`).toContain(s);

    // Read-only sub-resources of a domain or mirror (added by other features) are read with live ids.
    const live = { domains: a.DATA.DomainID, zonemirrors: (await run('POST', '/v1/zonemirrors', { domain: 'live-mirror.example', masters: ['192.0.2.1'] })).body.id };
    for (const { path, method } of operations()) {
      const m = /^\/v1\/(domains|zonemirrors)\/\{id\}\/[a-z]+$/.exec(path);
      if (method === 'GET' && m && !covered.has(`GET ${path}`)) await run('GET', path.replace('{id}', String(live[m[1] as keyof typeof live])));
    }
    // The zone file: its PUT takes text/dns, not JSON.
    const zonefile = `/v1/domains/${live.domains}/zonefile`;
    const text = (await call(server.base, 'GET', zonefile, { key })).text;
    check('PUT', `${zonefile}?dry_run=true`, await call(server.base, 'PUT', `${zonefile}?dry_run=true`, { key, raw: text, headers: { 'content-type': 'text/dns' } }));
    check('PUT', zonefile, await call(server.base, 'PUT', zonefile, { key, raw: 'bad A 192.0.2.256\n', headers: { 'content-type': 'text/dns' } })); // 422
    check('POST', `${zonefile}/transfer`, await call(server.base, 'POST', `${zonefile}/transfer`, { key, body: { server: '10.0.0.1' } })); // 422, no connection
    const imported = (await run('POST', '/v1/domains', { domain: 'xfr-contract.example', soa: 'h@xfr-contract.example' })).body.id;
    primary = await startPrimary(PRIMARY, 'xfr-contract.example', '$ORIGIN xfr-contract.example.\n$TTL 3600\n@ SOA ns h 1 3600 600 86400 300\n@ NS ns.elsewhere.example.\nwww A 192.0.2.1\n', server.dnsAddress?.port);
    const transfer = `/v1/domains/${imported}/zonefile/transfer`;
    check('POST', `${transfer}?dry_run=true`, await call(server.base, 'POST', `${transfer}?dry_run=true`, { key, body: { server: PRIMARY } }));
    const missing = operations()
      .map(({ path, method }) => `${method} ${path}`)
      .filter((o) => !covered.has(o));
    expect(missing).toEqual([]);
  });
});

describe('the documentation page', () => {
  it('is served at /docs from this server alone (no CDN, no outside calls)', async () => {
    const page = await fetch(`${server.base}/docs/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).not.toMatch(/https?:|\*\.|validator\.swagger\.io/);
    const html = await page.text();
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(assets.length).toBeGreaterThan(3);
    for (const a of assets) expect((await fetch(new URL(a, `${server.base}/docs/`))).status, a).toBe(200);
    const init = await (await fetch(`${server.base}/docs/static/swagger-initializer.js`)).text();
    const code = init.split('\n').filter((line) => !line.trim().startsWith('//'));
    expect(code.join('\n')).not.toMatch(/https?:\/\//);
    expect(init).toMatch(/validatorUrl["']?\s*:\s*null/);
    // The document the page renders is the published one.
    expect(await (await fetch(`${server.base}/docs/json`)).json()).toEqual(doc);
  });
});
