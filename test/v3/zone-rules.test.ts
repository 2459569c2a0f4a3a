/**
 * Record rules that keep every zone loadable by other DNS software (named-checkzone refuses the zone
 * otherwise); each found by exporting zones after the hostile-input tests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkAllZones } from '../support/zonefile.js';
import { data, domain, errors, resource, world, type World } from './support.js';

let w: World;
beforeAll(async () => {
  w = await world();
});
afterAll(() => w.server.close());

describe('NS records', () => {
  it('refuses a wildcard owner on create and update, and the zone still loads in BIND', async () => {
    const id = await domain(w.base, w.alice, 'wild-ns.example');
    for (const Name of ['*', '*.sub']) {
      const found = await errors(w.base, { api_action: 'domain.resource.create', api_key: w.alice, DomainID: id, Type: 'NS', Name, Target: 'ns1.example.net' });
      expect(found).toEqual([[8, `An NS record cannot have a wildcard name ('${Name}'); delegate a named sub-domain instead.`]]);
    }
    // A delegation of a named sub-domain is fine, but cannot be moved onto a wildcard.
    const rid = await resource(w.base, w.alice, id, { Type: 'NS', Name: 'sub', Target: 'ns1.example.net' });
    const moved = await errors(w.base, { api_action: 'domain.resource.update', api_key: w.alice, DomainID: id, ResourceID: rid, Name: '*' });
    expect(moved).toEqual([[8, "An NS record cannot have a wildcard name ('*'); delegate a named sub-domain instead."]]);
    // Wildcards of other types stay allowed.
    await resource(w.base, w.alice, id, { Type: 'A', Name: '*', Target: '192.0.2.1' });
    const listed = await data(w.base, { api_action: 'domain.resource.list', api_key: w.alice, DomainID: id });
    expect(listed.map((r: { TYPE: string; NAME: string }) => `${r.TYPE} ${r.NAME}`).sort()).toEqual(['A *', 'NS sub']);
    await checkAllZones(w.server);
  });
});
