/**
 * Interface B's health checks (/v1/healthchecks) and records' `steering` field, over HTTP: the account's
 * checks with their status, the operator's address rules (--healthcheck-allow), a status change journaled in
 * the zones whose records use the check, and hostile steering input.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/knot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { client, createDomain, expectProblem, problemFields, type Client } from './support.js';

let server: TestServer;
let alice: Client;
let bob: Client;
let domainId: number;
let bobCheck: number;
/** Alice's key, for interface A too. */
let aliceKey: string;

beforeAll(async () => {
  server = await startTestServer({ healthcheckAllow: ['127.0.0.0/8'] });
  aliceKey = (await server.user('alice')).key;
  alice = client(server.base, aliceKey);
  bob = client(server.base, (await server.user('bob')).key);
  domainId = await createDomain(alice, 'steered.example');
  bobCheck = (await bob.post('/v1/healthchecks', { type: 'tcp', address: '192.0.2.7', port: 25 })).body.id;
});
afterAll(() => server?.close());

describe('/v1/healthchecks', () => {
  it('creates a check with its defaults, status unknown, and reads, lists, changes and deletes it', async () => {
    const c = await alice.post('/v1/healthchecks', { type: 'https', address: '192.0.2.10', host: 'www.example.com', path: '/health' });
    expect(c.status, c.text).toBe(201);
    const id = c.body.id;
    expect(c.body).toEqual({
      id,
      type: 'https',
      address: '192.0.2.10',
      port: 443,
      path: '/health',
      host: 'www.example.com',
      interval: 10,
      timeout: 2,
      fall: 3,
      rise: 2,
      status: 'unknown',
      changed: null,
      created: expect.any(String),
    });
    expect(c.headers.get('location')).toBe(`/v1/healthchecks/${id}`);
    expect((await alice.get(`/v1/healthchecks/${id}`)).body).toEqual(c.body);
    expect((await alice.get('/v1/healthchecks')).body.map((x: { id: number }) => x.id)).toEqual([id]);
    const p = await alice.patch(`/v1/healthchecks/${id}`, { interval: 30, timeout: 5, type: 'http' });
    expect(p.status, p.text).toBe(200);
    expect(p.body).toMatchObject({ interval: 30, timeout: 5, type: 'http', port: 80 });
    const stale = await alice.patch(`/v1/healthchecks/${id}`, { fall: 5 }, { headers: { 'if-match': c.headers.get('etag') as string } });
    expectProblem(stale, 412);
    expect((await alice.del(`/v1/healthchecks/${id}`)).status).toBe(204);
    expectProblem(await alice.get(`/v1/healthchecks/${id}`), 404);
  });

  it("keeps accounts apart: another account's check is not found", async () => {
    expectProblem(await alice.get(`/v1/healthchecks/${bobCheck}`), 404);
    expectProblem(await alice.patch(`/v1/healthchecks/${bobCheck}`, { port: 26 }), 404);
    expectProblem(await alice.del(`/v1/healthchecks/${bobCheck}`), 404);
    expect((await alice.get('/v1/healthchecks')).body.map((x: { id: number }) => x.id)).not.toContain(bobCheck);
  });

  it('refuses bad fields with a problem naming each', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ type: 'icmp', address: '192.0.2.1' }, ['type']],
      [{ type: 'http', address: 'www.example.com' }, ['address']],
      [{ type: 'tcp', address: '192.0.2.1' }, ['port']],
      [{ type: 'http', address: '192.0.2.1', port: 70000 }, ['port']],
      [{ type: 'http', address: '192.0.2.1', interval: 0 }, ['interval']],
      [{ type: 'http', address: '192.0.2.1', interval: 301 }, ['interval']],
      [{ type: 'http', address: '192.0.2.1', interval: 5, timeout: 5 }, ['timeout']],
      [{ type: 'http', address: '192.0.2.1', fall: 0, rise: 11 }, ['fall', 'rise']],
      [{ type: 'http', address: '192.0.2.1', path: 'no-slash' }, ['path']],
      [{ type: 'http', address: '192.0.2.1', host: 'bad host!' }, ['host']],
      [{ type: 'http', address: '192.0.2.1', colour: 'red' }, ['colour']],
    ];
    for (const [body, fields] of cases) expect(problemFields(await alice.post('/v1/healthchecks', body), 400).sort(), JSON.stringify(body)).toEqual(fields);
  });

  it("refuses addresses of the operator's own network: loopback beyond --healthcheck-allow, private, link-local, metadata", async () => {
    for (const address of ['10.0.0.1', '192.168.1.1', '169.254.169.254', 'fd00:ec2::254', '100.64.0.1', '::ffff:10.0.0.1', '224.0.0.1', '::1']) {
      const r = await alice.post('/v1/healthchecks', { type: 'tcp', address, port: 80 });
      expect(problemFields(r, 400), address).toEqual(['address']);
      expect(r.body.errors[0].reason).toMatch(/--healthcheck-allow/);
    }
    // The allowed network (127.0.0.0/8 in these tests) is accepted.
    const ok = await alice.post('/v1/healthchecks', { type: 'tcp', address: '127.0.0.1', port: 9 });
    expect(ok.status, ok.text).toBe(201);
    await alice.del(`/v1/healthchecks/${ok.body.id}`);
  });

  it('by default probes public addresses only: loopback is refused without --healthcheck-allow', async () => {
    const plain = await startTestServer();
    try {
      const api = client(plain.base, (await plain.user('carol')).key);
      const r = await api.post('/v1/healthchecks', { type: 'tcp', address: '127.0.0.1', port: 9 });
      expect(problemFields(r, 400)).toEqual(['address']);
      expect(r.body.errors[0].reason).toMatch(/loopback/);
    } finally {
      await plain.close();
    }
  });
});

