/** Interface B records: every type of the registry through its own routes, /records, wrong-type access, conflicts, pagination. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_TYPE_NAMES } from '../../src/model/records/index.js';
import { startTestServer, v3, type TestServer } from '../support/server.js';
import { client, expectProblem, problemFields, type Client } from './support.js';

let server: TestServer;
let key: string;
let api: Client;
let domainId: number;

/**
 * Per type: a create body, the GET it must yield (without id/type), a PATCH and its effect; `needs`, a record
 * the type needs at its name (DS: a delegation's NS), made first and deleted last.
 */
const SAMPLES: Record<string, { create: object; shown: object; patch: object; patched: object; replace: object; replaced: object; needs?: { type: string; body: object } }> = {
  A: {
    create: { name: 'www', address: '192.0.2.1' },
    shown: { name: 'www', address: '192.0.2.1', ttl: 0 },
    patch: { ttl: 300 },
    patched: { name: 'www', address: '192.0.2.1', ttl: 300 },
    replace: { address: '192.0.2.2' },
    replaced: { name: '', address: '192.0.2.2', ttl: 0 },
  },
  AAAA: {
    create: { name: 'www.records.example.', address: '2001:db8::1', ttl: 3000 },
    shown: { name: 'www', address: '2001:db8::1', ttl: 3600 },
    patch: { address: '2001:db8::2' },
    patched: { name: 'www', address: '2001:db8::2', ttl: 3600 },
    replace: { name: 'v6', address: '2001:db8::3' },
    replaced: { name: 'v6', address: '2001:db8::3', ttl: 0 },
  },
  CNAME: {
    create: { name: 'alias', target: 'www.records.example.' },
    shown: { name: 'alias', target: 'www.records.example', ttl: 0 },
    patch: { target: 'elsewhere.example' },
    patched: { name: 'alias', target: 'elsewhere.example', ttl: 0 },
    replace: { name: 'alias2', target: 'x.example' },
    replaced: { name: 'alias2', target: 'x.example', ttl: 0 },
  },
  ALIAS: {
    create: { name: '', target: 'cdn.records.example.' },
    shown: { name: '', target: 'cdn.records.example', ttl: 0 },
    patch: { target: 'elsewhere.example' },
    patched: { name: '', target: 'elsewhere.example', ttl: 0 },
    replace: { name: 'alias3', target: 'x.example', ttl: 300 },
    replaced: { name: 'alias3', target: 'x.example', ttl: 300 },
  },
  MX: {
    create: { mail_server: 'mail.records.example' },
    shown: { name: '', priority: 10, mail_server: 'mail.records.example', ttl: 0 },
    patch: { priority: 20 },
    patched: { name: '', priority: 20, mail_server: 'mail.records.example', ttl: 0 },
    replace: { name: 'sub', mail_server: 'mx2.example', priority: 5 },
    replaced: { name: 'sub', priority: 5, mail_server: 'mx2.example', ttl: 0 },
  },
  NS: {
    create: { name: 'delegated', nameserver: 'ns1.elsewhere.example' },
    shown: { name: 'delegated', nameserver: 'ns1.elsewhere.example', ttl: 0 },
    patch: { nameserver: 'ns2.elsewhere.example' },
    patched: { name: 'delegated', nameserver: 'ns2.elsewhere.example', ttl: 0 },
    replace: { name: 'delegated', nameserver: 'ns3.elsewhere.example', ttl: 86400 },
    replaced: { name: 'delegated', nameserver: 'ns3.elsewhere.example', ttl: 86400 },
  },
  TXT: {
    create: { name: '_sample', text: 'v=spf1 -all "quoted" ünïcode' },
    shown: { name: '_sample', text: 'v=spf1 -all "quoted" ünïcode', ttl: 0 },
    patch: { text: 'changed' },
    patched: { name: '_sample', text: 'changed', ttl: 0 },
    replace: { text: 'apex' },
    replaced: { name: '', text: 'apex', ttl: 0 },
  },
  SRV: {
    create: { service: '_sip', protocol: 'tcp', port: 5060, target: 'sip.records.example' },
    shown: { service: 'sip', protocol: 'tcp', name: '', priority: 10, weight: 5, port: 5060, target: 'sip.records.example', ttl: 0 },
    patch: { protocol: 'udp', weight: 0 },
    patched: { service: 'sip', protocol: 'udp', name: '', priority: 10, weight: 0, port: 5060, target: 'sip.records.example', ttl: 0 },
    replace: { service: 'xmpp', protocol: 'tcp', name: 'chat', port: 5222, target: 'xmpp.example', priority: 1 },
    replaced: { service: 'xmpp', protocol: 'tcp', name: 'chat', priority: 1, weight: 5, port: 5222, target: 'xmpp.example', ttl: 0 },
  },
  CAA: {
    create: { tag: 'issue', value: 'letsencrypt.org; validationmethods=dns-01' },
    shown: { name: '', tag: 'issue', value: 'letsencrypt.org; validationmethods=dns-01', ttl: 0 },
    patch: { tag: 'issuewild', value: ';' },
    patched: { name: '', tag: 'issuewild', value: ';', ttl: 0 },
    replace: { name: 'shop', tag: 'iodef', value: 'mailto:security@example.com', ttl: 3600 },
    replaced: { name: 'shop', tag: 'iodef', value: 'mailto:security@example.com', ttl: 3600 },
  },
  TLSA: {
    create: { name: '_443._tcp.www', certificate_usage: 3, selector: 1, matching_type: 1, certificate_association_data: 'ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb' },
    shown: { name: '_443._tcp.www', certificate_usage: 3, selector: 1, matching_type: 1, certificate_association_data: 'CA978112CA1BBDCAFAC231B39A23DC4DA786EFF8147C4E72B9807785AFEE48BB', ttl: 0 },
    patch: { matching_type: 0, certificate_association_data: '30820122' },
    patched: { name: '_443._tcp.www', certificate_usage: 3, selector: 1, matching_type: 0, certificate_association_data: '30820122', ttl: 0 },
    replace: { name: '_25._tcp.mail', certificate_usage: 2, selector: 0, matching_type: 2, certificate_association_data: 'CA978112CA1BBDCAFAC231B39A23DC4DA786EFF8147C4E72B9807785AFEE48BBCA978112CA1BBDCAFAC231B39A23DC4DA786EFF8147C4E72B9807785AFEE48BB' },
    replaced: { name: '_25._tcp.mail', certificate_usage: 2, selector: 0, matching_type: 2, certificate_association_data: 'CA978112CA1BBDCAFAC231B39A23DC4DA786EFF8147C4E72B9807785AFEE48BBCA978112CA1BBDCAFAC231B39A23DC4DA786EFF8147C4E72B9807785AFEE48BB', ttl: 0 },
  },
  SSHFP: {
    create: { name: 'host', algorithm: 4, fingerprint_type: 2, fingerprint: '3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d' },
    shown: { name: 'host', algorithm: 4, fingerprint_type: 2, fingerprint: '3E23E8160039594A33894F6564E1B1348BBD7A0088D42C4ACB73EEAED59C009D', ttl: 0 },
    patch: { algorithm: 3 },
    patched: { name: 'host', algorithm: 3, fingerprint_type: 2, fingerprint: '3E23E8160039594A33894F6564E1B1348BBD7A0088D42C4ACB73EEAED59C009D', ttl: 0 },
    replace: { algorithm: 1, fingerprint_type: 1, fingerprint: '86F7E437FAA5A7FCE15D1DDCB9EAEAEA377667B8', ttl: 3600 },
    replaced: { name: '', algorithm: 1, fingerprint_type: 1, fingerprint: '86F7E437FAA5A7FCE15D1DDCB9EAEAEA377667B8', ttl: 3600 },
    },
  PTR: {
    create: { name: '10', ptrdname: 'host.records.example.' },
    shown: { name: '10', ptrdname: 'host.records.example', ttl: 0 },
    patch: { ptrdname: 'other.example' },
    patched: { name: '10', ptrdname: 'other.example', ttl: 0 },
    replace: { name: '11', ptrdname: 'x.example', ttl: 3600 },
    replaced: { name: '11', ptrdname: 'x.example', ttl: 3600 },
  },
  NAPTR: {
    create: { name: 'sip', order: 100, preference: 10, flags: 'u', services: 'E2U+sip', regexp: '!^.*$!sip:info@records.example!' },
    shown: { name: 'sip', order: 100, preference: 10, flags: 'U', services: 'E2U+sip', regexp: '!^.*$!sip:info@records.example!', replacement: '.', ttl: 0 },
    patch: { flags: 'S', regexp: '', replacement: '_sip._udp.records.example.' },
    patched: { name: 'sip', order: 100, preference: 10, flags: 'S', services: 'E2U+sip', regexp: '', replacement: '_sip._udp.records.example', ttl: 0 },
    replace: { order: 1, preference: 2 },
    replaced: { name: '', order: 1, preference: 2, flags: '', services: '', regexp: '', replacement: '.', ttl: 0 },
  },
  DS: {
    needs: { type: 'NS', body: { name: 'child', nameserver: 'ns1.child.example' } },
    create: { name: 'child', key_tag: 12345, algorithm: 13, digest_type: 2, digest: '2e7d2c03a9507ae265ecf5b5356885a53393a2029d241394997265a1a25aefc6' },
    shown: { name: 'child', key_tag: 12345, algorithm: 13, digest_type: 2, digest: '2E7D2C03A9507AE265ECF5B5356885A53393A2029D241394997265A1A25AEFC6', ttl: 0 },
    patch: { algorithm: 8 },
    patched: { name: 'child', key_tag: 12345, algorithm: 8, digest_type: 2, digest: '2E7D2C03A9507AE265ECF5B5356885A53393A2029D241394997265A1A25AEFC6', ttl: 0 },
    replace: { name: 'child', key_tag: 1, algorithm: 13, digest_type: 1, digest: '86F7E437FAA5A7FCE15D1DDCB9EAEAEA377667B8', ttl: 3600 },
    replaced: { name: 'child', key_tag: 1, algorithm: 13, digest_type: 1, digest: '86F7E437FAA5A7FCE15D1DDCB9EAEAEA377667B8', ttl: 3600 },
    },
  SVCB: {
    create: { name: '_dns', svc_priority: 1, target_name: 'dns.records.example.', svc_params: { alpn: ['dot'], port: 853 } },
    shown: { name: '_dns', svc_priority: 1, target_name: 'dns.records.example', svc_params: { alpn: ['dot'], port: 853 }, ttl: 0 },
    // svc_params is one field: PATCH replaces it whole.
    patch: { svc_params: { alpn: ['h2'], key7: '/dns-query{?dns}' } },
    patched: { name: '_dns', svc_priority: 1, target_name: 'dns.records.example', svc_params: { alpn: ['h2'], key7: '/dns-query{?dns}' }, ttl: 0 },
    replace: { svc_priority: 0, target_name: 'other.example' },
    replaced: { name: '', svc_priority: 0, target_name: 'other.example', svc_params: {}, ttl: 0 },
  },
  HTTPS: {
    create: { svc_priority: 1, target_name: '.', svc_params: { alpn: ['h3', 'h2'], ipv6hint: ['2001:DB8:0::1'] } },
    shown: { name: '', svc_priority: 1, target_name: '.', svc_params: { alpn: ['h3', 'h2'], ipv6hint: ['2001:db8::1'] }, ttl: 0 },
    patch: { svc_priority: 2, ttl: 300 },
    patched: { name: '', svc_priority: 2, target_name: '.', svc_params: { alpn: ['h3', 'h2'], ipv6hint: ['2001:db8::1'] }, ttl: 300 },
    replace: { name: 'www', svc_priority: 0, target_name: 'cdn.example.net' },
    replaced: { name: 'www', svc_priority: 0, target_name: 'cdn.example.net', svc_params: {}, ttl: 0 },
  },
};

