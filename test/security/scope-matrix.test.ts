/**
 * The scope matrix: every route of interface B (from its OpenAPI document) and every action of interface A
 * (from api.spec), called with API keys of each kind of scope — domains, read-only, records, subnets — and
 * checked for exactly the refusal or success the scope gives. A route or action without a row here fails the
 * test, so a new one cannot escape. DNS UPDATE is checked the same way with TSIG keys' own scopes
 * (domains, update names and types). Addresses in 127.0.0.0/8 stand in for networks: the server trusts
 * 127.0.0.1 as a proxy, so X-Forwarded-For sets the address a key is used from, and a connection from
 * 127.0.0.2 (not a trusted proxy) is judged by its own address.
 */
import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, v3, type TestServer } from '../support/server.js';
import { call, type Reply } from '../v1/support.js';
import { peers } from '../support/peers.js';

const needsNsupdate = peers('nsupdate');

const PASSWORD = 'correct horse battery staple';
const SECRET = Buffer.alloc(32, 7).toString('base64');
const INSIDE = '192.0.2.77';
const OUTSIDE = '198.51.100.9';

type Kind = 'full' | 'domains' | 'read_only' | 'records' | 'subnets';
const KINDS: Kind[] = ['full', 'domains', 'read_only', 'records', 'subnets'];

/** What a route does, as a scope judges it ('account': the user's password and second factors, account settings). */
type Class = 'public' | 'read' | 'record' | 'manage' | 'create' | 'keys' | 'account';

let server: TestServer;
let full: string;
const keys = {} as Record<Kind, string>;
/** Domain and mirror ids: `in` ones are in the domains scope, `out` ones are not. */
const ids = { domainIn: 0, domainOut: 0, mirrorIn: 0, mirrorOut: 0 };
/** Domains and mirrors in the domains scope, for its deletions (one per delete route). */
const spares = { domains: [] as number[], mirrors: [] as number[] };
/** Every id the domains scope lists. */
let inScope: number[] = [];
let serial = 0;
const unique = (p: string) => `${p}${++serial}`;

/** v1 bodies of one record per hosted type, at names the records scope's `*.dyn` covers (so its type rule is the one that speaks). */
const SAMPLES: Record<string, Record<string, unknown>> = {
  A: { name: 'a.dyn', address: '192.0.2.1' },
  AAAA: { name: 'aaaa.dyn', address: '2001:db8::1' },
  CNAME: { name: 'cname.dyn', target: 'www.example.net' },
  MX: { name: 'mx.dyn', priority: 10, mail_server: 'mail.example.net' },
  NS: { name: 'ns.dyn', nameserver: 'ns1.elsewhere.example' },
  TXT: { name: '_acme-challenge', text: 'token' },
  SRV: { service: 'sip', protocol: 'tcp', name: 'srv.dyn', priority: 10, weight: 5, port: 5060, target: 'sip.example.net' },
  CAA: { name: 'caa.dyn', tag: 'issue', value: 'letsencrypt.org' },
  TLSA: { name: '_443._tcp.tlsa.dyn', certificate_usage: 3, selector: 1, matching_type: 1, certificate_association_data: 'AB'.repeat(32) },
  SSHFP: { name: 'sshfp.dyn', algorithm: 4, fingerprint_type: 2, fingerprint: 'CD'.repeat(32) },
  PTR: { name: 'ptr.dyn', ptrdname: 'host.example.com' },
  NAPTR: { name: 'naptr.dyn', order: 100, preference: 10, flags: 'U', services: 'E2U+sip', regexp: '!^.*$!sip:info@example.com!', replacement: '.' },
  DS: { name: 'ns.dyn', key_tag: 12345, algorithm: 13, digest_type: 2, digest: 'EF'.repeat(32) },
  SVCB: { name: 'svcb.dyn', svc_priority: 1, target_name: '.', svc_params: { alpn: ['h2'] } },
  HTTPS: { name: 'https.dyn', svc_priority: 1, target_name: '.', svc_params: { alpn: ['h2'] } },
  ALIAS: { name: 'alias.dyn', target: 'www.example.net' },
};
/** The owner name a sample is stored under (SRV's is made of its service and protocol). */
const ownerOf = (type: string, body: Record<string, unknown>) => (type === 'SRV' ? `_${body.service}._${body.protocol}.${body.name}` : String(body.name));

const v1 = (method: string, path: string, key: string | undefined, body?: unknown, from = INSIDE) =>
  call(server.base, method, path, { ...(key ? { key } : {}), ...(body === undefined ? {} : { body }), headers: { 'x-forwarded-for': from } });

async function ok(r: Reply | Promise<Reply>): Promise<Reply> {
  const reply = await r;
  expect(reply.status, reply.text).toBeLessThan(300);
  return reply;
}

