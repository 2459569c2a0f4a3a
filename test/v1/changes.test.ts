/**
 * POST /v1/domains/{id}/changes over HTTP: all or none, one serial increase and one record.batch event,
 * problems named by JSON pointers, the zone rules judged after the whole list (A swapped for a CNAME),
 * If-Match, 10,000 creates in one request, other accounts' ids, and hostile change lists (never a 5xx,
 * never a partial write).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_TYPE_NAMES } from '../../src/model/records/index.js';
import { dig } from '../dns/support.js';
import { startTestServer, v3, type TestServer } from '../support/server.js';
import { client, expectProblem, fieldsOf, type Client } from './support.js';
import { peers } from '../support/peers.js';

const needsDig = peers('dig');

let server: TestServer;
let key: string;
let api: Client;
let other: Client;
let n = 0;

beforeAll(async () => {
  server = await startTestServer();
  key = (await server.user('alice')).key;
  api = client(server.base, key);
  other = client(server.base, (await server.user('bob')).key);
});
afterAll(() => server.close());

/** A fresh domain of alice's. */
async function domain(name = `bulk${++n}.example`): Promise<number> {
  const r = await api.post('/v1/domains', { domain: name, soa: `h@${name}` });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}

const serialOf = async (id: number): Promise<number> => (await server.services.store.domainById(id))?.serial ?? -1;
const recordsOf = async (id: number): Promise<any[]> => (await server.services.store.listRecords(id)).map((r) => ({ ...r }));
const eventsOf = async (id: number): Promise<any[]> => (await api.get(`/v1/events?domain=${id}&limit=500`)).body;
const changes = (id: number, list: unknown, opts?: Parameters<Client['post']>[2]) => api.post(`/v1/domains/${id}/changes`, { changes: list }, opts);

/** The zone as stored, to show nothing was written: records, serial and audit trail. */
async function snapshot(id: number) {
  return { records: await recordsOf(id), serial: await serialOf(id), events: (await eventsOf(id)).length };
}