beforeAll(async () => {
  server = await startTestServer();
  ({ key } = await server.user('alice'));
  api = client(server.base, key);
  domainId = (await api.post('/v1/domains', { domain: 'records.example', soa: 'hostmaster@records.example' })).body.id;
});
afterAll(() => server.close());

describe('per-type record routes', () => {
  it('has a sample for every registered type', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual([...RECORD_TYPE_NAMES].sort());
  });

  for (const type of RECORD_TYPE_NAMES) {
    it(`${type}: POST, GET, list, PUT, PATCH, DELETE`, async () => {
      const s = SAMPLES[type]!;
      const base = `/v1/domains/${domainId}/${type}`;
      const needed = s.needs && (await api.post(`/v1/domains/${domainId}/${s.needs.type}`, s.needs.body));
      if (needed) expect(needed.status, needed.text).toBe(201);
      const c = await api.post(base, s.create);
      expect(c.status, c.text).toBe(201);
      expect(c.body).toEqual({ id: expect.any(Number), type, ...s.shown });
      expect(c.headers.get('location')).toBe(`${base}/${c.body.id}`);
      const g = await api.get(`${base}/${c.body.id}`);
      expect(g.body).toEqual(c.body);
      expect(g.headers.get('etag')).toBe(c.headers.get('etag'));
      expect((await api.get(base)).body).toEqual([c.body]);
      const all = (await api.get(`/v1/domains/${domainId}/records?type=${type}`)).body;
      expect(all).toEqual([c.body]);

      const p = await api.patch(`${base}/${c.body.id}`, s.patch);
      expect(p.status, p.text).toBe(200);
      expect(p.body).toEqual({ id: c.body.id, type, ...s.patched });
      const u = await api.put(`${base}/${c.body.id}`, s.replace);
      expect(u.status, u.text).toBe(200);
      expect(u.body).toEqual({ id: c.body.id, type, ...s.replaced });
      expect((await api.get(`${base}/${c.body.id}`)).body).toEqual(u.body);

      const d = await api.del(`${base}/${c.body.id}`);
      expect(d.status).toBe(204);
      expectProblem(await api.get(`${base}/${c.body.id}`), 404);
      expect((await api.get(base)).body).toEqual([]);
      if (needed) expect((await api.del(`/v1/domains/${domainId}/${s.needs?.type}/${needed.body.id}`)).status).toBe(204);
    });
  }
});

