/** batch (api_requestArray): order, per-item credentials, codes 10, 11 and 13, and that items are not one transaction. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BATCH } from '../../src/http/v3/dispatch.js';
import { call, data, domain, errorBody, records, world, type Transport, type World } from './support.js';

let w: World;
beforeAll(async () => {
  w = await world();
});
afterAll(() => w.server.close());

const batch = (items: unknown, extra: Record<string, string> = {}, transport?: Transport) =>
  call(w.base, { api_action: 'batch', api_requestArray: typeof items === 'string' ? items : JSON.stringify(items), ...extra }, { transport });

describe('batch', () => {
  it('answers a JSON array of ordinary envelopes in request order (the documentation example)', async () => {
    for (const transport of ['GET', 'POST-form', 'POST-multipart'] as Transport[]) {
      const a = await batch([{ api_action: 'test.echo', foo: 'bar' }, { api_action: 'test.echo', ying: 'yang' }], { api_key: w.alice }, transport);
      expect(a.status).toBe(200);
      expect(a.contentType).toBe('application/json;charset=UTF-8');
      expect(a.text).toBe('[{"ERRORARRAY":[],"ACTION":"test.echo","DATA":{"FOO":"bar"}},{"ERRORARRAY":[],"ACTION":"test.echo","DATA":{"YING":"yang"}}]');
    }
  });

  it('takes the action name and the item argument names in any case (linode-python lower-cases them)', async () => {
    const id = await domain(w.base, w.alice, 'batch-case.example');
    const a = await call(w.base, { API_ACTION: 'BATCH', Api_Key: w.alice, API_REQUESTARRAY: JSON.stringify([{ API_ACTION: 'Domain.Resource.Create', domainid: id, type: 'txt', name: 'x', target: 'v' }]) });
    expect(a.text).toMatch(/^\[\{"ERRORARRAY":\[\],"ACTION":"domain\.resource\.create","DATA":\{"ResourceID":\d+\}\}\]$/);
    expect((await records(w.base, w.alice, id)).map((r) => [r.TYPE, r.NAME, r.TARGET])).toEqual([['TXT', 'x', 'v']]);
  });

  it('runs items one by one and keeps the ones that succeeded when a later one fails (not atomic)', async () => {
    const id = await domain(w.base, w.alice, 'batch-partial.example');
    const a = await batch(
      [
        { api_action: 'domain.resource.create', DomainID: id, Type: 'A', Name: 'ok', Target: '192.0.2.1' },
        { api_action: 'domain.resource.create', DomainID: id, Type: 'A', Name: 'bad', Target: 'not-an-address' },
        { api_action: 'domain.resource.list', DomainID: id },
      ],
      { api_key: w.alice },
    );
    const [first, second, third] = a.body;
    expect(first.ERRORARRAY).toEqual([]);
    expect(second).toMatchObject({ ACTION: 'domain.resource.create', DATA: {} });
    expect(second.ERRORARRAY.map((e: { ERRORCODE: number }) => e.ERRORCODE)).toEqual([8]);
    // The third item sees the first item's record, and only it.
    expect(third.DATA.map((r: { NAME: string }) => r.NAME)).toEqual(['ok']);
    expect((await records(w.base, w.alice, id)).map((r) => r.NAME)).toEqual(['ok']);
  });

  it('reports every item error in the item, with the usual codes (2, 3, 9, 5, 6)', async () => {
    const a = await batch(
      [{}, { api_action: 'linode.list' }, { api_action: 'domain.get' }, { api_action: 'domain.list', DomainID: 99_999_999 }, { api_action: 'domain.delete' }],
      { api_key: w.alice },
    );
    expect(a.text).toBe(
      `[${[
        errorBody('', 2, 'No action was requested'),
        errorBody('linode.list', 3, 'The requested class does not exist'),
        errorBody('domain.get', 9, 'Method Not Implemented'),
        errorBody('domain.list', 5, 'Object not found'),
        errorBody('domain.delete', 6, 'DOMAINID is required but was not passed in'),
      ].join(',')}]`,
    );
  });

  it("authenticates each item: the item's own api_key, else the outer key or HTTP Basic", async () => {
    const aliceZone = await domain(w.base, w.alice, 'batch-alice.example');
    const bobZone = await domain(w.base, w.bob, 'batch-bob.example');
    const list = (extra: Record<string, string> = {}) => ({ api_action: 'domain.list', ...extra });
    const names = (env: { DATA: { DOMAIN: string }[] }) => env.DATA.map((d) => d.DOMAIN);

    const outer = await batch([list(), list({ api_key: w.bob })], { api_key: w.alice });
    expect(names(outer.body[0])).toContain('batch-alice.example');
    expect(names(outer.body[0])).not.toContain('batch-bob.example');
    expect(names(outer.body[1])).toContain('batch-bob.example');
    expect(names(outer.body[1])).not.toContain('batch-alice.example');

    const basic = { authorization: `Basic ${Buffer.from(`u:${w.bob}`).toString('base64')}` };
    const viaBasic = await call(w.base, { api_action: 'batch', api_requestArray: JSON.stringify([list()]) }, { init: { headers: basic } });
    expect(names(viaBasic.body[0])).toContain('batch-bob.example');

    // No key anywhere, or a wrong one in the item: that item fails with code 4, the others still run.
    const mixed = await batch([list(), { api_action: 'test.echo', api_key: 'wrong', a: '1' }, { api_action: 'api.spec' }]);
    expect(mixed.body[0]).toEqual({ ERRORARRAY: [{ ERRORCODE: 4, ERRORMESSAGE: 'Authentication failed' }], ACTION: 'domain.list', DATA: {} });
    expect(mixed.body[1]).toEqual({ ERRORARRAY: [{ ERRORCODE: 4, ERRORMESSAGE: 'Authentication failed' }], ACTION: 'test.echo', DATA: {} });
    expect(mixed.body[2].DATA.VERSION).toBe(3.3);

    // Bob's key cannot reach Alice's domain through a batch either.
    const foreign = await batch([{ api_action: 'domain.delete', DomainID: aliceZone }], { api_key: w.bob });
    expect(foreign.text).toBe(`[${errorBody('domain.delete', 5, 'Object not found')}]`);
    expect((await data(w.base, { api_action: 'domain.list', api_key: w.alice, DomainID: aliceZone }))[0].DOMAIN).toBe('batch-alice.example');
    expect(bobZone).toBeGreaterThan(0);
  });

  it(`takes up to ${MAX_BATCH} items and refuses more with code 10, running none`, async () => {
    const id = await domain(w.base, w.alice, 'batch-size.example');
    const item = (i: number) => ({ api_action: 'domain.resource.create', DomainID: id, Type: 'TXT', Name: `n${i}`, Target: 'v' });
    const full = await batch(Array.from({ length: MAX_BATCH }, (_, i) => item(i)), { api_key: w.alice }, 'POST-form');
    expect(full.body).toHaveLength(MAX_BATCH);
    expect(full.body.every((e: { ERRORARRAY: unknown[] }) => e.ERRORARRAY.length === 0)).toBe(true);
    const tooMany = await batch(Array.from({ length: MAX_BATCH + 1 }, (_, i) => item(100 + i)), { api_key: w.alice }, 'POST-form');
    expect(tooMany.status).toBe(200);
    expect(tooMany.text).toBe(errorBody('batch', 10, `Too many batched requests; at most ${MAX_BATCH} are allowed.`));
    expect(await records(w.base, w.alice, id)).toHaveLength(MAX_BATCH);
  });

  it('refuses an api_requestArray that is not a JSON array of objects with code 11', async () => {
    const body = errorBody('batch', 11, "RequestArray isn't valid JSON or WDDX");
    for (const bad of ['', 'not json', '{"api_action":"test.echo"}', '[1,2]', '[[]]', '[null]', '"x"']) {
      expect((await batch(bad, { api_key: w.alice })).text, bad).toBe(body);
    }
    expect((await call(w.base, { api_action: 'batch', api_key: w.alice })).text).toBe(body);
    // An empty array is a valid, empty batch.
    expect((await batch([], { api_key: w.alice })).text).toBe('[]');
  });

  it('refuses user.getapikey or a nested batch with code 13, running no item', async () => {
    const id = await domain(w.base, w.alice, 'batch-denied.example');
    const create = { api_action: 'domain.resource.create', DomainID: id, Type: 'TXT', Name: 'before', Target: 'v' };
    const getKey = await batch([create, { api_action: 'User.GetAPIKey', username: 'alice', password: 'correct horse battery staple' }], { api_key: w.alice });
    expect(getKey.text).toBe(errorBody('batch', 13, 'Batch requests may not include User.GetAPIKey.'));
    const nested = await batch([create, { api_action: 'batch', api_requestArray: '[]' }], { api_key: w.alice });
    expect(nested.text).toBe(errorBody('batch', 13, 'Batch requests may not include batch.'));
    expect(await records(w.base, w.alice, id)).toEqual([]);
  });
});
