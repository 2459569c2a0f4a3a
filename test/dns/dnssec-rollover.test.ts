/**
 * DNSSEC key rollover and the way out, with waits of a second or two, checked by `delv` all along: during a
 * rollover (also to another algorithm) every answer validates both for a resolver still anchored on the old
 * DS and, once CDS names the new key, for one anchored on the new DS; turning DNSSEC off publishes the CDS
 * delete records while the zone is still signed, and only then stops signing.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { delv } from '../support/dnssec.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createDomain, createRecord, dig } from './support.js';
import { peers } from '../support/peers.js';

const needsDigDelv = peers('dig', 'delv');

const ZONE = 'roll.example';
/** Seconds: the DNSKEY TTL, the parent's DS TTL, propagation. */
const TIMINGS = { dnskeyTtl: 1, dsTtl: 2, propagation: 1 };

let server: TestServer;
let apiKey: string;
let domainId: number;

const v1 = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.base}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
};

/** The CDS records served now, as "tag alg digest-type digest". */
const cds = async (): Promise<string[]> => (await dig(server, ZONE, 'CDS')).answer.map((r) => r.data.replace(/\s+/g, ' ')).sort();

/** Whether delv, anchored on these DS records ("tag alg type digest"), validates `name` `type`. */
const validates = async (ds: string[], name = `www.${ZONE}`, type = 'A'): Promise<boolean> =>
  /fully validated/.test(await delv(ZONE, ds, { host: '127.0.0.1', port: server.dnsAddress?.port as number }, name, type));

beforeAll(async () => {
  server = await startTestServer({ dnssec: TIMINGS, dnssecTickMs: 100 });
  ({ key: apiKey } = await server.user('roller'));
  domainId = await createDomain(server.base, apiKey, ZONE);
  await createRecord(server.base, apiKey, domainId, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
});

afterAll(async () => {
  await server?.close();
});

describe('a key rollover', () => {
  needsDigDelv.it('to Ed25519 never breaks validation, for resolvers on the old DS and then on the new', async () => {
    expect((await v1('PUT', `/domains/${domainId}/dnssec`, { enabled: true })).status).toBeLessThan(300);
    const oldDs = await cds();
    expect(oldDs).toHaveLength(1);
    expect(await validates(oldDs)).toBe(true);
    expect((await v1('POST', `/domains/${domainId}/dnssec/rollover`, { algorithm: 'ED25519' })).status).toBeLessThan(300);
    let newDs: string[] = [];
    let switchedAt = 0;
    const deadline = Date.now() + 30_000;
    const seen = new Set<string>();
    // Until the old key is gone (one key left, and it is the new one).
    for (;;) {
      const { body } = await v1('GET', `/domains/${domainId}/dnssec`);
      const keys = body.keys as { key_tag: number; algorithm: number; state: string }[];
      seen.add(keys.map((k) => `${k.algorithm}:${k.state}`).join(','));
      const now = await cds();
      if (newDs.length === 0 && now.join() !== oldDs.join()) {
        newDs = now;
        switchedAt = Date.now();
      }
      // A resolver that has the old DS cached validates until that DS has expired (the parent's TTL after the switch).
      if (newDs.length === 0 || Date.now() - switchedAt < TIMINGS.dsTtl * 1000) expect(await validates(oldDs)).toBe(true);
      if (newDs.length > 0) expect(await validates(newDs)).toBe(true);
      if (keys.length === 1 && keys[0]?.algorithm === 15) break;
      if (Date.now() > deadline) throw new Error(`the rollover did not finish: ${[...seen].join(' | ')}`);
      await new Promise((r) => setTimeout(r, 150));
    }
    expect(newDs).toHaveLength(1);
    expect(newDs[0]).toMatch(/^\d+ 15 2 [0-9A-F ]+$/);
    // Both keys were published and signing at once before CDS moved.
    expect([...seen].some((s) => s.split(',').length === 2)).toBe(true);
    expect(await validates(newDs, `nothere.${ZONE}`)).toBe(true);
    expect(await validates(oldDs)).toBe(false);
  });
});

describe('turning DNSSEC off', () => {
  needsDigDelv.it('publishes the CDS delete records while still signing, then stops signing', async () => {
    const ds = await cds();
    expect((await v1('PUT', `/domains/${domainId}/dnssec`, { enabled: false })).status).toBeLessThan(300);
    // RFC 8078 4: CDS 0 0 0 00 and CDNSKEY 0 3 0 AA==, signed, while the parent may still hold our DS.
    expect(await cds()).toEqual(['0 0 0 00']);
    expect((await dig(server, ZONE, 'CDNSKEY')).answer.map((r) => r.data)).toEqual(['0 3 0 AA==']);
    expect(await validates(ds)).toBe(true);
    expect(await validates(ds, ZONE, 'CDS')).toBe(true);
    const deadline = Date.now() + 20_000;
    while ((await dig(server, ZONE, 'DNSKEY')).answer.length > 0) {
      if (Date.now() > deadline) throw new Error('the zone was not unsigned');
      await new Promise((r) => setTimeout(r, 150));
    }
    const plain = await dig(server, `www.${ZONE}`, 'A', '+dnssec');
    expect(plain.answer.map((r) => r.type)).toEqual(['A']);
    expect(await cds()).toEqual([]);
    expect((await v1('GET', `/domains/${domainId}/dnssec`)).body).toMatchObject({ enabled: false, keys: [] });
  });
});