describe('record rules and errors', () => {
  it('reaching a record through the wrong type is 404 for every method, and changes nothing', async () => {
    const a = await api.post(`/v1/domains/${domainId}/A`, { name: 'typed', address: '192.0.2.7' });
    for (const other of RECORD_TYPE_NAMES.filter((t) => t !== 'A')) {
      const url = `/v1/domains/${domainId}/${other}/${a.body.id}`;
      expectProblem(await api.get(url), 404);
      expectProblem(await api.patch(url, {}), 404);
      expectProblem(await api.put(url, SAMPLES[other]!.create), 404);
      expectProblem(await api.del(url), 404);
    }
    expect((await api.get(`/v1/domains/${domainId}/A/${a.body.id}`)).body).toEqual(a.body);
    // A record of another domain of the same account is not reachable through this one.
    const other = (await api.post('/v1/domains', { domain: 'other-records.example', soa: 'a@other-records.example' })).body.id;
    expectProblem(await api.get(`/v1/domains/${other}/A/${a.body.id}`), 404);
    await api.del(`/v1/domains/${domainId}/A/${a.body.id}`);
  });

  it('names the v1 fields in schema and model problems', async () => {
    const r = await api.post(`/v1/domains/${domainId}/A`, { address: '2001:db8::1', ttl: 'x', priority: 1 });
    expect(problemFields(r, 400).sort()).toEqual(['address', 'priority', 'ttl']);
    // Schema problems and the registry's rules are reported together.
    const mx = await api.post(`/v1/domains/${domainId}/MX`, { mail_server: 'bad..host', priority: 70000 });
    expect(problemFields(mx, 400)).toEqual(['priority', 'mail_server']);
    expect(mx.body.errors[1].reason).toMatch(/empty labels/);
    const good = await api.post(`/v1/domains/${domainId}/MX`, { name: 'rules', mail_server: 'mx.example' });
    const patched = await api.patch(`/v1/domains/${domainId}/MX/${good.body.id}`, { name: 'x.outside.example.', ttl: -5 });
    expect(problemFields(patched, 400)).toEqual(['ttl', 'name']);
    const put = await api.put(`/v1/domains/${domainId}/MX/${good.body.id}`, { name: 'x.outside.example.', mail_server: 'ok.example', extra: true });
    expect(problemFields(put, 400)).toEqual(['extra', 'name']);
    expect((await api.get(`/v1/domains/${domainId}/MX/${good.body.id}`)).body).toEqual(good.body);
    await api.del(`/v1/domains/${domainId}/MX/${good.body.id}`);
    const mx2 = await api.post(`/v1/domains/${domainId}/MX`, { mail_server: 'bad..host', name: 'x.outside.example.' });
    expect(problemFields(mx2, 400).sort()).toEqual(['mail_server', 'name']);
    const cname = await api.post(`/v1/domains/${domainId}/CNAME`, { name: '', target: 'x.example' });
    expect(problemFields(cname, 400)).toEqual(['name']);
    const srv = await api.post(`/v1/domains/${domainId}/SRV`, { service: 'bad service', protocol: 'tcp' });
    expect(problemFields(srv, 400).sort()).toEqual(['port', 'service', 'target']);
  });

  it('refuses a * label in a target (underscores stay allowed) and a CNAME pointing at its own name', async () => {
    const ns = await api.post(`/v1/domains/${domainId}/NS`, { name: 'nsw', nameserver: '*' });
    expect(problemFields(ns, 400)).toEqual(['nameserver']);
    expect(ns.body.errors[0].reason).toBe("The name server host name '*' must not contain a * label (only a record's own name can be a wildcard).");
    expect(problemFields(await api.post(`/v1/domains/${domainId}/MX`, { mail_server: '*.example.net' }), 400)).toEqual(['mail_server']);
    const self = await api.post(`/v1/domains/${domainId}/CNAME`, { name: 'self', target: 'SELF.records.example.' });
    expect(problemFields(self, 400)).toEqual(['target']);
    expect(self.body.errors[0].reason).toBe('A CNAME record cannot point at its own name (self.records.example).');
    const acme = await api.post(`/v1/domains/${domainId}/CNAME`, { name: '_acme-challenge', target: '_acme-challenge.other.example' });
    expect(acme.status).toBe(201);
    expect(problemFields(await api.patch(`/v1/domains/${domainId}/CNAME/${acme.body.id}`, { target: '_acme-challenge.records.example' }), 400)).toEqual(['target']);
    await api.del(`/v1/domains/${domainId}/CNAME/${acme.body.id}`);
  });

  it('takes an SRV name as the host under _service._protocol: the domain itself in any spelling, or a name inside it', async () => {
    const cases: [string, string][] = [['@', ''], ['records.example', ''], ['RECORDS.EXAMPLE.', ''], ['chat.records.example.', 'chat']];
    for (const [i, [name, shown]] of cases.entries()) {
      const r = await api.post(`/v1/domains/${domainId}/SRV`, { service: `svc${i}`, protocol: 'udp', name, port: 1, target: 'srv.example' });
      expect(r.body, name).toMatchObject({ service: `svc${i}`, protocol: 'udp', name: shown });
      const listed = await v3(server.base, { api_action: 'domain.resource.list', api_key: key, DomainID: domainId, ResourceID: r.body.id });
      expect(listed.DATA[0]).toMatchObject({ NAME: `_svc${i}._udp${shown ? `.${shown}` : ''}`, PROTOCOL: 'udp' });
      await api.del(`/v1/domains/${domainId}/SRV/${r.body.id}`);
    }
  });

  it('answers 409 for a CNAME clash and for a duplicate record', async () => {
    const a = await api.post(`/v1/domains/${domainId}/A`, { name: 'clash', address: '192.0.2.8' });
    const c = await api.post(`/v1/domains/${domainId}/CNAME`, { name: 'clash', target: 'x.example' });
    expect(problemFields(c, 409)).toEqual(['name']);
    expectProblem(await api.post(`/v1/domains/${domainId}/A`, { name: 'clash', address: '192.0.2.8' }), 409);
    await api.del(`/v1/domains/${domainId}/A/${a.body.id}`);
  });

  it('takes only the three CAA tags, names the v1 fields in problems, and shows a CAA made through interface A', async () => {
    const other = await api.post(`/v1/domains/${domainId}/CAA`, { tag: 'contactemail', value: 'a@example.com', priority: 128 });
    expect(problemFields(other, 400).sort()).toEqual(['priority', 'tag']);
    const bad = await api.post(`/v1/domains/${domainId}/CAA`, { name: 'caa', tag: 'issue', value: 'letsencrypt.org.' });
    expect(problemFields(bad, 400)).toEqual(['value']);
    expect(bad.body.errors[0].reason).toBe("The issuer domain 'letsencrypt.org.' must not end with a dot.");
    const made = await v3(server.base, { api_action: 'domain.resource.create', api_key: key, DomainID: domainId, Type: 'CAA', Name: 'caa', Tag: 'iodef', Target: 'https://ca.example/iodef', Priority: 7 });
    const rid = made.DATA.ResourceID;
    expect((await api.get(`/v1/domains/${domainId}/CAA/${rid}`)).body).toEqual({ id: rid, type: 'CAA', name: 'caa', tag: 'iodef', value: 'https://ca.example/iodef', ttl: 0 });
    expectProblem(await api.post(`/v1/domains/${domainId}/CAA`, { name: 'caa', tag: 'iodef', value: 'https://ca.example/iodef' }), 409);
    await api.del(`/v1/domains/${domainId}/CAA/${rid}`);
  });

  it('shows AAAA addresses in canonical text and answers 409 for an equivalent one', async () => {
    const a = await api.post(`/v1/domains/${domainId}/AAAA`, { name: 'v6', address: '2001:DB8:0::10' });
    expect(a.body).toMatchObject({ name: 'v6', address: '2001:db8::10' });
    expect(problemFields(await api.post(`/v1/domains/${domainId}/AAAA`, { name: 'v6', address: '2001:db8::0:10' }), 409)).toEqual(['address']);
    const b = await api.post(`/v1/domains/${domainId}/AAAA`, { name: 'v6', address: '2001:db8::11' });
    expect(problemFields(await api.patch(`/v1/domains/${domainId}/AAAA/${b.body.id}`, { address: '2001:0db8::0010' }), 409)).toEqual(['address']);
    for (const r of [a, b]) await api.del(`/v1/domains/${domainId}/AAAA/${r.body.id}`);
  });

  it('answers 409 for a name server inside the domain without an address, and for deleting its last address', async () => {
    const ns = await api.post(`/v1/domains/${domainId}/NS`, { nameserver: 'ns.records.example' });
    expect(problemFields(ns, 409)).toEqual(['nameserver']);
    const a = await api.post(`/v1/domains/${domainId}/A`, { name: 'ns', address: '192.0.2.53' });
    const created = await api.post(`/v1/domains/${domainId}/NS`, { nameserver: 'ns.records.example' });
    expect(created.status).toBe(201);
    expect(problemFields(await api.patch(`/v1/domains/${domainId}/A/${a.body.id}`, { name: 'moved' }), 409)).toEqual(['name']);
    expect(problemFields(await api.del(`/v1/domains/${domainId}/A/${a.body.id}`), 409)).toEqual([null]);
    expect((await api.get(`/v1/domains/${domainId}/A/${a.body.id}`)).body).toMatchObject({ name: 'ns', address: '192.0.2.53' });
    expect((await api.del(`/v1/domains/${domainId}/NS/${created.body.id}`)).status).toBe(204);
    expect((await api.del(`/v1/domains/${domainId}/A/${a.body.id}`)).status).toBe(204);
  });

  it('If-Match on records: 412 when stale, nothing changed', async () => {
    const c = await api.post(`/v1/domains/${domainId}/TXT`, { name: 'etag', text: 'one' });
    const url = `/v1/domains/${domainId}/TXT/${c.body.id}`;
    const tag = c.headers.get('etag') as string;
    const p = await api.patch(url, { text: 'two' }, { headers: { 'if-match': tag } });
    expect(p.status).toBe(200);
    expectProblem(await api.patch(url, { text: 'three' }, { headers: { 'if-match': tag } }), 412);
    expectProblem(await api.put(url, { text: 'three' }, { headers: { 'if-match': tag } }), 412);
    expectProblem(await api.del(url, { headers: { 'if-match': tag } }), 412);
    expect((await api.get(url)).body.text).toBe('two');
    expect((await api.del(url, { headers: { 'if-match': p.headers.get('etag') as string } })).status).toBe(204);
  });

  it('If-Match on records holds under concurrency: of changes and a delete sent at once with one tag, exactly one lands', async () => {
    const c = await api.post(`/v1/domains/${domainId}/TXT`, { name: 'race', text: 'zero' });
    const url = `/v1/domains/${domainId}/TXT/${c.body.id}`;
    const headers = { 'if-match': c.headers.get('etag') as string };
    const texts = ['one', 'two', 'three', 'four', 'five'];
    const replies = await Promise.all([api.del(url, { headers }), ...texts.map((text) => api.patch(url, { text }, { headers }))]);
    const won = replies.filter((r) => r.status === 200 || r.status === 204);
    expect(won).toHaveLength(1);
    // Losers are 412, or 404 once the delete won (a request that began after it finds nothing to match).
    for (const r of replies) if (!won.includes(r)) expectProblem(r, r.status === 404 && won[0]!.status === 204 ? 404 : 412);
    const after = await api.get(url);
    if (won[0]!.status === 204) expectProblem(after, 404);
    else expect(after.body.text).toBe(won[0]!.body.text);
    await api.del(url);
  });

  it('answers 405 with Allow on record paths', async () => {
    const r = await api.del(`/v1/domains/${domainId}/records`);
    expectProblem(r, 405);
    expect(r.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const t = await api.put(`/v1/domains/${domainId}/MX`, {});
    expectProblem(t, 405);
    expect(t.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
    const one = await api.post(`/v1/domains/${domainId}/MX/1`, {});
    expectProblem(one, 405);
    expect(one.headers.get('allow')).toBe('GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
  });

  it('takes an empty body labelled JSON as no body where none is needed (a DELETE, as many clients send it), and refuses it where one is', async () => {
    const json = { 'content-type': 'application/json' };
    const made = await api.post(`/v1/domains/${domainId}/A`, { name: 'labelled-delete', address: '192.0.2.77' });
    expect(made.status, made.text).toBe(201);
    const gone = await api.del(`/v1/domains/${domainId}/A/${made.body.id}`, { raw: '', headers: json });
    expect(gone.status, gone.text).toBe(204);
    expectProblem(await api.get(`/v1/domains/${domainId}/A/${made.body.id}`), 404);
    const listed = await api.get(`/v1/domains/${domainId}/records`, { headers: json });
    expect(listed.status, listed.text).toBe(200);
    const empty = expectProblem(await api.call('POST', `/v1/domains/${domainId}/A`, { raw: '', headers: json }), 400);
    expect(empty.detail).toMatch(/body is empty/);
  });

  it('records of a missing domain, or of a zone mirror, are 404', async () => {
    expectProblem(await api.get('/v1/domains/999999/records'), 404);
    expectProblem(await api.post('/v1/domains/999999/A', { address: '192.0.2.1' }), 404);
    const m = await api.post('/v1/zonemirrors', { domain: 'mirror-records.example', masters: ['192.0.2.53'] });
    expectProblem(await api.get(`/v1/domains/${m.body.id}/records`), 404);
    expectProblem(await api.post(`/v1/domains/${m.body.id}/A`, { address: '192.0.2.1' }), 404);
  });
});

describe('/records, filters and pagination', () => {
  let dom: number;
  const ids: number[] = [];
  beforeAll(async () => {
    dom = (await api.post('/v1/domains', { domain: 'pages.example', soa: 'a@pages.example' })).body.id;
    for (let i = 0; i < 7; i++) ids.push((await api.post(`/v1/domains/${dom}/TXT`, { name: `t${i % 2}`, text: `value ${i}` })).body.id);
    ids.push((await api.post(`/v1/domains/${dom}/A`, { name: 't0', address: '192.0.2.1' })).body.id);
    ids.push((await api.post(`/v1/domains/${dom}/MX`, { mail_server: 'mx.pages.example' })).body.id);
  });

  it('lists every record with id and type, ordered by id', async () => {
    const r = await api.get(`/v1/domains/${dom}/records`);
    expect(r.body.map((x: any) => x.id)).toEqual(ids);
    expect(r.body.map((x: any) => x.type)).toEqual(['TXT', 'TXT', 'TXT', 'TXT', 'TXT', 'TXT', 'TXT', 'A', 'MX']);
    expect(r.headers.get('link')).toBeNull();
  });

  it('filters by type and by name', async () => {
    expect((await api.get(`/v1/domains/${dom}/records?type=MX`)).body.map((x: any) => x.id)).toEqual([ids[8]]);
    expect((await api.get(`/v1/domains/${dom}/records?name=T0`)).body.map((x: any) => x.id)).toEqual([ids[0], ids[2], ids[4], ids[6], ids[7]]);
    expect((await api.get(`/v1/domains/${dom}/records?name=t0&type=A`)).body.map((x: any) => x.id)).toEqual([ids[7]]);
    expect((await api.get(`/v1/domains/${dom}/records?name=@`)).body.map((x: any) => x.id)).toEqual([ids[8]]);
    expect((await api.get(`/v1/domains/${dom}/TXT?name=t1`)).body.map((x: any) => x.id)).toEqual([ids[1], ids[3], ids[5]]);
    const bad = await api.get(`/v1/domains/${dom}/records?type=NOTATYPE`);
    expect(problemFields(bad, 400)).toEqual(['type']);
    expect(bad.body.errors[0].reason.startsWith(`must be one of ${RECORD_TYPE_NAMES.join(', ')}`)).toBe(true);
    const unknown = await api.get(`/v1/domains/${dom}/records?color=red`);
    expect(problemFields(unknown, 400)).toEqual(['color']);
  });

  it('pages with ?limit= and Link rel="next" until every record was seen once', async () => {
    const seen: number[] = [];
    let url: string | null = `/v1/domains/${dom}/records?limit=2`;
    let pages = 0;
    while (url) {
      const r = await api.get(url);
      expect(r.status).toBe(200);
      expect(r.body.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.map((x: any) => x.id));
      pages++;
      const link = r.headers.get('link');
      url = link ? (/^<([^>]+)>; rel="next"$/.exec(link)?.[1] ?? null) : null;
    }
    expect(seen).toEqual(ids);
    expect(pages).toBe(5);
    // Filters stay in the next link.
    const first = await api.get(`/v1/domains/${dom}/TXT?limit=3&name=t0`);
    expect(first.body.map((x: any) => x.id)).toEqual([ids[0], ids[2], ids[4]]);
    const next = /^<([^>]+)>/.exec(first.headers.get('link') ?? '')?.[1] as string;
    expect((await api.get(next)).body.map((x: any) => x.id)).toEqual([ids[6]]);
  });

  it('refuses page sizes outside 1..500', async () => {
    for (const q of ['limit=0', 'limit=501', 'limit=abc', 'after=-1', 'limit=1&limit=2']) {
      expectProblem(await api.get(`/v1/domains/${dom}/records?${q}`), 400);
    }
    expect((await api.get(`/v1/domains/${dom}/records?limit=500`)).body.length).toBe(9);
  });
});

describe('records through both interfaces', () => {
  it('a record created through /v1 is listed by domain.resource.list with the same id, and the reverse', async () => {
    const mx = await api.post(`/v1/domains/${domainId}/MX`, { name: 'cross', mail_server: 'mx.cross.example', priority: 7 });
    const list = await v3(server.base, { api_action: 'domain.resource.list', api_key: key, DomainID: domainId, ResourceID: mx.body.id });
    expect(list.DATA).toEqual([expect.objectContaining({ RESOURCEID: mx.body.id, DOMAINID: domainId, TYPE: 'MX', NAME: 'cross', TARGET: 'mx.cross.example', PRIORITY: 7 })]);

    const srv = await v3(server.base, { api_action: 'domain.resource.create', api_key: key, DomainID: domainId, Type: 'SRV', Name: '_xmpp', Protocol: 'tcp', Target: 'chat.example', Port: 5269, Priority: 3, Weight: 2 });
    const rid = srv.DATA.ResourceID;
    const g = await api.get(`/v1/domains/${domainId}/SRV/${rid}`);
    expect(g.body).toEqual({ id: rid, type: 'SRV', service: 'xmpp', protocol: 'tcp', name: '', priority: 3, weight: 2, port: 5269, target: 'chat.example', ttl: 0 });
    expectProblem(await api.get(`/v1/domains/${domainId}/MX/${rid}`), 404);
    // A change through /v1 is what interface A reads next.
    await api.patch(`/v1/domains/${domainId}/SRV/${rid}`, { port: 5270 });
    const after = await v3(server.base, { api_action: 'domain.resource.list', api_key: key, DomainID: domainId, ResourceID: rid });
    expect(after.DATA[0]).toMatchObject({ PORT: 5270, NAME: '_xmpp._tcp' });
  });
});