/** The full key's record of `type` in the domain: created when missing. */
async function presentRecord(domain: number, type: string): Promise<number> {
  const body = SAMPLES[type] as Record<string, unknown>;
  const found = (await ok(v1('GET', `/v1/domains/${domain}/${type}?name=${encodeURIComponent(ownerOf(type, body))}`, full))).body;
  if (found.length > 0) return found[0].id;
  if (type === 'DS') await presentRecord(domain, 'NS');
  return (await ok(v1('POST', `/v1/domains/${domain}/${type}`, full, body))).body.id;
}

async function absentRecord(domain: number, type: string): Promise<void> {
  // DS records go before the NS records they need.
  if (type === 'NS') await absentRecord(domain, 'DS');
  const body = SAMPLES[type] as Record<string, unknown>;
  const found = (await ok(v1('GET', `/v1/domains/${domain}/${type}?name=${encodeURIComponent(ownerOf(type, body))}`, full))).body;
  for (const r of found) await ok(v1('DELETE', `/v1/domains/${domain}/${type}/${r.id}`, full));
}

/** One row: how to make the request against a domain (or mirror) id, and what it is. */
interface Row {
  class: Class;
  /** The record type a record route writes. */
  type?: string;
  /** 'domain' / 'mirror': the route acts on one; the domains scope sees only the `in` one. */
  on?: 'domain' | 'mirror';
  /** Statuses (besides 2xx) meaning the scope let the call through and something else answered. */
  passed?: number[];
  request(target: number, kind: Kind): Promise<{ method: string; path: string; body?: unknown }>;
}

const axfrAddress = () => `192.0.2.${(++serial % 250) + 1}`;
const domainBody = () => ({ domain: `${unique('new')}.example`, soa: 'admin@example.net' });
const mirrorBody = () => ({ domain: `${unique('copy')}.example`, masters: ['192.0.2.53'] });

/**
 * A domain (or mirror) to delete in place of the target: the `out` one stays (only the domains scope is
 * sent there, and it must not find it); the domains scope deletes one of the spares made in its scope.
 */
async function victim(target: number, on: 'domain' | 'mirror', kind: Kind): Promise<number> {
  if (target === ids.domainOut || target === ids.mirrorOut) return target;
  if (kind === 'domains') return on === 'domain' ? (spares.domains.pop() as number) : (spares.mirrors.pop() as number);
  return (await ok(v1('POST', on === 'domain' ? '/v1/domains' : '/v1/zonemirrors', full, on === 'domain' ? domainBody() : mirrorBody()))).body.id;
}

/** A key every scope sees (it is within each of them). */
const NARROW = { domains: [0], read_only: true, records: { names: ['_acme-challenge'], types: ['TXT'] }, subnets: ['192.0.2.0/25'] };

