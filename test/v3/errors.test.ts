/** Interface A error codes that are not about one field: 1, 2, 3/9, 5 (foreign = missing), and test.echo. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KyselyJournalStore } from '../../src/store/journal.js';
import { call, data, domain, errorBody, records, resource, world, type World } from './support.js';

let w: World;
let aliceDomain: number;
let aliceRecord: number;
beforeAll(async () => {
  w = await world();
  aliceDomain = await domain(w.base, w.alice, 'alice.example');
  aliceRecord = await resource(w.base, w.alice, aliceDomain, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
});
afterAll(() => w.server.close());

describe('interface A error codes', () => {
  it('answers code 2 when api_action is missing or empty, with ACTION ""', async () => {
    const expected = errorBody('', 2, 'No action was requested');
    expect((await call(w.base, { api_key: w.alice })).text).toBe(expected);
    expect((await call(w.base, { api_key: w.alice, api_action: '' })).text).toBe(expected);
    expect((await call(w.base, { api_key: w.alice, api_action: '  ' }, { transport: 'POST-form' })).text).toBe(expected);
    expect((await call(w.base, {})).text).toBe(expected);
  });

  it('answers code 3 for an unknown class and code 9 for an unknown method of a known class, echoing the action', async () => {
    expect((await call(w.base, { api_key: w.alice, api_action: 'linode.list' })).text).toBe(errorBody('linode.list', 3, 'The requested class does not exist'));
    expect((await call(w.base, { api_key: w.alice, api_action: 'nothing' })).text).toBe(errorBody('nothing', 3, 'The requested class does not exist'));
    expect((await call(w.base, { api_key: w.alice, api_action: 'domain.get' })).text).toBe(errorBody('domain.get', 9, 'Method Not Implemented'));
    expect((await call(w.base, { api_key: w.alice, api_action: 'domain.resource.get' })).text).toBe(errorBody('domain.resource.get', 9, 'Method Not Implemented'));
    expect((await call(w.base, { api_key: w.alice, api_action: 'test.nope' })).text).toBe(errorBody('test.nope', 9, 'Method Not Implemented'));
    // Checked before authentication: the action table is public (api.spec).
    expect((await call(w.base, { api_action: 'domain.get' })).text).toBe(errorBody('domain.get', 9, 'Method Not Implemented'));
  });

  it('echoes the canonical action name whatever case it was sent in', async () => {
    expect((await call(w.base, { api_key: w.alice, api_action: 'Domain.List' })).body.ACTION).toBe('domain.list');
    expect((await call(w.base, { api_key: w.alice, api_action: 'DOMAIN.RESOURCES.LIST', DomainID: aliceDomain })).body.ACTION).toBe('domain.resource.list');
  });

  it("answers another account's IDs exactly like IDs that do not exist (code 5)", async () => {
    const missingDomain = 99_999_999;
    const cases: [string, Record<string, string | number>, Record<string, string | number>][] = [
      ['domain.list', { DomainID: aliceDomain }, { DomainID: missingDomain }],
      ['domain.update', { DomainID: aliceDomain, Description: 'mine' }, { DomainID: missingDomain, Description: 'mine' }],
      ['domain.delete', { DomainID: aliceDomain }, { DomainID: missingDomain }],
      ['domain.resource.list', { DomainID: aliceDomain }, { DomainID: missingDomain }],
      ['domain.resource.list', { DomainID: aliceDomain, ResourceID: aliceRecord }, { DomainID: missingDomain, ResourceID: aliceRecord }],
      ['domain.resource.create', { DomainID: aliceDomain, Type: 'A', Name: 'x', Target: '192.0.2.9' }, { DomainID: missingDomain, Type: 'A', Name: 'x', Target: '192.0.2.9' }],
      ['domain.resource.update', { ResourceID: aliceRecord, Target: '192.0.2.9' }, { ResourceID: missingDomain, Target: '192.0.2.9' }],
      ['domain.resource.update', { DomainID: aliceDomain, ResourceID: aliceRecord, Target: '192.0.2.9' }, { DomainID: missingDomain, ResourceID: aliceRecord, Target: '192.0.2.9' }],
      ['domain.resource.delete', { DomainID: aliceDomain, ResourceID: aliceRecord }, { DomainID: missingDomain, ResourceID: missingDomain }],
    ];
    for (const [action, foreign, missing] of cases) {
      const a = await call(w.base, { api_action: action, api_key: w.bob, ...foreign });
      const b = await call(w.base, { api_action: action, api_key: w.bob, ...missing });
      expect(a.text, action).toBe(errorBody(action, 5, 'Object not found'));
      expect(b.text, action).toBe(a.text);
    }
    // None of Bob's attempts touched Alice's data.
    expect((await records(w.base, w.alice, aliceDomain)).map((r) => [r.RESOURCEID, r.TARGET])).toEqual([[aliceRecord, '192.0.2.1']]);
    expect((await data(w.base, { api_action: 'domain.list', api_key: w.alice, DomainID: aliceDomain }))[0].DESCRIPTION).toBe('');
    expect((await data(w.base, { api_action: 'domain.list', api_key: w.bob })).map((d: { DOMAIN: string }) => d.DOMAIN)).not.toContain('alice.example');
  });

  it('answers IDs that are not positive numbers like missing ones (5), and non-numbers with 7', async () => {
    for (const id of [0, -1, '-0']) {
      expect((await call(w.base, { api_action: 'domain.list', api_key: w.alice, DomainID: id })).text).toBe(errorBody('domain.list', 5, 'Object not found'));
    }
    for (const id of ['abc', '1.0', '0x10', '1e3', '99999999999999999999']) {
      expect((await call(w.base, { api_action: 'domain.list', api_key: w.alice, DomainID: id })).text).toBe(errorBody('domain.list', 7, 'DOMAINID must be a whole number.'));
    }
  });

  it('answers an unexpected internal failure with code 1 and changes nothing', async () => {
    const before = await records(w.base, w.alice, aliceDomain);
    const spy = vi.spyOn(KyselyJournalStore.prototype, 'appendJournal').mockRejectedValue(new Error('disk on fire'));
    try {
      const a = await call(w.base, { api_action: 'domain.resource.create', api_key: w.alice, DomainID: aliceDomain, Type: 'TXT', Name: 'lost', Target: 'x' });
      expect(a.status).toBe(200);
      expect(a.text).toBe(errorBody('domain.resource.create', 1, 'The request could not be completed; nothing was changed.'));
      expect(a.text).not.toContain('disk on fire');
      const d = await call(w.base, { api_action: 'domain.delete', api_key: w.alice, DomainID: aliceDomain });
      expect(d.text).toBe(errorBody('domain.delete', 1, 'The request could not be completed; nothing was changed.'));
      expect(spy).toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
    expect(await records(w.base, w.alice, aliceDomain)).toEqual(before);
  });
});

describe('test.echo', () => {
  it('echoes every non-api_ argument with its name upper-cased and its value unchanged', async () => {
    const a = await call(w.base, [['api_action', 'test.echo'], ['api_key', w.alice], ['foo', 'bar'], ['MiXed', 'Va lue;,'], ['api_responseFormat', 'json'], ['empty', '']]);
    expect(a.text).toBe('{"ERRORARRAY":[],"ACTION":"test.echo","DATA":{"FOO":"bar","MIXED":"Va lue;,","EMPTY":""}}');
  });

  it('answers {} without arguments (the real 2015 body)', async () => {
    expect((await call(w.base, { api_action: 'test.echo', api_key: w.alice })).text).toBe('{"ERRORARRAY":[],"ACTION":"test.echo","DATA":{}}');
  });
});
