/**
 * The operator's commands, run as an operator runs them (`zonehost account …` against the database of a
 * serving node): list, per-account limits, suspend and resume, delete. What each does is checked on every
 * door: interface A, interface B, POST /v1/keys and user.getapikey, DNS UPDATE signed with the account's TSIG
 * key, transfers with it, and dig for the zones that must stay served (or stop being served).
 */
import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDomain, createRecord, dig, rrs, updateClient } from '../dns/support.js';
import { peers } from '../support/peers.js';
import { startTestServer, v3, type TestServer } from '../support/server.js';

const BIN = join(import.meta.dirname, '../../bin/zonehost.js');
const PASSWORD = 'correct horse battery staple';
const SECRET = 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0MTI=';
const TSIG = `hmac-sha256:op.key:${SECRET}`;

/** Each case runs the command a few times: a new Node.js process each, slow on a loaded machine. */
const SLOW = 120_000;

let server: TestServer;
/** `zonehost ARGS --db` the test node's database, as the operator would run it beside `serve`. */
const zonehost = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args, '--db', server.db], { encoding: 'utf8', timeout: 30_000 });

let key: string;
let domainId: number;

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.user('alice', PASSWORD));
  await server.user('bob', PASSWORD);
  domainId = await createDomain(server.base, key, 'alice.example');
  await createRecord(server.base, key, domainId, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
  const tsig = await v1('POST', '/v1/tsigkeys', { name: 'op.key', secret: SECRET, domains: [domainId], update: true, transfer: true });
  expect(tsig.status).toBe(201);
});
afterAll(() => server.close());

async function v1(method: string, path: string, body?: unknown, apiKey = key): Promise<{ status: number; type: string; body: any }> {
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: text ? JSON.parse(text) : null };
}