function v1Rows(): Map<string, Row> {
  const rows = new Map<string, Row>();
  const add = (route: string, row: Row) => rows.set(route, row);
  for (const [base, on] of [
    ['/v1/domains', 'domain'],
    ['/v1/zonemirrors', 'mirror'],
  ] as const) {
    const body = on === 'domain' ? domainBody : mirrorBody;
    add(`GET ${base}`, { class: 'read', request: async () => ({ method: 'GET', path: base }) });
    add(`POST ${base}`, { class: 'create', request: async () => ({ method: 'POST', path: base, body: body() }) });
    add(`GET ${base}/{id}`, { class: 'read', on, request: async (t) => ({ method: 'GET', path: `${base}/${t}` }) });
    add(`PUT ${base}/{id}`, {
      class: 'manage',
      on,
      request: async (t) => {
        const current = (await ok(v1('GET', `${base}/${t}`, full))).body;
        const { id: _i, transfer: _t, ...fields } = current;
        return { method: 'PUT', path: `${base}/${t}`, body: { ...fields, axfr: [axfrAddress()] } };
      },
    });
    add(`PATCH ${base}/{id}`, { class: 'manage', on, request: async (t) => ({ method: 'PATCH', path: `${base}/${t}`, body: { axfr: [axfrAddress()] } }) });
    add(`DELETE ${base}/{id}`, { class: 'manage', on, request: async (t, kind) => ({ method: 'DELETE', path: `${base}/${await victim(t, on, kind)}` }) });
    add(`GET ${base}/{id}/queries`, { class: 'read', on, request: async (t) => ({ method: 'GET', path: `${base}/${t}/queries` }) });
  }
  add('GET /v1/domains/{id}/records', { class: 'read', on: 'domain', request: async (t) => ({ method: 'GET', path: `/v1/domains/${t}/records` }) });
  for (const type of Object.keys(SAMPLES)) {
    const sample = SAMPLES[type] as Record<string, unknown>;
    const item = `/v1/domains/{id}/${type}/{rid}`;
    add(`GET /v1/domains/{id}/${type}`, { class: 'read', on: 'domain', request: async (t) => ({ method: 'GET', path: `/v1/domains/${t}/${type}` }) });
    add(`POST /v1/domains/{id}/${type}`, {
      class: 'record',
      type,
      on: 'domain',
      request: async (t) => {
        await absentRecord(ids.domainIn, type);
        if (type === 'DS') await presentRecord(ids.domainIn, 'NS');
        return { method: 'POST', path: `/v1/domains/${t}/${type}`, body: sample };
      },
    });
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      add(`${method} ${item}`, {
        class: method === 'GET' ? 'read' : 'record',
        type,
        on: 'domain',
        request: async (t) => {
          // The record lives in the domain in scope; asked through the other domain's id it is not found.
          const rid = await presentRecord(ids.domainIn, type);
          const body = method === 'PUT' ? { ...sample, ttl: 600 + serial++ } : method === 'PATCH' ? { ttl: 900 + serial++ } : undefined;
          return { method, path: `/v1/domains/${t}/${type}/${rid}`, ...(body ? { body } : {}) };
        },
      });
    }
  }
  add('POST /v1/domains/{id}/changes', {
    class: 'record',
    type: 'TXT',
    on: 'domain',
    request: async (t) => {
      await absentRecord(ids.domainIn, 'TXT');
      return { method: 'POST', path: `/v1/domains/${t}/changes`, body: { changes: [{ op: 'create', type: 'TXT', ...SAMPLES.TXT }] } };
    },
  });
  add('GET /v1/domains/{id}/dnssec', { class: 'read', on: 'domain', request: async (t) => ({ method: 'GET', path: `/v1/domains/${t}/dnssec` }) });
  add('PUT /v1/domains/{id}/dnssec', { class: 'manage', on: 'domain', request: async (t) => ({ method: 'PUT', path: `/v1/domains/${t}/dnssec`, body: { enabled: true } }) });
  // 409: a rollover is already under way (the scope let it through).
  add('POST /v1/domains/{id}/dnssec/rollover', { class: 'manage', on: 'domain', passed: [409], request: async (t) => ({ method: 'POST', path: `/v1/domains/${t}/dnssec/rollover`, body: {} }) });
  add('GET /v1/domains/{id}/zonefile', { class: 'read', on: 'domain', request: async (t) => ({ method: 'GET', path: `/v1/domains/${t}/zonefile` }) });
  add('PUT /v1/domains/{id}/zonefile', {
    class: 'record',
    type: 'TXT',
    on: 'domain',
    request: async (t) => {
      // The zone as it is plus the records scope's own TXT record: the only difference an import makes.
      await absentRecord(ids.domainIn, 'TXT');
      const text = (await ok(v1('GET', `/v1/domains/${ids.domainIn}/zonefile`, full))).text;
      return { method: 'PUT', path: `/v1/domains/${t}/zonefile`, raw: `${text}_acme-challenge 300 IN TXT "imported"\n` };
    },
  });
  // 422/502: the destination rules or the transfer answered (the scope let it through).
  add('POST /v1/domains/{id}/zonefile/transfer', {
    class: 'record',
    type: 'TXT',
    on: 'domain',
    passed: [422, 502],
    request: async (t) => ({ method: 'POST', path: `/v1/domains/${t}/zonefile/transfer`, body: { server: '127.0.0.1', port: 1 } }),
  });
  add('POST /v1/keys', { class: 'public', request: async () => ({ method: 'POST', path: '/v1/keys', body: { username: 'owner', password: PASSWORD, expires: 1 } }) });
  add('GET /v1/keys', { class: 'read', request: async () => ({ method: 'GET', path: '/v1/keys' }) });
  add('GET /v1/keys/{id}', {
    class: 'read',
    request: async () => {
      const mine = (await ok(v1('GET', '/v1/keys', full))).body.find((k: { label: string }) => k.label === 'narrow');
      return { method: 'GET', path: `/v1/keys/${mine.id}` };
    },
  });
  add('DELETE /v1/keys/{id}', {
    class: 'keys',
    request: async () => {
      const made = await ok(v1('POST', '/v1/keys', undefined, { username: 'owner', password: PASSWORD, label: unique('doomed'), scope: { ...NARROW, domains: [ids.domainIn] } }));
      return { method: 'DELETE', path: `/v1/keys/${made.body.id}` };
    },
  });
  add('GET /v1/events', { class: 'read', request: async () => ({ method: 'GET', path: '/v1/events' }) });
  const memberBody = () => ({ username: unique('member'), role: 'viewer', domains: [ids.domainIn] });
  const memberIn = async () => (await ok(v1('POST', '/v1/members', full, memberBody()))).body;
  add('GET /v1/members', { class: 'read', request: async () => ({ method: 'GET', path: '/v1/members' }) });
  add('POST /v1/members', { class: 'manage', request: async () => ({ method: 'POST', path: '/v1/members', body: memberBody() }) });
  add('GET /v1/members/{id}', { class: 'read', request: async () => ({ method: 'GET', path: `/v1/members/${(await memberIn()).id}` }) });
  add('PATCH /v1/members/{id}', { class: 'manage', request: async () => ({ method: 'PATCH', path: `/v1/members/${(await memberIn()).id}`, body: { role: 'editor' } }) });
  add('DELETE /v1/members/{id}', { class: 'manage', request: async () => ({ method: 'DELETE', path: `/v1/members/${(await memberIn()).id}` }) });
  add('POST /v1/invitations', { class: 'public', request: async () => ({ method: 'POST', path: '/v1/invitations', body: { token: (await memberIn()).invitation, password: PASSWORD } }) });
  add('GET /v1/tsigkeys', { class: 'read', request: async () => ({ method: 'GET', path: '/v1/tsigkeys' }) });
  add('POST /v1/tsigkeys', { class: 'manage', request: async () => ({ method: 'POST', path: '/v1/tsigkeys', body: { name: `${unique('k')}.example`, domains: [ids.domainIn] } }) });
  const tsigIn = async () => (await ok(v1('POST', '/v1/tsigkeys', full, { name: `${unique('t')}.example`, domains: [ids.domainIn] }))).body.id;
  add('GET /v1/tsigkeys/{id}', { class: 'read', request: async () => ({ method: 'GET', path: `/v1/tsigkeys/${await tsigIn()}` }) });
  // The user's own security: what the scope lets through then meets a wrong code (400), TOTP that is off (409),
  // a WebAuthn answer to no challenge (400) or a passkey that does not exist (404). None is set up for real:
  // the owner's password must keep signing in alone for the other rows.
  const answer = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: 'e30' } };
  add('GET /v1/me/totp', { class: 'read', request: async () => ({ method: 'GET', path: '/v1/me/totp' }) });
  add('POST /v1/me/totp', { class: 'account', request: async () => ({ method: 'POST', path: '/v1/me/totp', body: {} }) });
  add('POST /v1/me/totp/confirm', { class: 'account', passed: [400, 409], request: async () => ({ method: 'POST', path: '/v1/me/totp/confirm', body: { code: 'zzzzz-zzzzz' } }) });
  add('DELETE /v1/me/totp', { class: 'account', passed: [409], request: async () => ({ method: 'DELETE', path: '/v1/me/totp', body: { code: '123456' } }) });
  add('PUT /v1/me/password', { class: 'account', request: async () => ({ method: 'PUT', path: '/v1/me/password', body: { current: PASSWORD, new: PASSWORD } }) });
  add('GET /v1/me/passkeys', { class: 'read', request: async () => ({ method: 'GET', path: '/v1/me/passkeys' }) });
  add('POST /v1/me/passkeys/options', { class: 'account', request: async () => ({ method: 'POST', path: '/v1/me/passkeys/options', body: {} }) });
  add('POST /v1/me/passkeys', { class: 'account', passed: [400], request: async () => ({ method: 'POST', path: '/v1/me/passkeys', body: { response: answer } }) });
  add('DELETE /v1/me/passkeys/{id}', { class: 'account', passed: [404], request: async () => ({ method: 'DELETE', path: '/v1/me/passkeys/999999' }) });
  add('GET /v1/account', { class: 'read', request: async () => ({ method: 'GET', path: '/v1/account' }) });
  add('PATCH /v1/account', { class: 'account', request: async () => ({ method: 'PATCH', path: '/v1/account', body: { require_2fa: false } }) });
  add('POST /v1/sign-in/passkey/options', { class: 'public', request: async () => ({ method: 'POST', path: '/v1/sign-in/passkey/options', body: {} }) });
  add('POST /v1/sign-in/passkey', { class: 'public', passed: [400], request: async () => ({ method: 'POST', path: '/v1/sign-in/passkey', body: { response: answer } }) });
  add('PATCH /v1/tsigkeys/{id}', { class: 'manage', request: async () => ({ method: 'PATCH', path: `/v1/tsigkeys/${await tsigIn()}`, body: { update: true } }) });
  add('DELETE /v1/tsigkeys/{id}', { class: 'manage', request: async () => ({ method: 'DELETE', path: `/v1/tsigkeys/${await tsigIn()}` }) });
  // Health checks belong to the whole account: a key limited to some domains may read them, not change them (as it may not create domains).
  const CHECK = { type: 'tcp', address: '192.0.2.7', port: 443 };
  add('GET /v1/healthchecks', { class: 'read', request: async () => ({ method: 'GET', path: '/v1/healthchecks' }) });
  add('POST /v1/healthchecks', { class: 'create', request: async () => ({ method: 'POST', path: '/v1/healthchecks', body: CHECK }) });
  const checkIn = async () => (await ok(v1('POST', '/v1/healthchecks', full, CHECK))).body.id;
  add('GET /v1/healthchecks/{id}', { class: 'read', request: async () => ({ method: 'GET', path: `/v1/healthchecks/${await checkIn()}` }) });
  add('PATCH /v1/healthchecks/{id}', { class: 'create', request: async () => ({ method: 'PATCH', path: `/v1/healthchecks/${await checkIn()}`, body: { port: 444 } }) });
  add('DELETE /v1/healthchecks/{id}', { class: 'create', request: async () => ({ method: 'DELETE', path: `/v1/healthchecks/${await checkIn()}` }) });
  return rows;
}

