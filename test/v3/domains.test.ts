/** domain.create, domain.update, domain.delete, domain.list: shapes, defaults, rules and their error sentences. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, data, domain, errors, records, resource, world, type World } from './support.js';

let w: World;
beforeAll(async () => {
  w = await world();
});
afterAll(() => w.server.close());

const list = (key: string, extra: Record<string, string | number> = {}) => data(w.base, { api_action: 'domain.list', api_key: key, ...extra });
const create = (fields: Record<string, string | number>) => call(w.base, { api_action: 'domain.create', api_key: w.alice, Type: 'master', ...fields });
const update = (id: number, fields: Record<string, string | number>) => call(w.base, { api_action: 'domain.update', api_key: w.alice, DomainID: id, ...fields });
const createErrors = (fields: Record<string, string | number>) => errors(w.base, { api_action: 'domain.create', api_key: w.alice, Type: 'master', ...fields });
const updateErrors = (id: number, fields: Record<string, string | number>) => errors(w.base, { api_action: 'domain.update', api_key: w.alice, DomainID: id, ...fields });

describe('domain.create and domain.list', () => {
  it('creates a domain and lists it with the 13 keys, in the order and with the defaults of the real bodies', async () => {
    const created = await create({ Domain: 'shape.example', SOA_Email: 'trinopoty@hotmail.com' });
    expect(created.text).toMatch(/^\{"ERRORARRAY":\[\],"ACTION":"domain\.create","DATA":\{"DomainID":\d+\}\}$/);
    const id = created.body.DATA.DomainID;
    const a = await call(w.base, { api_action: 'domain.list', api_key: w.alice, DomainID: id });
    expect(a.text).toBe(
      `{"ERRORARRAY":[],"ACTION":"domain.list","DATA":[{"DOMAINID":${id},"DESCRIPTION":"","EXPIRE_SEC":0,"RETRY_SEC":0,"STATUS":1,"LPM_DISPLAYGROUP":"","MASTER_IPS":"","REFRESH_SEC":0,"SOA_EMAIL":"trinopoty@hotmail.com","TTL_SEC":0,"DOMAIN":"shape.example","TYPE":"master","AXFR_IPS":"none"}]}`,
    );
  });

  it('stores every optional argument, with address lists ";"-terminated and "none" for an empty AXFR list', async () => {
    const id = await domain(w.base, w.alice, 'full.example', {
      Description: 'foo', lpm_displayGroup: 'test', status: 2, TTL_sec: 3600, Refresh_sec: 7200, Retry_sec: 14400, Expire_sec: 28800,
      master_ips: '1.2.3.4, 2001:db8::1', axfr_ips: '192.0.2.1;192.0.2.2;',
    });
    expect((await list(w.alice, { DomainID: id }))[0]).toEqual({
      DOMAINID: id, DESCRIPTION: 'foo', EXPIRE_SEC: 28800, RETRY_SEC: 14400, STATUS: 2, LPM_DISPLAYGROUP: 'test', MASTER_IPS: '1.2.3.4;2001:db8::1;',
      REFRESH_SEC: 7200, SOA_EMAIL: 'hostmaster@full.example', TTL_SEC: 3600, DOMAIN: 'full.example', TYPE: 'master', AXFR_IPS: '192.0.2.1;192.0.2.2;',
    });
  });

  it('accepts ";" or "," (and spaces) between addresses, drops repeats, and takes "none" as empty', async () => {
    const id = await domain(w.base, w.alice, 'lists.example', { axfr_ips: '192.0.2.1,192.0.2.2; 192.0.2.1 ,2001:DB8::5;' });
    expect((await list(w.alice, { DomainID: id }))[0].AXFR_IPS).toBe('192.0.2.1;192.0.2.2;2001:DB8::5;');
    await data(w.base, { api_action: 'domain.update', api_key: w.alice, DomainID: id, axfr_ips: 'none' });
    expect((await list(w.alice, { DomainID: id }))[0].AXFR_IPS).toBe('none');
  });

  it('reports a bad address in a list with code 8, naming it', async () => {
    expect(await createErrors({ Domain: 'badip.example', SOA_Email: 'h@badip.example', axfr_ips: '192.0.2.1;not-an-ip;' })).toEqual([
      [8, "'not-an-ip' in the AXFR IP list is not an IPv4 or IPv6 address."],
    ]);
    expect(await errors(w.base, { api_action: 'domain.create', api_key: w.alice, Domain: 'badip.example', Type: 'slave', master_ips: '300.1.1.1' })).toEqual([
      [8, "'300.1.1.1' in the master IP list is not an IPv4 or IPv6 address."],
    ]);
  });

  it('rounds TTL and SOA timers up to the allowed set, keeps 0 as "default"', async () => {
    // The live API: 20, 30, 40, 50 all became 300 (alexsacr/linode recording).
    const id = await domain(w.base, w.alice, 'timers.example', { Refresh_sec: 20, Retry_sec: 30, Expire_sec: 40, TTL_sec: 50 });
    expect((await list(w.alice, { DomainID: id }))[0]).toMatchObject({ REFRESH_SEC: 300, RETRY_SEC: 300, EXPIRE_SEC: 300, TTL_SEC: 300 });
    const cases: [number, number][] = [[0, 0], [1, 300], [300, 300], [301, 3600], [3601, 7200], [86401, 172800], [604801, 1209600], [1209601, 2419200], [2419200, 2419200]];
    for (const [given, stored] of cases) {
      await data(w.base, { api_action: 'domain.update', api_key: w.alice, DomainID: id, TTL_sec: given, Refresh_sec: given, Retry_sec: given, Expire_sec: given });
      expect((await list(w.alice, { DomainID: id }))[0]).toMatchObject({ REFRESH_SEC: stored, RETRY_SEC: stored, EXPIRE_SEC: stored, TTL_SEC: stored });
    }
  });

  it('refuses timers above 2419200 or negative with code 8, and non-numbers with code 7', async () => {
    const id = await domain(w.base, w.alice, 'badtimers.example');
    expect(await updateErrors(id, { TTL_sec: 2419201 })).toEqual([[8, 'The default TTL must be a whole number of seconds between 0 and 2419200 (0 means the default).']]);
    expect(await updateErrors(id, { Refresh_sec: -1 })).toEqual([[8, 'The refresh interval must be a whole number of seconds between 0 and 2419200 (0 means the default).']]);
    expect(await updateErrors(id, { Retry_sec: 'abc' })).toEqual([[7, 'RETRY_SEC must be a whole number.']]);
    expect(await updateErrors(id, { Expire_sec: '1.5' })).toEqual([[7, 'EXPIRE_SEC must be a whole number.']]);
  });

  it('takes status 0, 1 or 2 and refuses others', async () => {
    const id = await domain(w.base, w.alice, 'status.example', { status: 0 });
    expect((await list(w.alice, { DomainID: id }))[0].STATUS).toBe(0);
    for (const s of [1, 2, 0]) {
      await data(w.base, { api_action: 'domain.update', api_key: w.alice, DomainID: id, status: s });
      expect((await list(w.alice, { DomainID: id }))[0].STATUS).toBe(s);
    }
    expect(await updateErrors(id, { status: 3 })).toEqual([[8, 'The status must be 0 (disabled), 1 (active) or 2 (edit mode).']]);
  });

  it('needs SOA_Email for a master and master_ips for a slave', async () => {
    expect(await createErrors({ Domain: 'nosoa.example' })).toEqual([[8, 'A master domain needs an SOA e-mail address.']]);
    expect(await createErrors({ Domain: 'nosoa.example', SOA_Email: 'not-an-address' })).toEqual([
      [8, "The SOA e-mail address 'not-an-address' must be an e-mail address such as hostmaster@example.com."],
    ]);
    expect(await errors(w.base, { api_action: 'domain.create', api_key: w.alice, Domain: 'mirror.example', Type: 'slave' })).toEqual([
      [8, 'A slave domain (zone mirror) needs at least one master IP address.'],
    ]);
    const slave = await data(w.base, { api_action: 'domain.create', api_key: w.alice, Domain: 'mirror.example', Type: 'SLAVE', master_ips: '192.0.2.53' });
    expect((await list(w.alice, { DomainID: slave.DomainID }))[0]).toMatchObject({ TYPE: 'slave', SOA_EMAIL: '', MASTER_IPS: '192.0.2.53;' });
    expect(await createErrors({ Domain: 'odd.example', Type: 'primary', SOA_Email: 'h@odd.example' })).toEqual([[8, 'The domain type must be master or slave.']]);
  });

  it('needs Domain and Type (code 6, upper-cased name, no final period)', async () => {
    expect(await errors(w.base, { api_action: 'domain.create', api_key: w.alice, Type: 'master', SOA_Email: 'h@x.example' })).toEqual([[6, 'DOMAIN is required but was not passed in']]);
    expect(await errors(w.base, { api_action: 'domain.create', api_key: w.alice, Domain: 'x.example', SOA_Email: 'h@x.example' })).toEqual([[6, 'TYPE is required but was not passed in']]);
    expect(await errors(w.base, { api_action: 'domain.create', api_key: w.alice, Domain: ' ', Type: 'master' })).toEqual([[6, 'DOMAIN is required but was not passed in']]);
  });

  it('reports every problem of one request, each as its own error', async () => {
    const errs = await createErrors({ Domain: 'many.example', TTL_sec: 9999999, status: 7 });
    expect(errs.map(([c]) => c)).toEqual([8, 8, 8]);
    expect(errs.map(([, m]) => m)).toEqual([
      'A master domain needs an SOA e-mail address.',
      'The default TTL must be a whole number of seconds between 0 and 2419200 (0 means the default).',
      'The status must be 0 (disabled), 1 (active) or 2 (edit mode).',
    ]);
  });

  it('normalises the name (case, trailing dot) and refuses bad names', async () => {
    const id = await domain(w.base, w.alice, 'Upper.Example.', { SOA_Email: 'h@upper.example' });
    expect((await list(w.alice, { DomainID: id }))[0].DOMAIN).toBe('upper.example');
    expect(await createErrors({ Domain: 'single', SOA_Email: 'h@x.example' })).toEqual([[8, "The domain name 'single' must have at least 2 labels."]]);
    expect(await createErrors({ Domain: 'bad_name.example', SOA_Email: 'h@x.example' })).toEqual([
      [8, "The domain name 'bad_name.example' may only contain letters, digits and hyphens in dot-separated labels that neither start nor end with a hyphen."],
    ]);
  });

  it("refuses a duplicate domain service-wide with the real sentence, another account's included", async () => {
    await domain(w.base, w.alice, 'linode.com');
    const sentence = "The domain 'linode.com' already exists in our database.  Please open a ticket if you think this is in error.";
    const a = await call(w.base, { api_action: 'domain.create', api_key: w.bob, Domain: 'LINODE.com.', Type: 'master', SOA_Email: 'h@linode.com' });
    expect(a.text).toBe(`{"ERRORARRAY":[{"ERRORCODE":8,"ERRORMESSAGE":${JSON.stringify(sentence)}}],"ACTION":"domain.create","DATA":{}}`);
    expect(await createErrors({ Domain: 'linode.com', SOA_Email: 'h@linode.com' })).toEqual([[8, sentence]]);
  });

  it("refuses a domain inside or around another account's domain, by create or rename; the same account may nest", async () => {
    const id = await domain(w.base, w.alice, 'nest.example');
    await resource(w.base, w.alice, id, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
    const bobCreate = (name: string) => errors(w.base, { api_action: 'domain.create', api_key: w.bob, Domain: name, Type: 'master', SOA_Email: 'h@evil.example' });
    const inside = (name: string) => [[8, `The domain '${name}' lies inside nest.example, which another account manages; only that account can add names below it.`]];
    expect(await bobCreate('www.nest.example')).toEqual(inside('www.nest.example'));
    expect(await bobCreate('a.b.nest.example')).toEqual(inside('a.b.nest.example'));
    expect(await errors(w.base, { api_action: 'domain.create', api_key: w.bob, Domain: 'sub.nest.example', Type: 'slave', master_ips: '192.0.2.53' })).toEqual(
      inside('sub.nest.example'),
    );
    // Names that only end alike are not nested.
    const similar = await domain(w.base, w.bob, 'othernest.example');
    // Alice delegates a sub-domain to a zone of her own.
    const child = await domain(w.base, w.alice, 'deep.sub.nest.example');
    expect(await bobCreate('sub.nest.example')).toEqual(inside('sub.nest.example'));
    // Around: bob's zone would claim the names around alice's.
    const around = (name: string) => [[8, `The domain '${name}' would contain a domain that another account manages.`]];
    await data(w.base, { api_action: 'domain.delete', api_key: w.alice, DomainID: id });
    expect(await bobCreate('nest.example')).toEqual(around('nest.example'));
    expect(await bobCreate('sub.nest.example')).toEqual(around('sub.nest.example'));
    // A rename onto such a name is refused the same way, and changes nothing.
    const bobs = await domain(w.base, w.bob, 'elsewhere.example');
    expect(await errors(w.base, { api_action: 'domain.update', api_key: w.bob, DomainID: bobs, Domain: 'x.deep.sub.nest.example' })).toEqual([
      [8, "The domain 'x.deep.sub.nest.example' lies inside deep.sub.nest.example, which another account manages; only that account can add names below it."],
    ]);
    expect((await list(w.bob, { DomainID: bobs }))[0].DOMAIN).toBe('elsewhere.example');
    // The zone alice still has answers for its names; nobody else's zone took them over.
    expect((await list(w.alice, { DomainID: child }))[0].DOMAIN).toBe('deep.sub.nest.example');
    for (const d of [similar, bobs]) await data(w.base, { api_action: 'domain.delete', api_key: w.bob, DomainID: d });
  });

  it('lists all of the account\'s domains sorted by name, and only them', async () => {
    await domain(w.base, w.bob, 'bobs.example');
    for (const name of ['zeta.sort', 'alpha.sort', 'mid.sort']) await domain(w.base, w.alice, name);
    const names = (await list(w.alice)).map((d: { DOMAIN: string }) => d.DOMAIN);
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['alpha.sort', 'mid.sort', 'zeta.sort', 'linode.com']));
    expect(names).not.toContain('bobs.example');
    expect((await list(w.bob)).map((d: { DOMAIN: string }) => d.DOMAIN)).toEqual(['bobs.example']);
  });

  it('answers code 5 with DATA {} for an unknown DomainID, and an empty array for an account without domains', async () => {
    expect(await errors(w.base, { api_action: 'domain.list', api_key: w.alice, DomainID: 999999 })).toEqual([[5, 'Object not found']]);
    const carol = await w.server.user('carol');
    expect((await call(w.base, { api_action: 'domain.list', api_key: carol.key })).text).toBe('{"ERRORARRAY":[],"ACTION":"domain.list","DATA":[]}');
  });
});

describe('domain.update', () => {
  it('changes only the arguments given and answers {DomainID}', async () => {
    const id = await domain(w.base, w.alice, 'partial.example', { Description: 'keep', TTL_sec: 3600 });
    const a = await update(id, { Description: 'changed', lpm_displayGroup: 'g' });
    expect(a.text).toBe(`{"ERRORARRAY":[],"ACTION":"domain.update","DATA":{"DomainID":${id}}}`);
    expect((await list(w.alice, { DomainID: id }))[0]).toMatchObject({ DESCRIPTION: 'changed', LPM_DISPLAYGROUP: 'g', TTL_SEC: 3600, SOA_EMAIL: 'hostmaster@partial.example' });
  });

  it('renames a domain, refusing a name that is taken', async () => {
    const id = await domain(w.base, w.alice, 'old-name.example');
    await domain(w.base, w.bob, 'taken.example');
    expect(await updateErrors(id, { Domain: 'taken.example' })).toEqual([
      [8, "The domain 'taken.example' already exists in our database.  Please open a ticket if you think this is in error."],
    ]);
    await data(w.base, { api_action: 'domain.update', api_key: w.alice, DomainID: id, Domain: 'new-name.example' });
    expect((await list(w.alice, { DomainID: id }))[0].DOMAIN).toBe('new-name.example');
  });

  it('changes nothing when any argument is bad', async () => {
    const id = await domain(w.base, w.alice, 'atomic.example', { Description: 'before' });
    const before = (await list(w.alice, { DomainID: id }))[0];
    expect((await updateErrors(id, { Description: 'after', SOA_Email: '' }))[0]?.[0]).toBe(8);
    expect((await updateErrors(id, { Description: 'after', TTL_sec: 'x' }))[0]?.[0]).toBe(7);
    expect((await list(w.alice, { DomainID: id }))[0]).toEqual(before);
  });

  it('needs DomainID', async () => {
    expect(await errors(w.base, { api_action: 'domain.update', api_key: w.alice, Description: 'x' })).toEqual([[6, 'DOMAINID is required but was not passed in']]);
  });
});

describe('domain.delete', () => {
  it('deletes a domain with its records and answers {DomainID}', async () => {
    const id = await domain(w.base, w.alice, 'gone.example');
    await resource(w.base, w.alice, id, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
    const a = await call(w.base, { api_action: 'domain.delete', api_key: w.alice, DomainID: id });
    expect(a.text).toBe(`{"ERRORARRAY":[],"ACTION":"domain.delete","DATA":{"DomainID":${id}}}`);
    expect(await errors(w.base, { api_action: 'domain.list', api_key: w.alice, DomainID: id })).toEqual([[5, 'Object not found']]);
    expect(await errors(w.base, { api_action: 'domain.resource.list', api_key: w.alice, DomainID: id })).toEqual([[5, 'Object not found']]);
    expect(await errors(w.base, { api_action: 'domain.delete', api_key: w.alice, DomainID: id })).toEqual([[5, 'Object not found']]);
    // The name is free again.
    await domain(w.base, w.alice, 'gone.example');
  });

  it('needs DomainID', async () => {
    expect(await errors(w.base, { api_action: 'domain.delete', api_key: w.alice })).toEqual([[6, 'DOMAINID is required but was not passed in']]);
  });

  it('keeps a deleted domain\'s records out of a re-created one', async () => {
    const id = await domain(w.base, w.alice, 'reborn.example');
    await resource(w.base, w.alice, id, { Type: 'TXT', Name: 'old', Target: 'old' });
    await data(w.base, { api_action: 'domain.delete', api_key: w.alice, DomainID: id });
    const again = await domain(w.base, w.alice, 'reborn.example');
    expect(again).not.toBe(id);
    expect(await records(w.base, w.alice, again)).toEqual([]);
  });
});
