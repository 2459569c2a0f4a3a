/** domain.resource.*: shapes, defaults, ordering and the per-type rules, over real HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TXT_BYTES } from '../../src/model/records/txt.js';
import { call, data, domain, errors, records, resource, world, type World } from './support.js';

let w: World;
beforeAll(async () => {
  w = await world();
});
afterAll(() => w.server.close());

let zoneCount = 0;
/** A fresh zone of Alice's for each test, so tests do not see each other's records. */
const zone = async () => {
  const name = `z${++zoneCount}.example`;
  return { id: await domain(w.base, w.alice, name), name };
};
const createErrors = (domainId: number, fields: Record<string, string | number>, transport?: 'POST-form') =>
  errors(w.base, { api_action: 'domain.resource.create', api_key: w.alice, DomainID: domainId, ...fields }, { transport });
const updateErrors = (fields: Record<string, string | number>) => errors(w.base, { api_action: 'domain.resource.update', api_key: w.alice, ...fields });
const update = (fields: Record<string, string | number>) => data(w.base, { api_action: 'domain.resource.update', api_key: w.alice, ...fields });
const one = async (domainId: number, resourceId: number) =>
  (await data(w.base, { api_action: 'domain.resource.list', api_key: w.alice, DomainID: domainId, ResourceID: resourceId }))[0];

describe('domain.resource.create and domain.resource.list', () => {
  it('answers {ResourceID} and lists records with the real key set and the v3 defaults', async () => {
    const { id } = await zone();
    const a = await call(w.base, { api_action: 'domain.resource.create', api_key: w.alice, DomainID: id, Type: 'CNAME', Name: 'docs', Target: 'docs.example.com', TTL_sec: 0 });
    expect(a.text).toMatch(/^\{"ERRORARRAY":\[\],"ACTION":"domain\.resource\.create","DATA":\{"ResourceID":\d+\}\}$/);
    const rid = a.body.DATA.ResourceID;
    const listed = await call(w.base, { api_action: 'domain.resource.list', api_key: w.alice, DomainID: id });
    expect(listed.text).toBe(
      `{"ERRORARRAY":[],"ACTION":"domain.resource.list","DATA":[{"DOMAINID":${id},"RESOURCEID":${rid},"NAME":"docs","TYPE":"CNAME","TARGET":"docs.example.com","TTL_SEC":0,"PRIORITY":10,"WEIGHT":5,"PORT":80,"PROTOCOL":"","TAG":""}]}`,
    );
    // The key set of the real 2018 bodies (lexicon cassettes).
    expect(Object.keys(listed.body.DATA[0]).sort()).toEqual(['DOMAINID', 'NAME', 'PORT', 'PRIORITY', 'PROTOCOL', 'RESOURCEID', 'TAG', 'TARGET', 'TTL_SEC', 'TYPE', 'WEIGHT']);
  });

  it('answers an empty zone with DATA []', async () => {
    const { id } = await zone();
    expect((await call(w.base, { api_action: 'domain.resource.list', api_key: w.alice, DomainID: id })).text).toBe('{"ERRORARRAY":[],"ACTION":"domain.resource.list","DATA":[]}');
  });

  it('accepts the domain.resources.list spelling and echoes domain.resource.list', async () => {
    const { id } = await zone();
    await resource(w.base, w.alice, id, { Type: 'A', Name: 'a', Target: '192.0.2.1' });
    const a = await call(w.base, { api_action: 'domain.resources.list', api_key: w.alice, DomainID: id });
    expect(a.body.ACTION).toBe('domain.resource.list');
    expect(a.body.DATA).toHaveLength(1);
  });

  it('accepts the type in any case and returns it upper-case', async () => {
    const { id } = await zone();
    for (const type of ['a', 'Txt', 'mx', 'aaaa']) {
      const rid = await resource(w.base, w.alice, id, { Type: type, Name: `t-${type}`, Target: type.toLowerCase() === 'a' ? '192.0.2.9' : type.toLowerCase() === 'aaaa' ? '2001:db8::9' : 'mail.example.net' });
      expect((await one(id, rid)).TYPE).toBe(type.toUpperCase());
    }
  });

  it('sorts by NAME with letters folded to upper case ("_" after letters), ties by RESOURCEID', async () => {
    const { id } = await zone();
    const made: [string, number][] = [];
    for (const name of ['localhost', '_acme-challenge', 'docs', 'Docs', '', 'b', 'docs', 'A']) {
      made.push([name, await resource(w.base, w.alice, id, { Type: 'TXT', Name: name, Target: `v${made.length}` })]);
    }
    const listed = (await records(w.base, w.alice, id)).map((r) => [r.NAME, r.RESOURCEID]);
    const byId = (n: string) => made.filter(([name]) => name === n).map(([, rid]) => [n, rid]);
    expect(listed).toEqual([...byId(''), ...byId('A'), ...byId('b'), ...[...byId('docs'), ...byId('Docs')].sort((x, y) => (x[1] as number) - (y[1] as number)), ...byId('localhost'), ...byId('_acme-challenge')]);
  });

  it('lists one record with ResourceID; a ResourceID of another domain or none is code 5', async () => {
    const a = await zone();
    const b = await zone();
    const ra = await resource(w.base, w.alice, a.id, { Type: 'A', Name: 'x', Target: '192.0.2.1' });
    expect(await data(w.base, { api_action: 'domain.resource.list', api_key: w.alice, DomainID: a.id, ResourceID: ra })).toHaveLength(1);
    expect(await errors(w.base, { api_action: 'domain.resource.list', api_key: w.alice, DomainID: b.id, ResourceID: ra })).toEqual([[5, 'Object not found']]);
    expect(await errors(w.base, { api_action: 'domain.resource.list', api_key: w.alice, DomainID: a.id, ResourceID: 999999 })).toEqual([[5, 'Object not found']]);
  });

  it('fills the defaults PRIORITY 10, WEIGHT 5, PORT 80 and keeps given values', async () => {
    const { id } = await zone();
    const plain = await resource(w.base, w.alice, id, { Type: 'TXT', Name: 'd', Target: 'x' });
    expect(await one(id, plain)).toMatchObject({ PRIORITY: 10, WEIGHT: 5, PORT: 80, PROTOCOL: '', TAG: '', TTL_SEC: 0 });
    const mx = await resource(w.base, w.alice, id, { Type: 'MX', Name: '', Target: 'mail.example.net', Priority: 0 });
    expect(await one(id, mx)).toMatchObject({ PRIORITY: 0, WEIGHT: 5, PORT: 80 });
  });

  it('needs DomainID and Type (code 6); an unknown type is code 8', async () => {
    const { id } = await zone();
    expect(await errors(w.base, { api_action: 'domain.resource.create', api_key: w.alice, Type: 'A', Target: '192.0.2.1' })).toEqual([[6, 'DOMAINID is required but was not passed in']]);
    expect(await createErrors(id, { Target: '192.0.2.1' })).toEqual([[6, 'TYPE is required but was not passed in']]);
    expect(await createErrors(id, { Type: 'PTR', Target: 'host.example' })).toEqual([
      [8, "The record type 'PTR' is not supported; use one of A, AAAA, CNAME, MX, NS, TXT, SRV, CAA."],
    ]);
    expect(await errors(w.base, { api_action: 'domain.resource.list', api_key: w.alice })).toEqual([[6, 'DOMAINID is required but was not passed in']]);
  });
});