type Expected = 'ok' | 'notfound' | 'auth' | { rule: string };

/** What a key of `kind` gets for a row, on the `in` target (or the `out` one). */
function expected(kind: Kind, row: Pick<Row, 'class' | 'type' | 'on'>, out: boolean): Expected {
  if (row.class === 'public' || kind === 'full' || kind === 'subnets') return 'ok';
  if (kind === 'domains') return out && row.on ? 'notfound' : row.class === 'create' || row.class === 'account' ? { rule: 'domains' } : 'ok';
  if (row.class === 'read') return 'ok';
  if (kind === 'read_only') return { rule: 'read_only' };
  // records: TXT at _acme-challenge, or names below dyn
  if (row.class === 'record') return row.type === 'TXT' ? 'ok' : { rule: 'records.types' };
  return { rule: 'records' };
}

function check(reply: Reply, want: Expected, row: Row, label: string): void {
  if (want === 'ok') {
    if (!(row.passed ?? []).includes(reply.status)) expect(reply.status, `${label}: ${reply.text}`).toBeLessThan(300);
  } else if (want === 'notfound') expect(reply.status, `${label}: ${reply.text}`).toBe(404);
  else if (want === 'auth') expect(reply.status, `${label}: ${reply.text}`).toBe(401);
  else {
    expect(reply.status, `${label}: ${reply.text}`).toBe(403);
    expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(reply.body.errors[0].field, label).toBe(`scope.${want.rule}`);
  }
}

