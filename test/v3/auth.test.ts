/** Interface A authentication and user.getapikey: both key carriers, key format, expiry and the key limit. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/services/api-key-material.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { call, data, errorBody, errors } from './support.js';

const PASSWORD = 'correct horse battery staple';
let server: TestServer;
let base: string;
let key: string;
let accountId: number;

beforeAll(async () => {
  server = await startTestServer();
  base = server.base;
  ({ key, accountId } = await server.user('alice', PASSWORD));
});
afterAll(() => server.close());

const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
const ECHO = '{"ERRORARRAY":[],"ACTION":"test.echo","DATA":{"A":"1"}}';
const AUTH_FAILED = errorBody('test.echo', 4, 'Authentication failed');

describe('interface A authentication', () => {
  it('takes the key in api_key, over GET and POST', async () => {
    expect((await call(base, { api_action: 'test.echo', api_key: key, a: 1 })).text).toBe(ECHO);
    expect((await call(base, { api_action: 'test.echo', api_key: key, a: 1 }, { transport: 'POST-form' })).text).toBe(ECHO);
    expect((await call(base, { api_action: 'test.echo', api_key: key, a: 1 }, { transport: 'POST-multipart' })).text).toBe(ECHO);
  });

  it('takes the key as the HTTP Basic password, with any user name', async () => {
    for (const user of ['u', 'alice', '']) {
      expect((await call(base, { api_action: 'test.echo', a: 1 }, { init: { headers: basic(user, key) } })).text).toBe(ECHO);
    }
    expect((await call(base, { api_action: 'test.echo', a: 1 }, { transport: 'POST-form', init: { headers: basic('u', key) } })).text).toBe(ECHO);
  });

  it('takes the key in the HTTP Basic user slot (the 2010 documentation form)', async () => {
    expect((await call(base, { api_action: 'test.echo', a: 1 }, { init: { headers: basic(key, '') } })).text).toBe(ECHO);
    expect((await call(base, { api_action: 'test.echo', a: 1 }, { init: { headers: { authorization: `Basic ${Buffer.from(key).toString('base64')}` } } })).text).toBe(ECHO);
  });

  it('answers code 4 with DATA {} and the action echoed, HTTP 200, when the key is missing or wrong', async () => {
    const cases: Parameters<typeof call>[] = [
      [base, { api_action: 'test.echo', a: 1 }],
      [base, { api_action: 'test.echo', a: 1, api_key: '' }],
      [base, { api_action: 'test.echo', a: 1, api_key: key.slice(0, -1) }],
      [base, { api_action: 'test.echo', a: 1, api_key: key.toLowerCase() }],
      [base, { api_action: 'test.echo', a: 1 }, { init: { headers: basic('u', 'wrong') } }],
      [base, { api_action: 'test.echo', a: 1 }, { init: { headers: { authorization: `Bearer ${key}` } } }],
    ];
    for (const c of cases) {
      const a = await call(...c);
      expect(a.status).toBe(200);
      expect(a.text).toBe(AUTH_FAILED);
    }
    for (const action of ['domain.list', 'domain.create', 'domain.resource.list', 'domain.resource.delete']) {
      expect((await call(base, { api_action: action, api_key: 'x'.repeat(64) })).text).toBe(errorBody(action, 4, 'Authentication failed'));
    }
  });

  it('authenticates before it checks arguments, so nothing leaks to a caller without a key', async () => {
    expect((await call(base, { api_action: 'domain.resource.list' })).text).toBe(errorBody('domain.resource.list', 4, 'Authentication failed'));
    expect((await call(base, { api_action: 'domain.delete', DomainID: 1 })).text).toBe(errorBody('domain.delete', 4, 'Authentication failed'));
  });

  it('needs no key for api.spec and user.getapikey', async () => {
    expect((await data(base, { api_action: 'api.spec' })).VERSION).toBe(3.3);
    expect((await data(base, { api_action: 'user.getapikey', username: 'alice', password: PASSWORD })).USERNAME).toBe('alice');
  });
});

describe('user.getapikey', () => {
  it('returns USERNAME and API_KEY in the real shape, and the key works', async () => {
    const a = await call(base, { api_action: 'user.getapikey', username: 'alice', password: PASSWORD }, { transport: 'POST-form' });
    expect(a.text).toMatch(/^\{"ERRORARRAY":\[\],"ACTION":"user\.getapikey","DATA":\{"USERNAME":"alice","API_KEY":"[A-Za-z0-9]+"\}\}$/);
    expect((await call(base, { api_action: 'test.echo', api_key: a.body.DATA.API_KEY, a: 1 })).text).toBe(ECHO);
  });

  it('issues keys of 64+ letters and digits that never look like a v4 token (64 lower-case hex)', async () => {
    const keys = [key];
    for (let i = 0; i < 8; i++) keys.push((await data(base, { api_action: 'user.getapikey', username: 'alice', password: PASSWORD, expires: 1 })).API_KEY);
    for (const k of keys) {
      expect(k).toMatch(/^[A-Za-z0-9]{64,}$/);
      expect(k).not.toMatch(/^[0-9a-f]{64}$/);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('answers the real failure body for a wrong password or an unknown user', async () => {
    const real = '{"ERRORARRAY":[{"ERRORCODE":4,"ERRORMESSAGE":"Authentication failed"}],"ACTION":"user.getapikey","DATA":{}}';
    expect((await call(base, { api_action: 'user.getapikey', username: 'alice', password: 'wrong' })).text).toBe(real);
    expect((await call(base, { api_action: 'user.getapikey', username: 'nobody', password: PASSWORD })).text).toBe(real);
  });

  it('needs username and password (code 6)', async () => {
    expect(await errors(base, { api_action: 'user.getapikey', password: PASSWORD })).toEqual([[6, 'USERNAME is required but was not passed in']]);
    expect(await errors(base, { api_action: 'user.getapikey', username: 'alice' })).toEqual([[6, 'PASSWORD is required but was not passed in']]);
  });

  it('stores the label, and expires after 168 hours by default, after `expires` hours, or never with 0', async () => {
    const issue = async (extra: Record<string, string | number>) => {
      const k = (await data(base, { api_action: 'user.getapikey', username: 'alice', password: PASSWORD, ...extra })).API_KEY as string;
      const rows = await server.services.store.listKeys(accountId, Date.now());
      const row = rows.find((r) => k.startsWith(r.prefix) && r.label === extra.label);
      expect(row).toBeDefined();
      return row!;
    };
    const byDefault = await issue({ label: 'default' });
    expect(byDefault.expiresAt! - byDefault.createdAt).toBe(168 * 3_600_000);
    const two = await issue({ label: 'two hours', expires: 2 });
    expect(two.expiresAt! - two.createdAt).toBe(2 * 3_600_000);
    const never = await issue({ label: 'never', expires: 0 });
    expect(never.expiresAt).toBeNull();
  });

  it('refuses an expired key', async () => {
    const expired = 'Expired0Key'.padEnd(64, 'x');
    const now = Date.now();
    await server.services.store.insertKey(accountId, hashKey(expired), expired.slice(0, 6), 'expired', now - 2 * 3_600_000, now - 3_600_000);
    expect((await call(base, { api_action: 'test.echo', api_key: expired, a: 1 })).text).toBe(AUTH_FAILED);
  });

  it('checks expires: non-numeric is code 7, outside 0..8760 is code 8', async () => {
    const range = 'The expiry must be a whole number of hours between 0 and 8760 (0 means never).';
    expect(await errors(base, { api_action: 'user.getapikey', username: 'alice', password: PASSWORD, expires: 'soon' })).toEqual([[7, 'EXPIRES must be a whole number.']]);
    expect(await errors(base, { api_action: 'user.getapikey', username: 'alice', password: PASSWORD, expires: 8761 })).toEqual([[8, range]]);
    expect(await errors(base, { api_action: 'user.getapikey', username: 'alice', password: PASSWORD, expires: -1 })).toEqual([[8, range]]);
  });

  it('limits an account to 20 active keys; expired keys do not count', async () => {
    const fresh = await server.user('carol', PASSWORD); // one key
    const now = Date.now();
    await server.services.store.insertKey(fresh.accountId, hashKey('old'.padEnd(64, 'z')), 'oldzzz', 'expired', now - 7_200_000, now - 3_600_000);
    for (let i = 2; i <= 20; i++) await data(base, { api_action: 'user.getapikey', username: 'carol', password: PASSWORD });
    expect(await errors(base, { api_action: 'user.getapikey', username: 'carol', password: PASSWORD })).toEqual([
      [8, 'The number of active API keys is limited to 20; revoke one first.'],
    ]);
    expect((await server.services.store.listKeys(fresh.accountId, Date.now())).length).toBe(20);
  });
});