describe('record values', () => {
  it('rounds TTL_sec up to the allowed set; 0 means the domain default; out of range is 8, not a number is 7', async () => {
    const { id } = await zone();
    const cases: [number, number][] = [[0, 0], [20, 300], [30, 300], [301, 3600], [3600, 3600], [14400, 14400], [28800, 28800], [2419199, 2419200]];
    for (const [i, [given, stored]] of cases.entries()) {
      const rid = await resource(w.base, w.alice, id, { Type: 'TXT', Name: `ttl${i}`, Target: 'x', TTL_sec: given });
      expect((await one(id, rid)).TTL_SEC, `TTL_sec=${given}`).toBe(stored);
    }
    const range = 'The TTL must be a whole number of seconds between 0 and 2419200 (0 means the default).';
    expect(await createErrors(id, { Type: 'TXT', Name: 'big', Target: 'x', TTL_sec: 2419201 })).toEqual([[8, range]]);
    expect(await createErrors(id, { Type: 'TXT', Name: 'neg', Target: 'x', TTL_sec: -300 })).toEqual([[8, range]]);
    expect(await createErrors(id, { Type: 'TXT', Name: 'nan', Target: 'x', TTL_sec: 'five' })).toEqual([[7, 'TTL_SEC must be a whole number.']]);
    expect(await createErrors(id, { Type: 'MX', Target: 'm.example.net', Priority: '1e3' })).toEqual([[7, 'PRIORITY must be a whole number.']]);
  });

  it('replaces [remote_addr] in an A target with the caller\'s address, on create and update', async () => {
    const { id } = await zone();
    const rid = await resource(w.base, w.alice, id, { Type: 'A', Name: 'home', Target: '[remote_addr]' });
    expect((await one(id, rid)).TARGET).toBe('127.0.0.1');
    await update({ ResourceID: rid, Target: '192.0.2.7' });
    await update({ ResourceID: rid, Target: '[REMOTE_ADDR]' });
    expect((await one(id, rid)).TARGET).toBe('127.0.0.1');
  });

  it('refuses [remote_addr] in an AAAA target when the caller came over IPv4', async () => {
    const { id } = await zone();
    expect(await createErrors(id, { Type: 'AAAA', Name: 'home6', Target: '[remote_addr]' })).toEqual([
      [8, '[remote_addr] cannot be used for an AAAA record: the request did not come from an IPv6 address.'],
    ]);
    // Other types keep the token as it is.
    const txt = await resource(w.base, w.alice, id, { Type: 'TXT', Name: 'literal', Target: '[remote_addr]' });
    expect((await one(id, txt)).TARGET).toBe('[remote_addr]');
  });

  it('checks addresses: an A needs IPv4, an AAAA IPv6', async () => {
    const { id } = await zone();
    expect(await createErrors(id, { Type: 'A', Name: 'x', Target: '2001:db8::1' })).toEqual([[8, "The target '2001:db8::1' is not a valid IPv4 address."]]);
    expect(await createErrors(id, { Type: 'AAAA', Name: 'x', Target: '192.0.2.1' })).toEqual([[8, "The target '192.0.2.1' is not a valid IPv6 address."]]);
    expect(await createErrors(id, { Type: 'A', Name: 'x' })).toEqual([[8, "The target '' is not a valid IPv4 address."]]);
    // Only the canonical dotted quad is an IPv4 address here, so A targets need no rewriting.
    expect(await createErrors(id, { Type: 'A', Name: 'x', Target: '192.0.2.01' })).toEqual([[8, "The target '192.0.2.01' is not a valid IPv4 address."]]);
  });

  it('stores AAAA targets in canonical text (RFC 5952), so an equivalent address is a duplicate on create and update', async () => {
    const { id, name } = await zone();
    const cases: [string, string][] = [
      ['2001:DB8::A', '2001:db8::a'],
      ['2001:0db8:0000:0000:0000:0000:0000:0002', '2001:db8::2'],
      ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
      ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
      ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
      ['::FFFF:192.0.2.1', '::ffff:192.0.2.1'],
    ];
    for (const [i, [given, stored]] of cases.entries()) {
      const rid = await resource(w.base, w.alice, id, { Type: 'AAAA', Name: `c${i}`, Target: given });
      expect((await one(id, rid)).TARGET, given).toBe(stored);
    }
    const dup = `An identical AAAA record for v6.${name} already exists.`;
    await resource(w.base, w.alice, id, { Type: 'AAAA', Name: 'v6', Target: '2001:DB8::1' });
    expect(await createErrors(id, { Type: 'AAAA', Name: 'v6', Target: '2001:db8:0::1' })).toEqual([[8, dup]]);
    const other = await resource(w.base, w.alice, id, { Type: 'AAAA', Name: 'v6', Target: '2001:db8::2' });
    expect(await updateErrors({ ResourceID: other, Target: '2001:0DB8::0:1' })).toEqual([[8, dup]]);
    expect((await records(w.base, w.alice, id)).filter((r) => r.NAME === 'v6').map((r) => r.TARGET)).toEqual(['2001:db8::1', '2001:db8::2']);
  });

  it('takes Name as a relative name, "" or "@" for the apex, or an FQDN inside the zone, and stores it relative', async () => {
    const { id, name } = await zone();
    const cases: [string, string][] = [['www', 'www'], ['@', ''], ['', ''], [`mail.${name}`, 'mail'], [`ftp.${name}.`, 'ftp'], [`${name}.`, ''], ['Mixed.Case', 'Mixed.Case'], ['*.wild', '*.wild']];
    for (const [i, [given, stored]] of cases.entries()) {
      const rid = await resource(w.base, w.alice, id, { Type: 'TXT', Name: given, Target: `n${i}` });
      expect((await one(id, rid)).NAME, `Name=${given}`).toBe(stored);
    }
    expect(await createErrors(id, { Type: 'TXT', Name: 'www.elsewhere.example.', Target: 'x' })).toEqual([[8, `The name 'www.elsewhere.example.' is not inside the domain ${name}.`]]);
    expect(await createErrors(id, { Type: 'TXT', Name: 'bad..name', Target: 'x' })).toEqual([[8, "The name 'bad..name' must not contain empty labels."]]);
  });

  it('stores host-name targets without the trailing dot, as absolute names', async () => {
    const { id } = await zone();
    const cname = await resource(w.base, w.alice, id, { Type: 'CNAME', Name: 'alias', Target: 'target.example.net.' });
    const mx = await resource(w.base, w.alice, id, { Type: 'MX', Name: '', Target: 'mx1.example.net.', Priority: 20 });
    const ns = await resource(w.base, w.alice, id, { Type: 'NS', Name: 'sub', Target: 'ns1.example.net' });
    expect((await one(id, cname)).TARGET).toBe('target.example.net');
    expect(await one(id, mx)).toMatchObject({ TARGET: 'mx1.example.net', PRIORITY: 20 });
    expect((await one(id, ns)).TARGET).toBe('ns1.example.net');
    expect(await createErrors(id, { Type: 'MX', Name: '', Target: '' })).toEqual([[8, 'A MX record needs mail server host name.']]);
    expect(await createErrors(id, { Type: 'MX', Name: '', Target: 'mx.example.net', Priority: 65536 })).toEqual([[8, 'The priority must be a whole number between 0 and 65535.']]);
  });

  it('refuses a * label in host-name targets, but keeps underscores there', async () => {
    const { id, name } = await zone();
    const wild = (what: string, target: string) => `The ${what} '${target}' must not contain a * label (only a record's own name can be a wildcard).`;
    expect(await createErrors(id, { Type: 'NS', Name: 'nsw', Target: '*' })).toEqual([[8, wild('name server host name', '*')]]);
    expect(await createErrors(id, { Type: 'MX', Target: '*.example.net' })).toEqual([[8, wild('mail server host name', '*.example.net')]]);
    expect(await createErrors(id, { Type: 'CNAME', Name: 'c', Target: '*.example.net.' })).toEqual([[8, wild('target host name', '*.example.net')]]);
    expect(await createErrors(id, { Type: 'SRV', Name: '_sip._tcp', Target: `*.${name}` })).toEqual([[8, wild('target host name', `*.${name}`)]]);
    const mx = await resource(w.base, w.alice, id, { Type: 'MX', Target: 'mx.example.net' });
    expect(await updateErrors({ ResourceID: mx, Target: 'mx.*.example.net' })).toEqual([[8, wild('mail server host name', 'mx.*.example.net')]]);
    // ACME DNS-01 delegation points a CNAME at an _acme-challenge name elsewhere.
    const acme = await resource(w.base, w.alice, id, { Type: 'CNAME', Name: '_acme-challenge', Target: '_acme-challenge.other.example.' });
    expect((await one(id, acme)).TARGET).toBe('_acme-challenge.other.example');
    const srv = await resource(w.base, w.alice, id, { Type: 'SRV', Name: '_sip._tcp', Target: '_sip.example.net' });
    expect((await one(id, srv)).TARGET).toBe('_sip.example.net');
  });

  it('refuses a CNAME whose target is its own name, in any spelling', async () => {
    const { id, name } = await zone();
    const loop = `A CNAME record cannot point at its own name (self.${name}).`;
    for (const Target of [`self.${name}`, `SELF.${name.toUpperCase()}.`]) {
      expect(await createErrors(id, { Type: 'CNAME', Name: 'self', Target }), Target).toEqual([[8, loop]]);
    }
    // Neither by a new target nor by a new name.
    const alias = await resource(w.base, w.alice, id, { Type: 'CNAME', Name: 'alias', Target: `Self.${name}` });
    expect(await updateErrors({ ResourceID: alias, Name: 'self' })).toEqual([[8, loop]]);
    expect(await updateErrors({ ResourceID: alias, Target: `alias.${name}.` })).toEqual([[8, `A CNAME record cannot point at its own name (alias.${name}).`]]);
  });

  it('keeps a CNAME alone at its name, both ways, and off the apex', async () => {
    const { id, name } = await zone();
    await resource(w.base, w.alice, id, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
    expect(await createErrors(id, { Type: 'CNAME', Name: 'www', Target: 'elsewhere.example.net' })).toEqual([
      [8, `A CNAME record cannot share its name with other records, and www.${name} already has A data.`],
    ]);
    await resource(w.base, w.alice, id, { Type: 'CNAME', Name: 'alias', Target: 'elsewhere.example.net' });
    expect(await createErrors(id, { Type: 'TXT', Name: 'alias', Target: 'x' })).toEqual([[8, `alias.${name} is an alias (CNAME), so it cannot hold other records.`]]);
    expect(await createErrors(id, { Type: 'CNAME', Name: 'alias', Target: 'other.example.net' })).toEqual([
      [8, `A CNAME record cannot share its name with other records, and alias.${name} already has CNAME data.`],
    ]);
    expect(await createErrors(id, { Type: 'CNAME', Name: '', Target: 'x.example.net' })).toEqual([[8, 'A CNAME record cannot be placed at the domain itself; give it a name.']]);
    // Moving a record onto the alias's name is refused as well.
    const txt = await resource(w.base, w.alice, id, { Type: 'TXT', Name: 'elsewhere', Target: 'x' });
    expect(await updateErrors({ ResourceID: txt, Name: 'alias' })).toEqual([[8, `alias.${name} is an alias (CNAME), so it cannot hold other records.`]]);
  });

  it('refuses an identical record at the same name', async () => {
    const { id, name } = await zone();
    await resource(w.base, w.alice, id, { Type: 'A', Name: 'dup', Target: '192.0.2.1' });
    expect(await createErrors(id, { Type: 'A', Name: `dup.${name}`, Target: '192.0.2.1' })).toEqual([[8, `An identical A record for dup.${name} already exists.`]]);
    await resource(w.base, w.alice, id, { Type: 'A', Name: 'dup', Target: '192.0.2.2' });
    await resource(w.base, w.alice, id, { Type: 'TXT', Name: 'dup', Target: 'token' });
    expect(await createErrors(id, { Type: 'TXT', Name: 'dup', Target: 'token' })).toEqual([[8, `An identical TXT record for dup.${name} already exists.`]]);
    // Columns a type does not serve make no second copy of its data (DNS would serve the address twice).
    for (const unused of [{ Priority: 20 }, { Weight: 1 }, { Port: 9 }] as Record<string, number>[]) {
      expect(await createErrors(id, { Type: 'A', Name: 'dup', Target: '192.0.2.1', ...unused })).toEqual([[8, `An identical A record for dup.${name} already exists.`]]);
    }
    // Where a type serves them, they do make another record.
    await resource(w.base, w.alice, id, { Type: 'MX', Name: 'dup', Target: 'mx.example.net', Priority: 10 });
    await resource(w.base, w.alice, id, { Type: 'MX', Name: 'dup', Target: 'MX.example.net', Priority: 20 });
    expect(await createErrors(id, { Type: 'MX', Name: 'dup', Target: 'MX.EXAMPLE.NET', Priority: 10, Weight: 99 })).toEqual([[8, `An identical MX record for dup.${name} already exists.`]]);
  });

  it('refuses a record that would make its RRset too large for one DNS message, on create and update', async () => {
    const { id, name } = await zone();
    const big = (c: string) => c.repeat(40_000);
    await resource(w.base, w.alice, id, { Type: 'TXT', Name: 'big', Target: big('a') });
    const found = await createErrors(id, { Type: 'TXT', Name: 'big', Target: big('b') });
    expect(found).toHaveLength(1);
    expect(found[0]![1]).toMatch(new RegExp(`^The TXT records of big\\.${name.replace('.', '\\.')} would take \\d+ bytes, more than one DNS message can carry \\(65253\\)`));
    // A small one still fits beside it; growing it past the limit is refused, and nothing changes.
    const small = await resource(w.base, w.alice, id, { Type: 'TXT', Name: 'big', Target: 'small' });
    expect(await updateErrors({ DomainID: id, ResourceID: small, Target: big('c') })).toHaveLength(1);
    expect((await records(w.base, w.alice, id)).map((r) => r.TARGET.length).sort((a, b) => a - b)).toEqual([5, 40_000]);
  });

  it('treats TXT values that differ only in letter case as different records (ACME tokens are case-sensitive)', async () => {
    const { id } = await zone();
    await resource(w.base, w.alice, id, { Type: 'TXT', Name: '_acme-challenge', Target: 'AbCdEf' });
    await resource(w.base, w.alice, id, { Type: 'TXT', Name: '_acme-challenge', Target: 'abcdef' });
    expect((await records(w.base, w.alice, id)).map((r) => r.TARGET)).toEqual(['AbCdEf', 'abcdef']);
  });

  it(`takes TXT values up to ${MAX_TXT_BYTES} bytes, not longer, not empty, without control characters`, async () => {
    const { id } = await zone();
    const longest = 'a'.repeat(MAX_TXT_BYTES);
    const rid = (await data(w.base, { api_action: 'domain.resource.create', api_key: w.alice, DomainID: id, Type: 'TXT', Name: 'long', Target: longest }, { transport: 'POST-form' })).ResourceID;
    expect((await one(id, rid)).TARGET).toBe(longest);
    expect(await createErrors(id, { Type: 'TXT', Name: 'longer', Target: `${longest}a` }, 'POST-form')).toEqual([[8, `The TXT value must be at most ${MAX_TXT_BYTES} bytes long.`]]);
    expect(await createErrors(id, { Type: 'TXT', Name: 'multi', Target: '\u00e9'.repeat(MAX_TXT_BYTES / 2 + 1) }, 'POST-form')).toEqual([[8, `The TXT value must be at most ${MAX_TXT_BYTES} bytes long.`]]);
    expect(await createErrors(id, { Type: 'TXT', Name: 'empty', Target: '' })).toEqual([[8, 'A TXT record needs a value.']]);
    expect(await createErrors(id, { Type: 'TXT', Name: 'ctl', Target: 'a\nb' })).toEqual([[8, 'The TXT value must not contain control characters.']]);
    const uni = await resource(w.base, w.alice, id, { Type: 'TXT', Name: 'uni', Target: 'v=spf1 \u2713 \ud83d\ude00\ttab' });
    expect((await one(id, uni)).TARGET).toBe('v=spf1 \u2713 \ud83d\ude00\ttab');
  });
});

describe('SRV records (reference 5.3)', () => {
  it('takes the protocol from a Name that holds _service._proto and ignores Protocol then (live API)', async () => {
    const { id } = await zone();
    const rid = await resource(w.base, w.alice, id, { Type: 'srv', Name: '_foo._tcp', Protocol: 'bar', Priority: 5, Weight: 10, Port: 15, Target: 'bar.baz.com', TTL_sec: 20 });
    expect(await one(id, rid)).toMatchObject({ NAME: '_foo._tcp', PROTOCOL: 'tcp', PRIORITY: 5, WEIGHT: 10, PORT: 15, TTL_SEC: 300, TYPE: 'SRV', TARGET: 'bar.baz.com' });
    await update({ ResourceID: rid, DomainID: id, Name: '_qux._udp', Protocol: 'udp', TTL_sec: 301 });
    expect(await one(id, rid)).toMatchObject({ NAME: '_qux._udp', PROTOCOL: 'udp', TTL_SEC: 3600 });
  });

  it('appends ._<Protocol> to a Name without it, adding the leading "_" (tcp when no Protocol is given)', async () => {
    const { id } = await zone();
    const cases: [Record<string, string>, string, string][] = [
      [{ Name: 'minecraft', Protocol: 'udp' }, '_minecraft._udp', 'udp'],
      [{ Name: '_sip', Protocol: '_TLS' }, '_sip._tls', 'tls'],
      [{ Name: 'xmpp' }, '_xmpp._tcp', 'tcp'],
      [{ Name: 'ldap.office', Protocol: 'tcp' }, '_ldap._tcp.office', 'tcp'],
    ];
    for (const [fields, name, protocol] of cases) {
      const rid = await resource(w.base, w.alice, id, { Type: 'SRV', Target: 'srv.example.net', Port: 25565, ...fields });
      expect(await one(id, rid), JSON.stringify(fields)).toMatchObject({ NAME: name, PROTOCOL: protocol, PORT: 25565 });
    }
  });

  it('makes Name relative to the zone before folding: the zone\'s own name is the apex, an FQDN keeps its labels', async () => {
    const { id, name } = await zone();
    const apex = "An SRV record's name must start with _service._protocol (for example _sip._tcp), not ''.";
    for (const Name of [name, `${name}.`, `${name.toUpperCase()}.`, '@']) {
      expect(await createErrors(id, { Type: 'SRV', Name, Port: 1, Target: `x.${name}` }), Name).toEqual([[8, apex]]);
    }
    const cases: [Record<string, string>, string, string][] = [
      [{ Name: `_sip._udp.${name}` }, '_sip._udp', 'udp'],
      [{ Name: `_xmpp._tcp.chat.${name.toUpperCase()}.` }, '_xmpp._tcp.chat', 'tcp'],
      [{ Name: `minecraft.${name}`, Protocol: 'udp' }, '_minecraft._udp', 'udp'],
      [{ Name: 'minecraft', Protocol: 'udp', Port: '25566' }, '_minecraft._udp', 'udp'],
    ];
    for (const [fields, stored, protocol] of cases) {
      const rid = await resource(w.base, w.alice, id, { Type: 'SRV', Target: 'srv.example.net', Port: 25565, ...fields });
      expect(await one(id, rid), JSON.stringify(fields)).toMatchObject({ NAME: stored, PROTOCOL: protocol });
    }
    expect(await createErrors(id, { Type: 'SRV', Name: 'sip.elsewhere.example.', Target: 'x.example.net' })).toContainEqual([
      8,
      `The name 'sip.elsewhere.example.' is not inside the domain ${name}.`,
    ]);
    // An update naming the record by its FQDN is the same name, so a new Protocol moves it.
    const rid = await resource(w.base, w.alice, id, { Type: 'SRV', Name: '_sip._tcp', Target: 'sip.example.net', Port: 5060 });
    await update({ ResourceID: rid, Name: `_sip._tcp.${name}`, Protocol: 'tls' });
    expect(await one(id, rid)).toMatchObject({ NAME: '_sip._tls', PROTOCOL: 'tls' });
    expect(await updateErrors({ ResourceID: rid, Name: `${name}.` })).toEqual([[8, apex]]);
  });

  it('moves the record to the new _proto label when an update changes only Protocol', async () => {
    const { id } = await zone();
    const rid = await resource(w.base, w.alice, id, { Type: 'SRV', Name: '_sip._udp', Target: 'sip.example.net', Port: 5060 });
    await update({ ResourceID: rid, Protocol: 'tcp' });
    expect(await one(id, rid)).toMatchObject({ NAME: '_sip._tcp', PROTOCOL: 'tcp' });
  });

  it('refuses an SRV without a name, with a bad protocol, or with numbers out of range', async () => {
    const { id } = await zone();
    expect(await createErrors(id, { Type: 'SRV', Target: 'x.example.net' })).toEqual([[8, "An SRV record's name must start with _service._protocol (for example _sip._tcp), not ''."]]);
    expect(await createErrors(id, { Type: 'SRV', Name: 'sip', Protocol: 'no way', Target: 'x.example.net' })).toEqual([
      [8, "The name '_sip._no way' may only contain letters, digits and hyphens in dot-separated labels that neither start nor end with a hyphen."],
      [8, "The SRV protocol 'no way' is not valid; use a name such as tcp or udp."],
    ]);
    expect(await createErrors(id, { Type: 'SRV', Name: '_sip._tcp', Target: 'x.example.net', Port: 70000, Weight: -1 })).toEqual([
      [8, 'The weight must be a whole number between 0 and 65535.'],
      [8, 'The port must be a whole number between 0 and 65535.'],
    ]);
  });
});

describe('CAA records (reference 5.3: Tag, Target = value)', () => {
  it('takes Tag and the value in Target, lists TAG, and serves flags 0 (PRIORITY) whatever Priority says', async () => {
    const { id } = await zone();
    const made: [Record<string, string | number>, Record<string, unknown>][] = [
      [{ Type: 'caa', Name: '', Tag: 'issue', Target: 'letsencrypt.org' }, { TYPE: 'CAA', NAME: '', TAG: 'issue', TARGET: 'letsencrypt.org', PRIORITY: 0 }],
      [{ Type: 'CAA', Name: '@', Tag: 'ISSUE', Target: 'letsencrypt.org; validationmethods=dns-01', Priority: 128 }, { TAG: 'issue', TARGET: 'letsencrypt.org; validationmethods=dns-01', PRIORITY: 0 }],
      [{ Type: 'CAA', Name: 'shop', Tag: 'issue', Target: ';' }, { NAME: 'shop', TAG: 'issue', TARGET: ';' }],
      [{ Type: 'CAA', Tag: 'issuewild', Target: 'ca.example.net; account=12 ; policy=ev' }, { TAG: 'issuewild', TARGET: 'ca.example.net; account=12 ; policy=ev' }],
      [{ Type: 'CAA', Tag: 'iodef', Target: 'mailto:security@example.com' }, { TAG: 'iodef', TARGET: 'mailto:security@example.com' }],
      [{ Type: 'CAA', Tag: 'iodef', Target: 'https://iodef.example.com/report?x=1' }, { TAG: 'iodef', TARGET: 'https://iodef.example.com/report?x=1' }],
      [{ Type: 'CAA', Tag: 'iodef', Target: 'iodef.example.com' }, { TAG: 'iodef', TARGET: 'iodef.example.com' }],
    ];
    for (const [fields, shown] of made) expect(await one(id, await resource(w.base, w.alice, id, fields)), JSON.stringify(fields)).toMatchObject(shown);
    const txt = await resource(w.base, w.alice, id, { Type: 'TXT', Name: 'plain', Target: 'x' });
    expect((await one(id, txt)).TAG).toBe('');
  });

  it('changes Tag and Target on update, and refuses an identical record', async () => {
    const { id, name } = await zone();
    const rid = await resource(w.base, w.alice, id, { Type: 'CAA', Tag: 'issue', Target: 'letsencrypt.org' });
    await update({ ResourceID: rid, Tag: 'issuewild', Priority: 5 });
    expect(await one(id, rid)).toMatchObject({ TAG: 'issuewild', TARGET: 'letsencrypt.org', PRIORITY: 0 });
    await update({ ResourceID: rid, Target: 'pki.goog' });
    expect(await one(id, rid)).toMatchObject({ TAG: 'issuewild', TARGET: 'pki.goog' });
    await resource(w.base, w.alice, id, { Type: 'CAA', Tag: 'issue', Target: 'pki.goog' });
    expect(await createErrors(id, { Type: 'CAA', Tag: 'IssueWild', Target: 'pki.goog' })).toEqual([[8, `An identical CAA record for ${name} already exists.`]]);
    expect(await updateErrors({ ResourceID: rid, Tag: 'iodef', Target: 'ftp://x.example' })).toEqual([
      [8, "The iodef value 'ftp://x.example' must be a mailto: address, an http(s) URL or a domain; as a domain it may only contain letters, digits and hyphens in dot-separated labels that neither start nor end with a hyphen."],
    ]);
    expect(await one(id, rid)).toMatchObject({ TAG: 'issuewild', TARGET: 'pki.goog' });
  });

  it('refuses other tags, empty values, trailing dots, wildcards, control characters and malformed parameters', async () => {
    const { id } = await zone();
    const cases: [Record<string, string>, string][] = [
      [{ Target: 'letsencrypt.org' }, 'A CAA record needs a tag: one of issue, issuewild, iodef.'],
      [{ Tag: 'contactemail', Target: 'a@example.com' }, "A CAA record needs a tag: one of issue, issuewild, iodef, not 'contactemail'."],
      [{ Tag: 'issue' }, 'A CAA issue record needs a value; ";" alone means that no CA may issue.'],
      [{ Tag: 'iodef', Target: '' }, 'A CAA iodef record needs a value.'],
      [{ Tag: 'issue', Target: 'letsencrypt.org.' }, "The issuer domain 'letsencrypt.org.' must not end with a dot."],
      [{ Tag: 'issuewild', Target: '*.letsencrypt.org' }, "The issuer domain '*.letsencrypt.org' must be the CA's own domain, without '*'."],
      [{ Tag: 'issue', Target: 'letsencrypt.org\u0007' }, 'The CAA value may only hold printable ASCII characters (no control characters).'],
      [{ Tag: 'issue', Target: 'letsencrypt.org\tx' }, 'The CAA value may only hold printable ASCII characters (no control characters).'],
      [{ Tag: 'issue', Target: 'letsencrypt.org; dns-01' }, "The parameter 'dns-01' is not of the form key=value (RFC 8659 4.2)."],
      [{ Tag: 'issue', Target: 'letsencrypt.org; a=b;' }, "The parameter '' is not of the form key=value (RFC 8659 4.2)."],
      [{ Tag: 'iodef', Target: 'mailto:nobody' }, "The iodef address 'mailto:nobody' is not a mailto: URL with one e-mail address."],
      [{ Tag: 'iodef', Target: 'https://' }, "The iodef URL 'https://' is not an http(s) URL with a host name."],
      [{ Tag: 'issue', Target: 'x'.repeat(256) }, 'The CAA value must be at most 255 characters long.'],
    ];
    for (const [fields, message] of cases) expect(await createErrors(id, { Type: 'CAA', ...fields }), JSON.stringify(fields)).toEqual([[8, message]]);
    expect(await records(w.base, w.alice, id)).toEqual([]);
  });
});

describe('domain.resource.update', () => {
  it('changes only the arguments given, finds the domain without DomainID, and ignores Type', async () => {
    const { id } = await zone();
    const rid = await resource(w.base, w.alice, id, { Type: 'MX', Name: 'mail', Target: 'mx.example.net', Priority: 5, TTL_sec: 3600 });
    const a = await call(w.base, { api_action: 'domain.resource.update', api_key: w.alice, ResourceID: rid, Target: 'mx2.example.net', Type: 'TXT' });
    expect(a.text).toBe(`{"ERRORARRAY":[],"ACTION":"domain.resource.update","DATA":{"ResourceID":${rid}}}`);
    expect(await one(id, rid)).toMatchObject({ TYPE: 'MX', NAME: 'mail', TARGET: 'mx2.example.net', PRIORITY: 5, TTL_SEC: 3600 });
    await update({ ResourceID: rid, DomainID: id, Priority: 1, TTL_sec: 0 });
    expect(await one(id, rid)).toMatchObject({ TARGET: 'mx2.example.net', PRIORITY: 1, TTL_SEC: 0 });
  });

  it('changes nothing when any argument is bad', async () => {
    const { id } = await zone();
    const rid = await resource(w.base, w.alice, id, { Type: 'A', Name: 'keep', Target: '192.0.2.1' });
    const before = await one(id, rid);
    expect(await updateErrors({ ResourceID: rid, Name: 'changed', Target: 'not-an-ip' })).toEqual([[8, "The target 'not-an-ip' is not a valid IPv4 address."]]);
    expect(await updateErrors({ ResourceID: rid, Name: 'changed', TTL_sec: 'x' })).toEqual([[7, 'TTL_SEC must be a whole number.']]);
    expect(await one(id, rid)).toEqual(before);
  });

  it('needs ResourceID; a wrong DomainID or an unknown ResourceID is code 5', async () => {
    const a = await zone();
    const b = await zone();
    const rid = await resource(w.base, w.alice, a.id, { Type: 'A', Name: 'x', Target: '192.0.2.1' });
    expect(await updateErrors({ DomainID: a.id, Target: '192.0.2.2' })).toEqual([[6, 'RESOURCEID is required but was not passed in']]);
    expect(await updateErrors({ DomainID: b.id, ResourceID: rid, Target: '192.0.2.2' })).toEqual([[5, 'Object not found']]);
    expect(await updateErrors({ ResourceID: 999999, Target: '192.0.2.2' })).toEqual([[5, 'Object not found']]);
  });
});

describe('domain.resource.delete', () => {
  it('deletes one record and answers {ResourceID}', async () => {
    const { id } = await zone();
    const keep = await resource(w.base, w.alice, id, { Type: 'A', Name: 'keep', Target: '192.0.2.1' });
    const gone = await resource(w.base, w.alice, id, { Type: 'A', Name: 'gone', Target: '192.0.2.2' });
    const a = await call(w.base, { api_action: 'domain.resource.delete', api_key: w.alice, DomainID: id, ResourceID: gone });
    expect(a.text).toBe(`{"ERRORARRAY":[],"ACTION":"domain.resource.delete","DATA":{"ResourceID":${gone}}}`);
    expect((await records(w.base, w.alice, id)).map((r) => r.RESOURCEID)).toEqual([keep]);
    expect(await errors(w.base, { api_action: 'domain.resource.delete', api_key: w.alice, DomainID: id, ResourceID: gone })).toEqual([[5, 'Object not found']]);
  });

  it('needs both DomainID and ResourceID', async () => {
    const { id } = await zone();
    expect(await errors(w.base, { api_action: 'domain.resource.delete', api_key: w.alice, ResourceID: 1 })).toEqual([[6, 'DOMAINID is required but was not passed in']]);
    expect(await errors(w.base, { api_action: 'domain.resource.delete', api_key: w.alice, DomainID: id })).toEqual([[6, 'RESOURCEID is required but was not passed in']]);
  });
});

describe('zone mirrors (Type slave)', () => {
  it('refuses record changes in a slave domain', async () => {
    const slave = await data(w.base, { api_action: 'domain.create', api_key: w.alice, Domain: 'mirror-records.example', Type: 'slave', master_ips: '192.0.2.53' });
    expect(await createErrors(slave.DomainID, { Type: 'A', Name: 'x', Target: '192.0.2.1' })).toEqual([
      [8, 'The domain mirror-records.example is a zone mirror (type slave); its records come from its masters and cannot be edited.'],
    ]);
  });

  it('refuses changing or deleting the records a domain had before it became a slave', async () => {
    const { id, name } = await zone();
    const rid = await resource(w.base, w.alice, id, { Type: 'A', Name: 'x', Target: '192.0.2.1' });
    await data(w.base, { api_action: 'domain.update', api_key: w.alice, DomainID: id, Type: 'slave', master_ips: '192.0.2.53' });
    const refusal = [[8, `The domain ${name} is a zone mirror (type slave); its records come from its masters and cannot be edited.`]];
    expect(await updateErrors({ DomainID: id, ResourceID: rid, Target: '192.0.2.2' })).toEqual(refusal);
    expect(await errors(w.base, { api_action: 'domain.resource.delete', api_key: w.alice, DomainID: id, ResourceID: rid })).toEqual(refusal);
    expect((await records(w.base, w.alice, id)).map((r) => r.RESOURCEID)).toEqual([rid]);
  });
});