const signIn = (password = PASSWORD) =>
  fetch(`${server.base}/v1/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'alice', password, label: 'op' }) });

const nsupdate = (lines: string[]) => updateClient(server, [], 'nsupdate', TSIG, ['zone alice.example', ...lines]);

/** dig's whole output for an AXFR signed with the account's TSIG key. */
function axfr(): Promise<string> {
  return new Promise((resolve) => {
    execFile('dig', ['-p', String(server.dnsAddress?.port), '@127.0.0.1', '+time=2', '+tries=1', '-y', TSIG, 'alice.example', 'AXFR'], { timeout: 15_000 }, (_e, stdout, stderr) =>
      resolve(`${stdout}${stderr}`),
    );
  });
}

describe('zonehost account list', { timeout: SLOW }, () => {
  it('lists every account with its members, domains, records, status and limits', () => {
    const res = zonehost('account', 'list', '--json');
    expect(res.status, res.stderr).toBe(0);
    const rows = JSON.parse(res.stdout) as Record<string, unknown>[];
    // Records: the A record; the SOA and NS are made by the service, not held.
    expect(rows).toEqual([
      expect.objectContaining({ name: 'alice', members: 1, domains: 1, records: 1, status: 'active', maxDomains: null, maxRecords: null }),
      expect.objectContaining({ name: 'bob', members: 1, domains: 0, records: 0, status: 'active' }),
    ]);
    const table = zonehost('account', 'list');
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME\s+MEMBERS\s+DOMAINS\s+RECORDS\s+STATUS\s+MAX-DOMAINS\s+MAX-RECORDS$/);
    expect(table.stdout).toMatch(/^alice\s+1\s+1\s+1\s+active\s+default\s+default$/m);
  });
});

describe('zonehost account set: limits of one account', { timeout: SLOW }, () => {
  it('refuses what the limits would not hold, naming it, and takes no word it does not know', () => {
    expect(zonehost('account', 'set', 'nobody', '--suspend').stderr).toMatch(/There is no account named 'nobody'/);
    expect(zonehost('account', 'set', 'alice', '--max-domains', 'many').stderr).toMatch(/--max-domains must be a whole number or 'default', not 'many'/);
    expect(zonehost('account', 'set', 'alice').stderr).toMatch(/nothing to set/);
    expect(zonehost('account', 'set', 'alice', '--suspend', '--resume').stderr).toMatch(/cannot be used with/);
  });

  it('--max-domains wins over the node\'s limit on interface A and B, for that account only; default restores it', async () => {
    const set = zonehost('account', 'set', 'alice', '--max-domains', '1');
    expect(set.status, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/account alice: active, max domains 1, max records per domain default/);
    const a = await v3(server.base, { api_action: 'domain.create', api_key: key, Domain: 'second.example', Type: 'master', SOA_Email: 'a@second.example' });
    expect(a.ERRORARRAY).toEqual([{ ERRORCODE: 8, ERRORMESSAGE: 'An account may hold at most 1 domains.' }]);
    const b = await v1('POST', '/v1/domains', { domain: 'second.example', soa: 'a@second.example' });
    expect(b.status).toBe(409);
    expect(b.type).toMatch(/application\/problem\+json/);
    expect(b.body.detail).toBe('An account may hold at most 1 domains.');
    expect(zonehost('account', 'set', 'alice', '--max-domains', 'default').status).toBe(0);
    expect((await v1('POST', '/v1/domains', { domain: 'second.example', soa: 'a@second.example' })).status).toBe(201);
  });

  it('--max-records wins on interface A, B, bulk changes and DNS UPDATE', async () => {
    expect(zonehost('account', 'set', 'alice', '--max-records', '2').status).toBe(0);
    expect((await v1('POST', `/v1/domains/${domainId}/A`, { name: 'two', address: '192.0.2.2' })).status).toBe(201);
    const a = await v3(server.base, { api_action: 'domain.resource.create', api_key: key, DomainID: domainId, Type: 'A', Name: 'three', Target: '192.0.2.3' });
    expect(a.ERRORARRAY).toEqual([{ ERRORCODE: 8, ERRORMESSAGE: 'A domain may hold at most 2 records.' }]);
    const b = await v1('POST', `/v1/domains/${domainId}/A`, { name: 'three', address: '192.0.2.3' });
    expect(b.status).toBe(409);
    expect(b.body.detail).toBe('A domain may hold at most 2 records.');
    const list = zonehost('account', 'list', '--json');
    expect(JSON.parse(list.stdout)[0]).toMatchObject({ name: 'alice', records: 2, maxRecords: 2 });
    expect(zonehost('account', 'set', 'alice', '--max-records', 'default').status).toBe(0);
    expect((await v1('POST', `/v1/domains/${domainId}/A`, { name: 'three', address: '192.0.2.3' })).status).toBe(201);
  });

  peers('nsupdate').it('--max-records refuses a DNS UPDATE that would go past it', async () => {
    expect(zonehost('account', 'set', 'alice', '--max-records', '3').status).toBe(0);
    const refused = await nsupdate(['update add four.alice.example 300 A 192.0.2.4']);
    expect(refused.ok).toBe(false);
    expect(refused.output).toMatch(/REFUSED/);
    expect(zonehost('account', 'set', 'alice', '--max-records', 'default').status).toBe(0);
    expect(await nsupdate(['update add four.alice.example 300 A 192.0.2.4'])).toEqual({ ok: true, output: '' });
  });
});

describe('zonehost account set --suspend', { timeout: SLOW }, () => {
  beforeAll(() => {
    const res = zonehost('account', 'set', 'alice', '--suspend');
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/account alice: suspended/);
  });

  it('refuses its API keys on interface A (code 13) and interface B (403), saying the account is suspended', async () => {
    const a = await v3(server.base, { api_action: 'domain.list', api_key: key });
    expect(a.ERRORARRAY).toEqual([{ ERRORCODE: 13, ERRORMESSAGE: "The account 'alice' is suspended; ask the operator of this service to resume it." }]);
    const b = await v1('GET', '/v1/domains');
    expect(b.status).toBe(403);
    expect(b.type).toMatch(/application\/problem\+json/);
    expect(b.body.detail).toMatch(/The account 'alice' is suspended/);
  });

  it('refuses its sign-ins (POST /v1/keys, user.getapikey) with the right password; a wrong one is still a plain 401', async () => {
    const right = await signIn();
    expect(right.status).toBe(403);
    expect(((await right.json()) as { detail: string }).detail).toMatch(/The account 'alice' is suspended/);
    expect((await signIn('wrong')).status).toBe(401);
    const a = await v3(server.base, { api_action: 'user.getapikey', username: 'alice', password: PASSWORD });
    expect(a.ERRORARRAY).toEqual([{ ERRORCODE: 13, ERRORMESSAGE: expect.stringMatching(/The account 'alice' is suspended/) }]);
  });

  it('leaves other accounts alone', async () => {
    const bob = await v3(server.base, { api_action: 'user.getapikey', username: 'bob', password: PASSWORD });
    expect(bob.ERRORARRAY).toEqual([]);
  });

  peers('dig', 'nsupdate').it('refuses DNS UPDATE and transfers signed with its TSIG key, and its zones still answer', async () => {
    const update = await nsupdate(['update add five.alice.example 300 A 192.0.2.5']);
    expect(update.ok).toBe(false);
    expect(update.output).toMatch(/REFUSED/);
    expect(await axfr()).toMatch(/Transfer failed/);
    expect(rrs((await dig(server, 'www.alice.example', 'A')).answer)).toEqual(['www.alice.example. 86400 A 192.0.2.1']);
    expect((await dig(server, 'five.alice.example', 'A')).status).toBe('NXDOMAIN');
  });

  it('is lifted by --resume: keys, sign-ins and TSIG keys work again from the next request', async () => {
    const res = zonehost('account', 'set', 'alice', '--resume');
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/account alice: active/);
    expect((await v3(server.base, { api_action: 'domain.list', api_key: key })).ERRORARRAY).toEqual([]);
    expect((await v1('GET', '/v1/domains')).status).toBe(200);
    expect((await signIn()).status).toBe(201);
  });

  it("is in the account's audit trail: the suspension and the resumption, by the command line, with the status before and after", async () => {
    const events = (await v1('GET', '/v1/events?limit=500')).body as { action: string; object_id: number; interface: string; before: unknown; after: unknown }[];
    const operator = events.filter((e) => e.action.startsWith('account.'));
    expect(operator.map((e) => e.action)).toEqual(expect.arrayContaining(['account.suspend', 'account.resume']));
    const suspend = operator.find((e) => e.action === 'account.suspend');
    expect(suspend).toMatchObject({ interface: 'cli', before: { status: 'active' }, after: { status: 'suspended' } });
  });

  peers('dig', 'nsupdate').it('lets its TSIG key update and transfer again after --resume', async () => {
    expect(await nsupdate(['update add five.alice.example 300 A 192.0.2.5'])).toEqual({ ok: true, output: '' });
    expect(rrs((await dig(server, 'five.alice.example', 'A')).answer)).toEqual(['five.alice.example. 300 A 192.0.2.5']);
    expect(await axfr()).toMatch(/five\.alice\.example\.\s+300\s+IN\s+A\s+192\.0\.2\.5/);
  });
});

describe('zonehost account delete', { timeout: SLOW }, () => {
  it('without --yes deletes nothing and says what it would delete', async () => {
    const res = zonehost('account', 'delete', 'alice');
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/not deleted: this would delete account alice with 2 domains \(no longer served\), \d+ records, \d+ API keys, 1 TSIG key and its audit trail; run again with --yes/);
    expect((await v1('GET', '/v1/domains')).status).toBe(200);
  });

  it('with --yes deletes the account with its keys, domains and audit trail', async () => {
    const res = zonehost('account', 'delete', 'alice', '--yes');
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/deleted account alice with 2 domains/);
    expect((await v1('GET', '/v1/domains')).status).toBe(401);
    expect((await signIn()).status).toBe(401);
    expect(JSON.parse(zonehost('account', 'list', '--json').stdout).map((a: { name: string }) => a.name)).toEqual(['bob']);
    expect(zonehost('account', 'delete', 'alice', '--yes').stderr).toMatch(/There is no account named 'alice'/);
  });

  peers('dig').it('stops serving its zones on the running node', async () => {
    // The node hears of it as of any other deleted domain (PostgreSQL: at once; SQLite: at its next comparison, within 5 s).
    let status = '';
    for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
      status = (await dig(server, 'www.alice.example', 'A')).status;
      if (status === 'REFUSED') break;
    }
    expect(status).toBe('REFUSED');
  });

  it('frees its domain names for other accounts', async () => {
    const bob = await v3(server.base, { api_action: 'user.getapikey', username: 'bob', password: PASSWORD });
    expect((await v3(server.base, { api_action: 'domain.create', api_key: bob.DATA.API_KEY, Domain: 'alice.example', Type: 'master', SOA_Email: 'a@alice.example' })).ERRORARRAY).toEqual([]);
  });
});
