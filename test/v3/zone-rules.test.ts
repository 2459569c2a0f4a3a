/**
 * Record rules that keep every zone loadable by other DNS software (named-checkzone refuses the zone
 * otherwise); each found by exporting zones after the hostile-input tests.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { checkAllZones } from '../support/zonefile.js';
import { data, domain, errors, resource, world, type World } from './support.js';
import { peers } from '../support/peers.js';

const needsNamedCheckzone = peers('named-checkzone');

let w: World;
beforeAll(async () => {
  w = await world();
});
afterAll(() => w.server.close());

describe('NS records', () => {
  needsNamedCheckzone.it('refuses a wildcard owner on create and update, and the zone still loads in BIND', async () => {
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

describe('name servers inside the domain', () => {
  needsNamedCheckzone.it('need an A or AAAA record: refused before the address exists, and its last address cannot go', async () => {
    const name = 'own-ns.example';
    const id = await domain(w.base, w.alice, name);
    const refusal = `ns.${name} is a name server of ${name} (an NS record at its apex) and lies inside it, so it needs an A or AAAA record there: create the address before such an NS record, and delete or change the NS record before its last address.`;
    const create = (fields: Record<string, string>) => errors(w.base, { api_action: 'domain.resource.create', api_key: w.alice, DomainID: id, ...fields });
    expect(await create({ Type: 'NS', Name: '', Target: `ns.${name}` })).toEqual([[8, refusal]]);
    // A delegation's name server, or one outside the domain, needs nothing here.
    await resource(w.base, w.alice, id, { Type: 'NS', Name: 'sub', Target: `ns.${name}` });
    await resource(w.base, w.alice, id, { Type: 'NS', Name: '', Target: 'ns9.example.net' });

    const a = await resource(w.base, w.alice, id, { Type: 'A', Name: 'ns', Target: '192.0.2.53' });
    const ns = await resource(w.base, w.alice, id, { Type: 'NS', Name: '', Target: `NS.${name.toUpperCase()}` });
    const update = (fields: Record<string, string | number>) => ({ api_action: 'domain.resource.update', api_key: w.alice, DomainID: id, ...fields });
    const del = (rid: number) => ({ api_action: 'domain.resource.delete', api_key: w.alice, DomainID: id, ResourceID: rid });
    const upper = refusal.replace(`ns.${name} is`, `NS.${name.toUpperCase()} is`);
    expect(await errors(w.base, del(a))).toEqual([[8, upper]]);
    expect(await errors(w.base, update({ ResourceID: a, Name: 'other' }))).toEqual([[8, upper]]);
    // Its address may change, and with a second address the first may go.
    await data(w.base, update({ ResourceID: a, Target: '192.0.2.54' }));
    await resource(w.base, w.alice, id, { Type: 'AAAA', Name: 'ns', Target: '2001:db8::53' });
    await data(w.base, del(a));
    // Once the NS record names a host elsewhere, the host's last address may go too.
    await data(w.base, update({ ResourceID: ns, Target: 'ns8.example.net' }));
    const aaaa = (await data(w.base, { api_action: 'domain.resource.list', api_key: w.alice, DomainID: id })).find((r: { TYPE: string }) => r.TYPE === 'AAAA');
    await data(w.base, del(aaaa.RESOURCEID));
    // An NS record moved onto the apex, pointing at an address-less host, is refused as well.
    const sub = (await data(w.base, { api_action: 'domain.resource.list', api_key: w.alice, DomainID: id })).find((r: { NAME: string }) => r.NAME === 'sub');
    expect(await errors(w.base, update({ ResourceID: sub.RESOURCEID, Name: '' }))).toEqual([[8, refusal]]);
    await checkAllZones(w.server);
  });

  needsNamedCheckzone.it('keep the domain loadable when it is renamed onto their names', async () => {
    const id = await domain(w.base, w.alice, 'before-rename.example');
    await resource(w.base, w.alice, id, { Type: 'NS', Name: '', Target: 'ns.after-rename.example' });
    const found = await errors(w.base, { api_action: 'domain.update', api_key: w.alice, DomainID: id, Domain: 'after-rename.example' });
    expect(found).toEqual([
      [8, 'ns.after-rename.example is a name server of after-rename.example (an NS record at its apex) and lies inside it, so it needs an A or AAAA record there: create the address before such an NS record, and delete or change the NS record before its last address.'],
    ]);
    expect((await data(w.base, { api_action: 'domain.list', api_key: w.alice, DomainID: id }))[0].DOMAIN).toBe('before-rename.example');
    await checkAllZones(w.server);
  });
});