describe('steering on records', () => {
  let check: number;
  beforeAll(async () => {
    check = (await alice.post('/v1/healthchecks', { type: 'tcp', address: '192.0.2.20', port: 443 })).body.id;
  });

  it('is shown, changed and removed through interface B, and kept by interface A and bulk changes', async () => {
    const steering = { healthcheck: check, weight: 3, subnets: ['198.51.100.0/24', '2001:DB8::/32'] };
    const c = await alice.post(`/v1/domains/${domainId}/A`, { name: 'www', address: '192.0.2.1', steering });
    expect(c.status, c.text).toBe(201);
    expect(c.body.steering).toEqual({ ...steering, subnets: ['198.51.100.0/24', '2001:db8::/32'] });
    const id = c.body.id;
    // Interface A knows nothing of steering: a change there keeps it.
    const v3 = await fetch(`${server.base}/?api_action=domain.resource.update&api_key=${encodeURIComponent(aliceKey)}&DomainID=${domainId}&ResourceID=${id}&TTL_sec=600`);
    expect(v3.status).toBe(200);
    expect((await alice.get(`/v1/domains/${domainId}/A/${id}`)).body.steering).toMatchObject({ weight: 3 });
    const bulk = await alice.post(`/v1/domains/${domainId}/changes`, { changes: [{ op: 'update', type: 'A', id, ttl: 7200 }] });
    expect(bulk.status, bulk.text).toBeLessThan(300);
    expect((await alice.get(`/v1/domains/${domainId}/A/${id}`)).body).toMatchObject({ ttl: 7200, steering: { weight: 3 } });
    const p = await alice.patch(`/v1/domains/${domainId}/A/${id}`, { steering: { weight: 0 } });
    expect(p.body.steering).toEqual({ weight: 0 });
    const removed = await alice.patch(`/v1/domains/${domainId}/A/${id}`, { steering: null });
    expect(removed.body.steering).toBeUndefined();
    await alice.del(`/v1/domains/${domainId}/A/${id}`);
  });

  it('refuses hostile steering with a problem naming the part at fault', async () => {
    const post = (steering: unknown) => alice.post(`/v1/domains/${domainId}/A`, { name: 'bad', address: '192.0.2.9', steering });
    const cases: [unknown, string[]][] = [
      [{ subnets: ['10.0.0.0/33'] }, ['steering.subnets.0']],
      [{ subnets: ['not a network'] }, ['steering.subnets.0']],
      [{ subnets: ['10.1.2.3/8'] }, ['steering.subnets.0']],
      [{ subnets: ['10.0.0.0'] }, ['steering.subnets.0']],
      [{ subnets: ['fe80::1%eth0/64'] }, ['steering.subnets.0']],
      [{ subnets: [] }, ['steering.subnets']],
      [{ subnets: Array.from({ length: 65 }, (_, i) => `10.${i}.0.0/16`) }, ['steering.subnets']],
      [{ weight: 256 }, ['steering.weight']],
      [{ weight: -1 }, ['steering.weight']],
      [{ weight: 1.5 }, ['steering.weight']],
      [{ healthcheck: 0 }, ['steering.healthcheck']],
      [{ healthcheck: 999999 }, ['steering.healthcheck']],
      [{ healthcheck: bobCheck }, ['steering.healthcheck']],
      [{ region: 'eu' }, ['steering.region']],
      ['everyone', ['steering']],
    ];
    for (const [steering, fields] of cases) {
      const r = await post(steering);
      expect(problemFields(r, 400), JSON.stringify(steering)).toEqual(fields);
    }
    // Nothing was written.
    expect((await alice.get(`/v1/domains/${domainId}/A?name=bad`)).body).toEqual([]);
  });

  it('lets several CNAME records stand at one name only when each has steering', async () => {
    const first = await alice.post(`/v1/domains/${domainId}/CNAME`, { name: 'svc', target: 'a.example.net', steering: { weight: 1 } });
    expect(first.status, first.text).toBe(201);
    const second = await alice.post(`/v1/domains/${domainId}/CNAME`, { name: 'svc', target: 'b.example.net', steering: { weight: 2 } });
    expect(second.status, second.text).toBe(201);
    expect(problemFields(await alice.post(`/v1/domains/${domainId}/CNAME`, { name: 'svc', target: 'c.example.net' }), 409)).toEqual(['name']);
    expect(problemFields(await alice.post(`/v1/domains/${domainId}/CNAME`, { name: 'svc', target: 'b.example.net', steering: { weight: 5 } }), 409)).toEqual(['target']);
    expect(problemFields(await alice.post(`/v1/domains/${domainId}/A`, { name: 'svc', address: '192.0.2.1', steering: { weight: 1 } }), 409)).toEqual(['name']);
    // Taking steering off one of two would leave two plain CNAMEs.
    expect(problemFields(await alice.patch(`/v1/domains/${domainId}/CNAME/${first.body.id}`, { steering: null }), 409)).toEqual(['name']);
  });

  it('a check named by records cannot be deleted', async () => {
    const r = await alice.post(`/v1/domains/${domainId}/A`, { name: 'kept', address: '192.0.2.30', steering: { healthcheck: check } });
    expect(r.status, r.text).toBe(201);
    const d = await alice.del(`/v1/healthchecks/${check}`);
    expectProblem(d, 409);
    expect(d.body.detail).toMatch(/steered\.example/);
  });
});

