/** api.spec: the real shape (reference 4.11), our functions only, and that it agrees with what the endpoint accepts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, data, world, type World } from './support.js';

let w: World;
beforeAll(async () => {
  w = await world();
});
afterAll(() => w.server.close());

const FUNCTIONS = [
  'api.spec',
  'batch',
  'domain.create',
  'domain.delete',
  'domain.list',
  'domain.resource.create',
  'domain.resource.delete',
  'domain.resource.list',
  'domain.resource.update',
  'domain.update',
  'test.echo',
  'user.getapikey',
];

describe('api.spec', () => {
  it('answers VERSION 3.3 and METHODS with the real fragments for domain.list and test.echo', async () => {
    const a = await call(w.base, { api_action: 'api.spec' });
    expect(a.text.startsWith('{"ERRORARRAY":[],"ACTION":"api.spec","DATA":{"VERSION":3.3,"METHODS":{')).toBe(true);
    // Verbatim from the 2015 recording (reference section 4.11).
    expect(a.text).toContain(
      '"domain.list":{"DESCRIPTION":"Lists domains you have access to.","PARAMETERS":{"DomainID":{"NAME":"DomainID","DESCRIPTION":"Limits the list to the specified DomainID","TYPE":"numeric","REQUIRED":false}},"THROWS":""}',
    );
    expect(a.text).toContain('"test.echo":{"DESCRIPTION":"Echos back parameters that were passed in.","PARAMETERS":{},"THROWS":""}');
  });

  it('lists every function we serve except batch (which the real spec never listed), each in the real shape', async () => {
    const spec = await data(w.base, { api_action: 'api.spec' });
    expect(Object.keys(spec.METHODS).sort()).toEqual(FUNCTIONS.filter((f) => f !== 'batch'));
    for (const [name, method] of Object.entries<any>(spec.METHODS)) {
      expect(Object.keys(method), name).toEqual(['DESCRIPTION', 'PARAMETERS', 'THROWS']);
      for (const [pname, p] of Object.entries<any>(method.PARAMETERS)) {
        expect(p.NAME, `${name} ${pname}`).toBe(pname);
        expect(['numeric', 'string', 'boolean']).toContain(p.TYPE);
        expect(typeof p.REQUIRED).toBe('boolean');
        expect(Object.keys(p).filter((k) => k !== 'default')).toEqual(['NAME', 'DESCRIPTION', 'TYPE', 'REQUIRED']);
      }
    }
  });

  it('publishes the real defaults and required flags of domain.resource.create and the THROWS lists', async () => {
    const { METHODS: m } = await data(w.base, { api_action: 'api.spec' });
    const create = m['domain.resource.create'].PARAMETERS;
    expect(create.DomainID).toEqual({ NAME: 'DomainID', DESCRIPTION: '', TYPE: 'numeric', REQUIRED: true });
    expect(create.Port).toEqual({ NAME: 'Port', DESCRIPTION: '', default: 80, TYPE: 'numeric', REQUIRED: false });
    expect(create.Weight).toMatchObject({ default: 5, REQUIRED: false });
    expect(create.Priority).toMatchObject({ default: 10, REQUIRED: false });
    expect(create.TTL_sec).toMatchObject({ default: 0, REQUIRED: false });
    expect(create.Name).toMatchObject({ default: '', REQUIRED: false });
    expect(create.Protocol).toMatchObject({ default: '', REQUIRED: false });
    // CAA's argument, as the 2018+ spec has it (no default published).
    const tag = { NAME: 'Tag', DESCRIPTION: 'The tag attribute for a CAA record.  One of issue, issuewild, iodef.  Ignored on other record types.', TYPE: 'string', REQUIRED: false };
    expect(create.Tag).toEqual(tag);
    expect(m['domain.resource.update'].PARAMETERS.Tag).toEqual(tag);
    expect(create.Type.DESCRIPTION).toContain('CAA');
    expect(create.Type).toMatchObject({ TYPE: 'string', REQUIRED: true });
    expect(m['user.getapikey'].PARAMETERS.expires).toMatchObject({ default: 168, REQUIRED: false });
    const throws = Object.fromEntries(Object.entries<any>(m).map(([k, v]) => [k, v.THROWS]));
    expect(throws).toMatchObject({
      'domain.create': 'NOACCESS,VALIDATION',
      'domain.resource.create': 'NOACCESS,VALIDATION',
      'domain.update': 'NOTFOUND,VALIDATION',
      'domain.resource.update': 'NOTFOUND,VALIDATION',
      'domain.delete': 'NOTFOUND',
      'domain.resource.delete': 'NOTFOUND',
      'domain.list': '',
      'domain.resource.list': '',
      'api.spec': '',
    });
  });

  it('marks as required exactly the arguments whose absence is code 6', async () => {
    const { METHODS: m } = await data(w.base, { api_action: 'api.spec' });
    for (const [name, method] of Object.entries<any>(m)) {
      const required = Object.values<any>(method.PARAMETERS).filter((p) => p.REQUIRED).map((p) => p.NAME as string);
      const a = await call(w.base, { api_action: name, api_key: w.alice });
      const missing = (a.body.ERRORARRAY as { ERRORCODE: number; ERRORMESSAGE: string }[]).filter((e) => e.ERRORCODE === 6).map((e) => e.ERRORMESSAGE);
      // The first missing required argument is reported (the rest are checked once it is given).
      if (required.length === 0) expect(missing, name).toEqual([]);
      else expect(missing, name).toEqual([`${required[0]!.toUpperCase()} is required but was not passed in`]);
    }
  });
});