describe('POST /v1/domains/{id}/changes', () => {
  needsDig.it('applies creates, updates and deletes together: the records in order, one serial increase, one record.batch event', async () => {
    const id = await domain();
    const mx = (await api.post(`/v1/domains/${id}/MX`, { mail_server: 'mail.example.net', priority: 10 })).body;
    const txt = (await api.post(`/v1/domains/${id}/TXT`, { name: 'note', text: 'old' })).body;
    const a = (await api.post(`/v1/domains/${id}/A`, { name: 'old', address: '192.0.2.9' })).body;
    const before = await serialOf(id);
    const eventsBefore = (await eventsOf(id)).length;

    const r = await changes(id, [
      { op: 'create', type: 'A', name: 'www', address: '192.0.2.1' },
      { op: 'update', type: 'MX', id: mx.id, priority: 20 },
      { op: 'delete', type: 'TXT', id: txt.id },
      { op: 'create', type: 'AAAA', name: 'www', address: '2001:DB8:0::1', ttl: 3600 },
      { op: 'update', type: 'A', id: a.id, name: 'new' },
    ]);
    expect(r.status, r.text).toBe(200);
    const www = r.body.changes[0];
    expect(www).toEqual({ id: expect.any(Number), type: 'A', name: 'www', address: '192.0.2.1', ttl: 0 });
    expect(r.body.changes.slice(1)).toEqual([
      { id: mx.id, type: 'MX', name: '', priority: 20, mail_server: 'mail.example.net', ttl: 0 },
      { id: txt.id, type: 'TXT', deleted: true },
      { id: expect.any(Number), type: 'AAAA', name: 'www', address: '2001:db8::1', ttl: 3600 },
      { id: a.id, type: 'A', name: 'new', address: '192.0.2.9', ttl: 0 },
    ]);
    // The results are the records as stored.
    expect((await api.get(`/v1/domains/${id}/A/${www.id}`)).body).toEqual(www);
    expect((await api.get(`/v1/domains/${id}/TXT/${txt.id}`)).status).toBe(404);
    expect((await api.get(`/v1/domains/${id}/MX/${mx.id}`)).body.priority).toBe(20);

    const after = await serialOf(id);
    expect(after).toBeGreaterThan(before);
    expect(r.body.serial).toBe(after);
    // The DNS server serves the new serial.
    const name = (await api.get(`/v1/domains/${id}`)).body.domain;
    await expect.poll(async () => (await dig(server, name, 'SOA')).answer[0]?.data.split(' ')[2]).toBe(String(after));
    const events = await eventsOf(id);
    expect(events.length).toBe(eventsBefore + 1);
    const batch = events.at(-1);
    expect(batch).toMatchObject({ action: 'record.batch', serial: after, interface: 'v1', object_id: null });
    expect(batch.before.map((x: any) => x.id).sort()).toEqual([mx.id, txt.id, a.id].sort());
    expect(batch.after.map((x: any) => x.id).sort()).toEqual([mx.id, a.id, www.id, r.body.changes[3].id].sort());
    // Exactly one journal row for the whole list: one serial step an IXFR client sees.
    expect(events.filter((e: any) => e.serial === after)).toHaveLength(1);
  });

  it('writes nothing when an item in the middle is bad, and names it /changes/N/field', async () => {
    const id = await domain();
    const mx = (await api.post(`/v1/domains/${id}/MX`, { mail_server: 'mail.example.net' })).body;
    const before = await snapshot(id);
    const list = [
      ...Array.from({ length: 5 }, (_, i) => ({ op: 'create', type: 'A', name: `h${i}`, address: `192.0.2.${i + 1}` })),
      { op: 'create', type: 'A', name: 'bad', address: '192.0.2.300' },
      { op: 'update', type: 'MX', id: mx.id, priority: 70000 },
      { op: 'create', type: 'MX', name: 'x', mail_server: 'mail..example.com' },
      { op: 'create', type: 'A', name: 'late', address: '192.0.2.200' },
    ];
    const r = await changes(id, list);
    const p = expectProblem(r, 422);
    expect(fieldsOf(r)).toEqual(['/changes/5/address', '/changes/6/priority', '/changes/7/mail_server']);
    expect(p.detail).toMatch(/nothing was written/);
    expect(await snapshot(id)).toEqual(before);
  });

  it('swaps an A record for a CNAME at one name in one request, in either order', async () => {
    const id = await domain('swap.example');
    const a = (await api.post(`/v1/domains/${id}/A`, { name: 'www', address: '192.0.2.1' })).body;
    const r = await changes(id, [
      { op: 'delete', type: 'A', id: a.id },
      { op: 'create', type: 'CNAME', name: 'www', target: 'elsewhere.example.net' },
    ]);
    expect(r.status, r.text).toBe(200);
    const cname = r.body.changes[1];
    expect(cname).toMatchObject({ type: 'CNAME', name: 'www', target: 'elsewhere.example.net' });
    // And back, listing the create before the delete.
    const back = await changes(id, [
      { op: 'create', type: 'A', name: 'www', address: '192.0.2.2' },
      { op: 'create', type: 'AAAA', name: 'www', address: '2001:db8::2' },
      { op: 'delete', type: 'CNAME', id: cname.id },
    ]);
    expect(back.status, back.text).toBe(200);
    expect((await recordsOf(id)).map((x) => x.type).sort()).toEqual(['A', 'AAAA']);
    // One by one, the same swap is refused (the single-record rule).
    expectProblem(await api.post(`/v1/domains/${id}/CNAME`, { name: 'www', target: 'x.example.net' }), 409);
  });

  it('judges the zone as the list leaves it: a CNAME beside data is a 422 naming the items involved, nothing written', async () => {
    const id = await domain();
    await api.post(`/v1/domains/${id}/A`, { name: 'www', address: '192.0.2.1' });
    const before = await snapshot(id);
    const r = await changes(id, [
      { op: 'create', type: 'TXT', name: 'fine', text: 'ok' },
      { op: 'create', type: 'CNAME', name: 'www', target: 'elsewhere.example.net' },
    ]);
    expectProblem(r, 422);
    expect(fieldsOf(r)).toEqual(['/changes/1/name']);
    expect(r.body.errors[0].reason).toMatch(/CNAME/);
    // Two creates of the same record: both named.
    const dup = await changes(id, [
      { op: 'create', type: 'A', name: 'twice', address: '192.0.2.7' },
      { op: 'create', type: 'A', name: 'TWICE', address: '192.0.2.7' },
    ]);
    expectProblem(dup, 422);
    expect(fieldsOf(dup)).toEqual(['/changes/0/address', '/changes/1/address']);
    // A DS whose NS goes away in the same list.
    const ns = (await api.post(`/v1/domains/${id}/NS`, { name: 'child', nameserver: 'ns1.elsewhere.example' })).body;
    const ds = await api.post(`/v1/domains/${id}/DS`, { name: 'child', key_tag: 1, algorithm: 13, digest_type: 2, digest: 'AB'.repeat(32) });
    expect(ds.status, ds.text).toBe(201);
    const mid = await snapshot(id);
    const gone = await changes(id, [{ op: 'delete', type: 'NS', id: ns.id }]);
    expectProblem(gone, 422);
    expect(fieldsOf(gone)).toEqual(['/changes/0']);
    // An apex NS naming a host inside the zone, without its address.
    const nsHost = await changes(id, [{ op: 'create', type: 'NS', name: '', nameserver: `ns9.${'bulk'}${n}.example` }]);
    expectProblem(nsHost, 422);
    expect(fieldsOf(nsHost)).toEqual(['/changes/0']);
    expect(await snapshot(id)).toEqual(mid);
    expect(before.records.length).toBe(1);
    // With its address in the same list it is fine.
    const withAddress = await changes(id, [
      { op: 'create', type: 'NS', name: '', nameserver: `ns9.bulk${n}.example` },
      { op: 'create', type: 'A', name: 'ns9', address: '192.0.2.53' },
    ]);
    expect(withAddress.status, withAddress.text).toBe(200);
  });

  it('checks ids: unknown, another domain\'s, another account\'s, the wrong type, the same id twice', async () => {
    const id = await domain();
    const mine = (await api.post(`/v1/domains/${id}/A`, { name: 'www', address: '192.0.2.1' })).body;
    const elsewhere = await domain();
    const theirs = (await api.post(`/v1/domains/${elsewhere}/A`, { name: 'www', address: '192.0.2.1' })).body;
    const bobDomain = (await other.post('/v1/domains', { domain: 'bob-bulk.example', soa: 'b@bob-bulk.example' })).body.id;
    const bobs = (await other.post(`/v1/domains/${bobDomain}/A`, { name: 'www', address: '192.0.2.1' })).body;
    const before = await snapshot(id);
    const bobBefore = await recordsOf(bobDomain);
    const r = await changes(id, [
      { op: 'delete', type: 'A', id: theirs.id },
      { op: 'update', type: 'A', id: bobs.id, address: '192.0.2.66' },
      { op: 'delete', type: 'A', id: 999999 },
      { op: 'update', type: 'TXT', id: mine.id, text: 'x' },
      { op: 'update', type: 'A', id: mine.id, ttl: 300 },
      { op: 'delete', type: 'A', id: mine.id },
      { op: 'update', type: 'A', address: '192.0.2.5' },
      { op: 'create', type: 'A', id: mine.id, address: '192.0.2.5' },
    ]);
    expectProblem(r, 422);
    // Item 3 names the record first (with the wrong type), so items 4 and 5 name it again.
    expect(fieldsOf(r)).toEqual(['/changes/0/id', '/changes/1/id', '/changes/2/id', '/changes/3/type', '/changes/4/id', '/changes/5/id', '/changes/6/id', '/changes/7/id']);
    // Another account's record reads like a missing one.
    expect(r.body.errors[1].reason).toBe(`The domain has no record ${bobs.id}.`);
    expect(await snapshot(id)).toEqual(before);
    expect(await recordsOf(bobDomain)).toEqual(bobBefore);
    // Another account's domain is 404, as on every route.
    expectProblem(await changes(bobDomain, [{ op: 'delete', type: 'A', id: bobs.id }]), 404);
    expectProblem(await changes(987654, []), 404);
    expect(await recordsOf(bobDomain)).toEqual(bobBefore);
  });

  it('refuses unknown ops, types and fields, each named', async () => {
    const id = await domain();
    const before = await snapshot(id);
    const r = await changes(id, [
      { op: 'upsert', type: 'A', name: 'x', address: '192.0.2.1' },
      { op: 'create', type: 'SOA', name: '' },
      { op: 'create', type: 'a', address: '192.0.2.1' },
      { op: 'create', type: 'A', address: '192.0.2.1', colour: 'blue' },
      { op: 'create', type: 'A' },
      { type: 'A', address: '192.0.2.1' },
      { op: 'delete', type: 'A', id: 1, address: '192.0.2.1' },
      'not an object',
      { op: 'create', type: 'TXT', text: 5 },
    ]);
    expectProblem(r, 422);
    expect(fieldsOf(r)).toEqual([
      '/changes/0/op',
      '/changes/1/type',
      '/changes/2/type',
      '/changes/3/colour',
      '/changes/4/address',
      '/changes/5/op',
      '/changes/6/id',
      '/changes/6/address',
      '/changes/7',
      '/changes/8/text',
    ]);
    expect(await snapshot(id)).toEqual(before);
    // The list itself.
    for (const body of [{}, { changes: 'x' }, { changes: [], extra: 1 }, { changes: {} }]) {
      const bad = await api.post(`/v1/domains/${id}/changes`, body);
      expectProblem(bad, 422);
      for (const f of fieldsOf(bad)) expect(f).toMatch(/^\/(changes|extra)$/);
    }
    expectProblem(await api.post(`/v1/domains/${id}/changes`, undefined, { raw: '{"changes": [', headers: { 'content-type': 'application/json' } }), 400);
    expect(await snapshot(id)).toEqual(before);
  });

  it('an empty list changes nothing', async () => {
    const id = await domain();
    const before = await snapshot(id);
    const r = await changes(id, []);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ serial: before.serial, changes: [] });
    expect(await snapshot(id)).toEqual(before);
  });

  it('honours If-Match with the domain\'s ETag, inside the write: 412 and nothing written on a mismatch', async () => {
    const id = await domain();
    const etag = (await api.get(`/v1/domains/${id}`)).headers.get('etag') as string;
    expect(etag).toBeTruthy();
    const before = await snapshot(id);
    const list = [{ op: 'create', type: 'A', name: 'www', address: '192.0.2.1' }];
    expectProblem(await changes(id, list, { headers: { 'if-match': '"not-it"' } }), 412);
    expect(await snapshot(id)).toEqual(before);
    const ok = await changes(id, list, { headers: { 'if-match': etag } });
    expect(ok.status, ok.text).toBe(200);
    // The domain changes: the old tag no longer matches.
    await api.patch(`/v1/domains/${id}`, { default_ttl: 3600 });
    const mid = await snapshot(id);
    expectProblem(await changes(id, [{ op: 'create', type: 'A', name: 'two', address: '192.0.2.2' }], { headers: { 'if-match': etag } }), 412);
    expect(await snapshot(id)).toEqual(mid);
    expect((await changes(id, [{ op: 'create', type: 'A', name: 'two', address: '192.0.2.2' }], { headers: { 'if-match': '*' } })).status).toBe(200);
  });

  it('takes 10,000 creates in one request', async () => {
    const id = await domain();
    const before = await serialOf(id);
    const list = Array.from({ length: 10_000 }, (_, i) => ({ op: 'create', type: 'A', name: `host${i}`, address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }));
    const r = await changes(id, list);
    expect(r.status, r.text.slice(0, 500)).toBe(200);
    expect(r.body.changes).toHaveLength(10_000);
    expect(r.body.changes[9999]).toMatchObject({ type: 'A', name: 'host9999', address: '10.0.39.15' });
    expect((await recordsOf(id)).length).toBe(10_000);
    expect(await serialOf(id)).toBeGreaterThan(before);
    const events = await eventsOf(id);
    expect(events.filter((e: any) => e.action === 'record.batch')).toHaveLength(1);
    // Over the record limit (12,000 by default): refused as a whole.
    const more = Array.from({ length: 2_001 }, (_, i) => ({ op: 'create', type: 'A', name: `more${i}`, address: '192.0.2.1' }));
    const over = await changes(id, more);
    expectProblem(over, 422);
    expect(fieldsOf(over)).toEqual(['/changes']);
    expect((await recordsOf(id)).length).toBe(10_000);
  }, 60_000);

  it('stores 3,600 creates exactly as sent, each answered id naming its own record (quotes, backslashes, braces, non-ASCII in text)', async () => {
    // More than PostgreSQL's COPY threshold (src/store/postgres/sql.ts): its text format must carry every one of
    // these (TXT refuses control characters; test/store/records.test.ts stores tabs and newlines).
    const id = await domain();
    const awkward = ['q"b\\s{c},d NULL', '\\N', '\\.', 'end\\', '\\t \\n literally', 'é 中文 🙂', '"" \\\\ ""'];
    const text = (i: number) => `${awkward[i % awkward.length]} ${i}`;
    const list = Array.from({ length: 3_600 }, (_, i) =>
      i % 3 === 0 ? { op: 'create', type: 'A', name: `h${i}`, address: `10.0.${i >> 8}.${i & 255}` } : { op: 'create', type: 'TXT', name: i % 5 === 1 ? `_t${i}._tcp` : `t${i}`, text: text(i) },
    );
    const r = await changes(id, list);
    expect(r.status, r.text.slice(0, 500)).toBe(200);
    const ids = r.body.changes.map((c: any) => c.id);
    // Ids grow in the order of the list, across the store's statements (500 rows each on SQLite).
    expect(ids.every((x: number, i: number) => i === 0 || x > ids[i - 1])).toBe(true);
    for (const i of [0, 1, 2, 3, 4, 5, 6, 7, 499, 500, 501, 998, 1000, 2999, 3000, 3599]) {
      const c = r.body.changes[i];
      const got = await api.get(`/v1/domains/${id}/${c.type}/${c.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(c);
      expect(got.body).toMatchObject(i % 3 === 0 ? { name: `h${i}` } : { text: text(i) });
    }
    const listed = await api.get(`/v1/domains/${id}/TXT?limit=500`);
    expect(listed.body.map((x: any) => x.text)).toEqual(list.filter((c) => c.type === 'TXT').slice(0, 500).map((c) => c.text));
  }, 60_000);

  it('refuses a list of thousands holding one record twice as it refuses a short one: 422 naming both, nothing written', async () => {
    const id = await domain();
    const before = await snapshot(id);
    const list = Array.from({ length: 3_600 }, (_, i) => ({ op: 'create', type: 'A', name: `h${i}`, address: '192.0.2.1' }));
    list.push({ op: 'create', type: 'A', name: 'H17', address: '192.0.2.1' });
    const r = await changes(id, list);
    expectProblem(r, 422);
    expect(fieldsOf(r)).toEqual(['/changes/17/address', '/changes/3600/address']);
    expect(await snapshot(id)).toEqual(before);
  }, 60_000);

  it('answers 405 for other methods, and leaves interface A\'s batch as it was (not atomic)', async () => {
    const id = await domain();
    const r = await api.get(`/v1/domains/${id}/changes`);
    expectProblem(r, 405);
    expect(r.headers.get('allow')).toBe('POST, OPTIONS');
    // Interface A's batch: the good item lands although the other fails.
    const batch = await v3(server.base, {
      api_action: 'batch',
      api_key: key,
      api_requestArray: JSON.stringify([
        { api_action: 'domain.resource.create', DomainID: id, Type: 'A', Name: 'good', Target: '192.0.2.1' },
        { api_action: 'domain.resource.create', DomainID: id, Type: 'A', Name: 'bad', Target: 'not-an-address' },
      ]),
    });
    expect(batch).toHaveLength(2);
    expect(batch[0].ERRORARRAY).toEqual([]);
    expect(batch[1].ERRORARRAY.length).toBeGreaterThan(0);
    expect((await recordsOf(id)).map((x) => x.name)).toEqual(['good']);
  });
});

describe('hostile change lists', () => {
  const HOSTILE = ['', ' ', '@', '*', '.', '..', 'a'.repeat(300), 'x'.repeat(70_000), '\u0000', '\ud800', '<script>', "' OR 1=1 --", '192.0.2.1', '::1', '-1', '1e308', '__proto__', 'constructor'];
  const FIELDS = ['op', 'type', 'id', 'name', 'ttl', 'address', 'target', 'priority', 'mail_server', 'text', 'nameserver', 'svc_params', 'port', 'weight', 'tag', 'value', 'digest', 'constructor', 'deleted'];
  let id: number;
  let ids: number[] = [];

  beforeAll(async () => {
    id = await domain('hostile-bulk.example');
    const seed = await changes(id, [
      { op: 'create', type: 'A', name: 'www', address: '192.0.2.1' },
      { op: 'create', type: 'MX', mail_server: 'mail.example.net' },
      { op: 'create', type: 'TXT', name: 'www', text: 'hello' },
      { op: 'create', type: 'CNAME', name: 'alias', target: 'www.hostile-bulk.example' },
      { op: 'create', type: 'NS', name: 'child', nameserver: 'ns1.example.net' },
    ]);
    ids = seed.body.changes.map((c: any) => c.id);
  });

  const deep = (depth: number): unknown => {
    let v: unknown = 1;
    for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
    return v;
  };
  const value = fc.oneof(
    fc.constantFrom(...HOSTILE),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.string({ maxLength: 20 }),
    fc.constantFrom(...RECORD_TYPE_NAMES, 'SOA', 'RRSIG', 'create', 'update', 'delete'),
    fc.constantFrom(() => ids[0], () => ids[1], () => ids[2], () => ids[3], () => ids[4], () => 1, () => 2 ** 53).map((f) => f()),
    fc.constantFrom(deep(50), { alpn: ['h2'], port: 1 }, [1, 2], {}),
  );
  const item = fc.oneof(
    // Plausible items, with hostile values mixed in.
    fc.record({
      op: fc.constantFrom('create', 'update', 'delete'),
      type: fc.constantFrom(...RECORD_TYPE_NAMES),
      fields: fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 4 }),
    }).map(({ op, type, fields }) => ({ ...fields, op, type })),
    fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 6 })), value, { maxKeys: 6 }),
    value,
    // Valid creates, so that some lists succeed.
    fc.integer({ min: 0, max: 1_000_000 }).map((i) => ({ op: 'create', type: 'TXT', name: `t${i}`, text: `v${i}` })),
  );
  const list = fc.oneof(fc.array(item, { maxLength: 8 }), value, fc.dictionary(fc.string({ maxLength: 8 }), value, { maxKeys: 3 }));

  it('never answers 5xx and never writes part of a list (a few thousand lists)', async () => {
    await fc.assert(
      fc.asyncProperty(list, fc.boolean(), async (l, wrapped) => {
        const before = await snapshot(id);
        const r = await api.post(`/v1/domains/${id}/changes`, wrapped ? { changes: l } : l);
        expect(r.status, r.text.slice(0, 300)).toBeLessThan(500);
        if (r.status !== 200) {
          expectProblem(r, r.status);
          expect([400, 413, 422]).toContain(r.status);
          expect(await snapshot(id)).toEqual(before);
          return;
        }
        // All of it: every item's result, the records as the list says, one event more.
        const items = (wrapped ? l : (l as any).changes) as any[];
        expect(r.body.changes).toHaveLength(items.length);
        const after = await snapshot(id);
        const creates = items.filter((x) => x.op === 'create').length;
        const deletes = items.filter((x) => x.op === 'delete').length;
        expect(after.records.length).toBe(before.records.length + creates - deletes);
        expect(after.events).toBe(before.events + (items.length > 0 ? 1 : 0));
        for (const c of r.body.changes) if (!c.deleted) expect(after.records.some((x) => x.id === c.id)).toBe(true);
        ids = [...ids, ...r.body.changes.filter((c: any) => !c.deleted).map((c: any) => c.id)].slice(-8);
      }),
      { numRuns: 2000 },
    );
    // The zone still renders: every record through its schema.
    const all = await api.get(`/v1/domains/${id}/records?limit=500`);
    expect(all.status).toBe(200);
  }, 240_000);

  it('takes deep nesting, many unknown fields and many bad items in bounded time, with 4xx', async () => {
    const before = await snapshot(id);
    const deepText = `${'{"a":['.repeat(5000)}1${']}'.repeat(5000)}`;
    const nested = `{"changes":[{"op":"create","type":"SVCB","target_name":".","svc_params":${deepText}},${deepText}]}`;
    const r1 = await api.post(`/v1/domains/${id}/changes`, undefined, { raw: nested, headers: { 'content-type': 'application/json' } });
    expect(r1.status, r1.text.slice(0, 300)).toBeLessThan(500);
    const raw = `{"changes":[{"op":"create","type":"A","address":"192.0.2.1",${Array.from({ length: 200_000 }, (_, i) => `"f${i}":1`).join(',')}}]}`;
    const r2 = await api.post(`/v1/domains/${id}/changes`, undefined, { raw, headers: { 'content-type': 'application/json' } });
    expectProblem(r2, 422);
    expect(r2.body.errors.length).toBeLessThanOrEqual(50);
    const r3 = await changes(id, Array.from({ length: 20_000 }, (_, i) => ({ op: i % 2 ? 'nope' : 'create', type: i % 3 ? 'BOGUS' : 'A', id: 'x' })));
    expectProblem(r3, 422);
    expect(await snapshot(id)).toEqual(before);
  }, 60_000);

  it('refuses a body over the limit with 413 and huge lists with 422', async () => {
    const big = await api.post(`/v1/domains/${id}/changes`, undefined, { raw: `{"changes":["${'x'.repeat(17 * 1024 * 1024)}"]}`, headers: { 'content-type': 'application/json' } });
    expectProblem(big, 413);
    const many = await changes(id, Array.from({ length: 30_001 }, () => ({})));
    expectProblem(many, 422);
    expect(fieldsOf(many)).toEqual(['/changes']);
  }, 60_000);
});