describe('a change of status', () => {
  let web: Server;
  let port: number;
  const listen = () => new Promise<void>((resolve) => web.listen(port, '127.0.0.1', () => resolve()));
  const stop = () => new Promise<void>((resolve) => {
    web.close(() => resolve());
    web.closeAllConnections();
  });

  beforeAll(async () => {
    web = createServer((req, res) => res.writeHead(req.url === '/health' ? 204 : 500).end());
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', () => resolve()));
    port = (web.address() as AddressInfo).port;
  });
  afterAll(() => stop());

  it('is shown by GET, journaled in the zones that use the check (/v1/events), and raises their serial', async () => {
    const c = await alice.post('/v1/healthchecks', { type: 'http', address: '127.0.0.1', port, path: '/health', interval: 1, timeout: 0.5, fall: 1, rise: 1 });
    expect(c.status, c.text).toBe(201);
    const id = c.body.id;
    const other = await createDomain(alice, 'unrelated.example');
    await alice.post(`/v1/domains/${domainId}/A`, { name: 'watched', address: '192.0.2.40', steering: { healthcheck: id } });
    const status = async () => (await alice.get(`/v1/healthchecks/${id}`)).body.status as string;
    await eventually('the check to be up', async () => (await status()) === 'up', 10_000);
    // The zone's serial as served (interface B does not show it).
    const serialOf = async (id: number) => (await server.services.zones.byId(id))?.serial as number;
    const serialBefore = await serialOf(domainId);
    const otherSerial = await serialOf(other);
    await stop();
    await eventually('the check to be down', async () => (await status()) === 'down', 10_000);
    const shown = (await alice.get(`/v1/healthchecks/${id}`)).body;
    expect(Date.now() - Date.parse(shown.changed)).toBeLessThan(10_000);
    expect(await serialOf(domainId)).toBeGreaterThan(serialBefore);
    expect(await serialOf(other)).toBe(otherSerial);
    const events = (await alice.get(`/v1/events?domain=${domainId}&limit=500`)).body as { action: string; object_id: number; interface: string; before: { status: string }; after: { status: string } }[];
    const changes = events.filter((e) => e.action === 'healthcheck.status' && e.object_id === id);
    // The first probe may have come before the record named the check: then unknown → up was journaled nowhere.
    expect(changes.map((e) => [e.before.status, e.after.status]).at(-1)).toEqual(['up', 'down']);
    expect(changes.at(-1)?.interface).toBe('system');
    expect((await alice.get(`/v1/events?domain=${other}&limit=500`)).body.some((e: { action: string }) => e.action === 'healthcheck.status')).toBe(false);
    await listen();
    await eventually('the check to be up again', async () => (await status()) === 'up', 10_000);
  });
});