async function send(key: string | undefined, req: { method: string; path: string; body?: unknown; raw?: string }, from = INSIDE): Promise<Reply> {
  if (req.raw !== undefined) return call(server.base, req.method, req.path, { ...(key ? { key } : {}), raw: req.raw, headers: { 'content-type': 'text/dns', 'x-forwarded-for': from } });
  return v1(req.method, req.path, key, req.body, from);
}

beforeAll(async () => {
  server = await startTestServer({ trustProxy: ['127.0.0.1'], importAllow: ['127.0.0.0/8'], limits: { keysPerAccount: 500 } });
  full = (await server.user('owner', PASSWORD)).key;
  ids.domainIn = (await ok(v1('POST', '/v1/domains', full, { domain: 'in.example', soa: 'admin@example.net' }))).body.id;
  ids.domainOut = (await ok(v1('POST', '/v1/domains', full, { domain: 'out.example', soa: 'admin@example.net' }))).body.id;
  ids.mirrorIn = (await ok(v1('POST', '/v1/zonemirrors', full, { domain: 'mirror-in.example', masters: ['192.0.2.53'] }))).body.id;
  ids.mirrorOut = (await ok(v1('POST', '/v1/zonemirrors', full, { domain: 'mirror-out.example', masters: ['192.0.2.53'] }))).body.id;
  await ok(v1('PUT', `/v1/domains/${ids.domainIn}/dnssec`, full, { enabled: true }));
  NARROW.domains = [ids.domainIn];
  for (let i = 0; i < 2; i++) spares.domains.push((await ok(v1('POST', '/v1/domains', full, domainBody()))).body.id);
  spares.mirrors.push((await ok(v1('POST', '/v1/zonemirrors', full, mirrorBody()))).body.id);
  inScope = [ids.domainIn, ids.mirrorIn, ...spares.domains, ...spares.mirrors];
  const scopes: Record<Kind, object | undefined> = {
    full: undefined,
    domains: { domains: inScope.sort((a, b) => a - b) },
    read_only: { read_only: true },
    records: { records: { names: ['_acme-challenge', '*.dyn'], types: ['TXT'] } },
    subnets: { subnets: ['192.0.2.0/24', '127.0.0.2/32'] },
  };
  for (const kind of KINDS) {
    const made = await ok(v1('POST', '/v1/keys', undefined, { username: 'owner', password: PASSWORD, label: kind, ...(scopes[kind] ? { scope: scopes[kind] } : {}) }));
    keys[kind] = made.body.key;
    expect(made.body.scope).toEqual(scopes[kind] ?? {});
  }
  await ok(v1('POST', '/v1/keys', undefined, { username: 'owner', password: PASSWORD, label: 'narrow', scope: NARROW }));
});
afterAll(() => server.close());

describe('interface B under each kind of scope', () => {
  it('has a row for every route of the OpenAPI document', async () => {
    const doc = (await call(server.base, 'GET', '/v1/openapi.json')).body;
    const routes = Object.entries<Record<string, unknown>>(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(routes.sort()).toEqual([...v1Rows().keys()].sort());
  });

  for (const kind of KINDS) {
    it(`a key with ${kind === 'full' ? 'no' : `a ${kind}`} scope gets exactly what its scope allows on every route`, async () => {
      for (const [route, row] of v1Rows()) {
        const targets = row.on === 'mirror' ? [ids.mirrorIn, ids.mirrorOut] : row.on === 'domain' ? [ids.domainIn, ids.domainOut] : [0];
        for (const [i, target] of targets.entries()) {
          // Only the domains scope tells in from out; the others are judged on the domain in scope.
          if (i === 1 && kind !== 'domains') continue;
          const reply = await send(keys[kind], await row.request(target, kind));
          check(reply, expected(kind, row, i === 1), row, `${kind} ${route} ${i === 1 ? 'out' : 'in'}`);
        }
      }
    });
  }

  it('a key with a subnets scope fails as a wrong key does from any other address, on every route', async () => {
    for (const [route, row] of v1Rows()) {
      if (row.class === 'public') continue;
      const target = row.on === 'mirror' ? ids.mirrorIn : ids.domainIn;
      const reply = await send(keys.subnets, await row.request(target, 'subnets'), OUTSIDE);
      check(reply, 'auth', row, `subnets ${route} from ${OUTSIDE}`);
      expect(reply.text).toBe((await send('wrong-key', { method: 'GET', path: '/v1/domains' }, OUTSIDE)).text);
    }
  });

  it('a key with a subnets scope is judged by the connection itself when it does not come from a trusted proxy', async () => {
    const from = (localAddress: string) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL('/v1/domains', server.base);
        const req = request(url, { localAddress, headers: { authorization: `Bearer ${keys.subnets}`, 'x-forwarded-for': INSIDE } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    expect(await from('127.0.0.2')).toBe(200);
    // 127.0.0.3 is no trusted proxy, so its X-Forwarded-For is not believed.
    expect(await from('127.0.0.3')).toBe(401);
  });

  it('the domains scope leaves other domains, their TSIG keys and their history out of lists', async () => {
    await ok(v1('POST', '/v1/tsigkeys', full, { name: 'out-only.example', domains: [ids.domainOut] }));
    // The spares left are in the scope too (the matrix deleted the others).
    const domains = (await ok(v1('GET', '/v1/domains', keys.domains))).body.map((d: { id: number }) => d.id);
    expect(domains).toEqual([ids.domainIn, ...spares.domains]);
    const mirrors = (await ok(v1('GET', '/v1/zonemirrors', keys.domains))).body.map((d: { id: number }) => d.id);
    expect(mirrors).toEqual([ids.mirrorIn, ...spares.mirrors]);
    const tsig = (await ok(v1('GET', '/v1/tsigkeys?limit=500', keys.domains))).body.map((k: { name: string }) => k.name);
    expect(tsig).not.toContain('out-only.example.');
    expect((await ok(v1('GET', '/v1/tsigkeys?limit=500', full))).body.map((k: { name: string }) => k.name)).toContain('out-only.example.');
    const events = (await ok(v1('GET', '/v1/events?limit=500', keys.domains))).body;
    expect(events.length).toBeGreaterThan(0);
    expect(events.filter((e: { domain_id: number }) => !inScope.includes(e.domain_id))).toEqual([]);
    expect((await ok(v1('GET', '/v1/events?limit=500', full))).body.some((e: { domain_id: number }) => e.domain_id === ids.domainOut)).toBe(true);
  });

  it('the records scope refuses names it does not cover, and the audit trail names the key', async () => {
    const refused = await v1('POST', `/v1/domains/${ids.domainIn}/TXT`, keys.records, { name: 'www', text: 'no' });
    check(refused, { rule: 'records.names' }, { class: 'record', request: async () => ({ method: '', path: '' }) }, 'records TXT at www');
    await absentRecord(ids.domainIn, 'TXT');
    const made = await ok(v1('POST', `/v1/domains/${ids.domainIn}/TXT`, keys.records, { name: '_acme-challenge', text: 'audited' }));
    const keyId = (await ok(v1('GET', '/v1/keys', full))).body.find((k: { label: string }) => k.label === 'records').id;
    const events = (await ok(v1('GET', `/v1/events?domain=${ids.domainIn}&limit=500`, full))).body;
    expect(events.find((e: { object_id: number; action: string }) => e.object_id === made.body.id && e.action === 'record.create')).toMatchObject({ key_id: keyId, key_label: 'records' });
  });

  it('a key made with a key gets its scope at most: inherited when none is asked, refused when wider, no longer lived', async () => {
    const inherited = await ok(
      call(server.base, 'POST', '/v1/keys', { key: keys.records, body: { username: 'owner', password: PASSWORD, expires: 0 }, headers: { 'x-forwarded-for': INSIDE } }),
    );
    expect(inherited.body.scope).toEqual({ records: { names: ['_acme-challenge', '*.dyn'], types: ['TXT'] } });
    const creator = (await ok(v1('GET', '/v1/keys', full))).body.find((k: { label: string }) => k.label === 'records');
    expect(inherited.body.expires).toBe(creator.expires);
    const narrower = await ok(
      call(server.base, 'POST', '/v1/keys', { key: keys.records, body: { username: 'owner', password: PASSWORD, scope: { records: { names: ['*.a.dyn'], types: ['TXT'] }, read_only: true } }, headers: { 'x-forwarded-for': INSIDE } }),
    );
    expect(narrower.body.scope).toEqual({ records: { names: ['*.a.dyn'], types: ['TXT'] }, read_only: true });
    for (const [creatorKind, scope, rule] of [
      ['records', { records: { names: ['*.dyn'], types: ['TXT', 'A'] } }, 'records.types'],
      ['records', { records: { names: ['*'] , types: ['TXT'] } }, 'records.names'],
      ['records', {}, 'records'],
      ['domains', { domains: [ids.domainIn, ids.domainOut] }, 'domains'],
      ['read_only', { read_only: false }, 'read_only'],
      ['subnets', { subnets: ['192.0.0.0/16'] }, 'subnets'],
    ] as const) {
      const r = await call(server.base, 'POST', '/v1/keys', { key: keys[creatorKind], body: { username: 'owner', password: PASSWORD, scope }, headers: { 'x-forwarded-for': INSIDE } });
      check(r, { rule }, { class: 'keys', request: async () => ({ method: '', path: '' }) }, `${creatorKind} making ${JSON.stringify(scope)}`);
    }
  });

  it('refuses malformed scopes with 400 naming the field', async () => {
    for (const [scope, field] of [
      [{ subnets: ['192.0.2.0/33'] }, 'scope.subnets'],
      [{ records: { names: ['bad name'] } }, 'scope.records.names'],
      [{ records: { types: ['SOA'] } }, 'scope.records.types'],
      [{ domains: [999999] }, 'scope.domains'],
      [{ domains: [] }, 'scope.domains'],
      [{ colour: 'blue' }, 'scope.colour'],
    ] as const) {
      const r = await v1('POST', '/v1/keys', undefined, { username: 'owner', password: PASSWORD, scope });
      expect(r.status, r.text).toBe(400);
      expect(r.body.errors.map((e: { field: string }) => e.field).join(' '), JSON.stringify(scope)).toContain(field);
    }
  });
});

/** Interface A's actions: how to call each with a target domain, and what it is. */
interface Action {
  class: Class;
  type?: string;
  on?: 'domain';
  args(target: number): Promise<Record<string, string | number>>;
}

async function v3Record(type: 'A' | 'TXT'): Promise<number> {
  return presentRecord(ids.domainIn, type);
}

/** The kind of key the action rows are being called with (for domain.delete's victim). */
let currentKind: Kind = 'full';

function v3Rows(): Map<string, Action> {
  const rows = new Map<string, Action>();
  rows.set('api.spec', { class: 'public', args: async () => ({}) });
  rows.set('test.echo', { class: 'read', args: async () => ({ foo: 'bar' }) });
  rows.set('user.getapikey', { class: 'public', args: async () => ({ username: 'owner', password: PASSWORD, expires: 1 }) });
  rows.set('domain.list', { class: 'read', args: async () => ({}) });
  rows.set('domain.create', { class: 'create', args: async () => ({ Domain: `${unique('v3new')}.example`, Type: 'master', SOA_Email: 'admin@example.net' }) });
  rows.set('domain.update', { class: 'manage', on: 'domain', args: async (t) => ({ DomainID: t, Description: unique('d') }) });
  rows.set('domain.delete', { class: 'manage', on: 'domain', args: async (t) => ({ DomainID: await victim(t, 'domain', currentKind) }) });
  rows.set('domain.resource.list', { class: 'read', on: 'domain', args: async (t) => ({ DomainID: t }) });
  for (const type of ['A', 'TXT'] as const) {
    const name = type === 'TXT' ? '_acme-challenge' : 'a.dyn';
    rows.set(`domain.resource.create ${type}`, {
      class: 'record',
      type,
      on: 'domain',
      args: async (t) => {
        await absentRecord(ids.domainIn, type);
        return { DomainID: t, Type: type, Name: name, Target: type === 'A' ? '192.0.2.1' : 'token' };
      },
    });
    rows.set(`domain.resource.update ${type}`, { class: 'record', type, on: 'domain', args: async (t) => ({ DomainID: t, ResourceID: await v3Record(type), TTL_sec: 300 + serial++ }) });
    rows.set(`domain.resource.delete ${type}`, { class: 'record', type, on: 'domain', args: async (t) => ({ DomainID: t, ResourceID: await v3Record(type) }) });
  }
  return rows;
}

function checkV3(env: any, want: Expected, label: string): void {
  const codes = env.ERRORARRAY.map((e: { ERRORCODE: number }) => e.ERRORCODE);
  if (want === 'ok') expect(codes, `${label}: ${JSON.stringify(env)}`).toEqual([]);
  else if (want === 'notfound') expect(codes, label).toEqual([5]);
  else if (want === 'auth') expect(codes, label).toEqual([4]);
  else {
    expect(codes, `${label}: ${JSON.stringify(env)}`).toEqual([13]);
    expect(env.ERRORARRAY[0].ERRORMESSAGE, label).toContain(`scope.${want.rule}`);
  }
}

describe('interface A under each kind of scope', () => {
  it('has a row for every action api.spec publishes', async () => {
    const spec = await v3(server.base, { api_action: 'api.spec' });
    const actions = new Set([...v3Rows().keys()].map((k) => k.split(' ')[0]));
    expect(Object.keys(spec.DATA.METHODS).sort()).toEqual([...actions].sort());
  });

  for (const kind of KINDS) {
    it(`a key with ${kind === 'full' ? 'no' : `a ${kind}`} scope gets exactly what its scope allows on every action`, async () => {
      for (const [label, row] of v3Rows()) {
        const targets = row.on ? [ids.domainIn, ids.domainOut] : [0];
        for (const [i, target] of targets.entries()) {
          if (i === 1 && kind !== 'domains') continue;
          currentKind = kind;
          const env = await v3(server.base, { api_action: label.split(' ')[0] as string, api_key: keys[kind], ...(await row.args(target)) }, { headers: { 'x-forwarded-for': INSIDE } });
          checkV3(env, expected(kind, row, i === 1), `${kind} ${label} ${i === 1 ? 'out' : 'in'}`);
        }
      }
      if (kind === 'domains') {
        const list = await v3(server.base, { api_action: 'domain.list', api_key: keys.domains }, { headers: { 'x-forwarded-for': INSIDE } });
        expect(list.DATA.map((d: { DOMAINID: number }) => d.DOMAINID)).toEqual([ids.domainIn, ids.mirrorIn, ...spares.domains, ...spares.mirrors].sort((a, b) => a - b));
      }
    });
  }

  it('a key with a subnets scope fails as a wrong key does from any other address', async () => {
    for (const [label, row] of v3Rows()) {
      if (row.class === 'public') continue;
      const env = await v3(server.base, { api_action: label.split(' ')[0] as string, api_key: keys.subnets, ...(await row.args(ids.domainIn)) }, { headers: { 'x-forwarded-for': OUTSIDE } });
      checkV3(env, 'auth', `subnets ${label} from ${OUTSIDE}`);
    }
  });
});

describe('DNS UPDATE under each kind of TSIG key scope', () => {
  /** nsupdate signed with `key` against the test server; the rcode it printed, or 'NOERROR'. */
  const nsupdate = (key: string, zone: string, line: string): Promise<string> =>
    new Promise((resolve) => {
      const child = execFile('nsupdate', ['-y', `hmac-sha256:${key}:${SECRET}`, '-t', '3'], { timeout: 15_000 }, (err, stdout, stderr) =>
        resolve(err ? (/(REFUSED|NOTAUTH|NOTZONE|SERVFAIL)/.exec(`${stdout}${stderr}`)?.[1] ?? `${stdout}${stderr}`) : 'NOERROR'),
      );
      child.stdin?.end([`server 127.0.0.1 ${server.dnsAddress?.port}`, `zone ${zone}`, line, 'send', ''].join('\n'));
    });

  beforeAll(async () => {
    for (const [name, update] of [
      ['everything.key', true],
      ['nothing.key', false],
      ['acme.key', { names: ['_acme-challenge', '*.dyn'], types: ['TXT'] }],
    ] as const) {
      await ok(v1('POST', '/v1/tsigkeys', full, { name, secret: SECRET, domains: [ids.domainIn], update }));
    }
  });

  needsNsupdate.it('allows and refuses exactly what each key scope says', async () => {
    const cases: [string, string, string, string][] = [
      ['everything.key', 'in.example', 'update add www.in.example 300 A 192.0.2.8', 'NOERROR'],
      ['everything.key', 'out.example', 'update add www.out.example 300 A 192.0.2.8', 'REFUSED'],
      ['nothing.key', 'in.example', 'update add www.in.example 300 A 192.0.2.9', 'REFUSED'],
      ['acme.key', 'in.example', 'update add _acme-challenge.in.example 60 TXT "dns"', 'NOERROR'],
      ['acme.key', 'in.example', 'update add x.dyn.in.example 60 TXT "dns"', 'NOERROR'],
      ['acme.key', 'in.example', 'update add x.dyn.in.example 60 A 192.0.2.1', 'REFUSED'],
      ['acme.key', 'in.example', 'update add www.in.example 60 TXT "dns"', 'REFUSED'],
      ['acme.key', 'out.example', 'update add _acme-challenge.out.example 60 TXT "dns"', 'REFUSED'],
    ];
    for (const [key, zone, line, rcode] of cases) expect(await nsupdate(key, zone, line), `${key}: ${line}`).toBe(rcode);
  });
});
