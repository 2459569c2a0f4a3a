/**
 * The counters behind the panel's chart: DNS queries per zone per minute (interface B) and the Prometheus
 * export at /metrics. Real queries with dig against a running node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZoneEventBus } from '../../src/services/zone-events.js';
import { Metrics, QUERY_MINUTES } from '../../src/services/metrics.js';
import { dig } from '../dns/support.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { client, expectProblem, type Client } from '../v1/support.js';
import { peers } from '../support/peers.js';

const needsDig = peers('dig');

let server: TestServer;
let alice: Client;
let bob: Client;
let domainId: number;

beforeAll(async () => {
  // Believes X-Forwarded-For from loopback, so a test can play a remote client of /metrics.
  server = await startTestServer({ trustProxy: ['127.0.0.1'] });
  alice = client(server.base, (await server.user('alice')).key);
  bob = client(server.base, (await server.user('bob')).key);
  domainId = (await alice.post('/v1/domains', { domain: 'counted.example', soa: 'hostmaster@counted.example' })).body.id;
  await alice.post(`/v1/domains/${domainId}/A`, { name: 'www', address: '192.0.2.1' });
});
afterAll(() => server?.close());

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('per-zone DNS query counts', () => {
  needsDig.it('count every query answered from the zone, per minute, over the last 24 hours', async () => {
    const before = (await alice.get(`/v1/domains/${domainId}/queries`)).body;
    expect(before.counts).toHaveLength(QUERY_MINUTES);
    expect(before.interval).toBe(60);
    await dig(server, 'www.counted.example', 'A');
    await dig(server, 'nothing.counted.example', 'A'); // NXDOMAIN is an answer from the zone too
    await dig(server, 'counted.example', 'MX');
    await dig(server, 'elsewhere.example', 'A'); // REFUSED: no zone of ours
    const r = await alice.get(`/v1/domains/${domainId}/queries`);
    expect(r.status).toBe(200);
    expect(sum(r.body.counts) - sum(before.counts)).toBe(3);
    // The newest minutes are last, and the window ends now.
    expect(sum(r.body.counts.slice(-10))).toBeGreaterThanOrEqual(3);
    const end = Date.parse(r.body.start) + QUERY_MINUTES * 60_000;
    expect(Math.abs(end - Date.now())).toBeLessThanOrEqual(120_000);
  });

  it('are readable only by the owner, like the domain itself', async () => {
    expectProblem(await bob.get(`/v1/domains/${domainId}/queries`), 404);
    expectProblem(await client(server.base).get(`/v1/domains/${domainId}/queries`), 401);
    // A domain is not a zone mirror.
    expectProblem(await alice.get(`/v1/zonemirrors/${domainId}/queries`), 404);
    expectProblem(await alice.post(`/v1/domains/${domainId}/queries`, {}), 405);
  });

  it('exist for zone mirrors too', async () => {
    const m = await alice.post('/v1/zonemirrors', { domain: 'mirrored.example', masters: ['127.0.0.1'] });
    const r = await alice.get(`/v1/zonemirrors/${m.body.id}/queries`);
    expect(r.status).toBe(200);
    expect(sum(r.body.counts)).toBe(0);
  });

  it('keep 24 hours per minute and forget older minutes', () => {
    let now = Date.UTC(2026, 0, 1, 12, 0, 30);
    const metrics = new Metrics(new ZoneEventBus(), () => now);
    metrics.countQuery(7, 'z.example');
    metrics.countQuery(7, 'z.example');
    now += 60_000;
    metrics.countQuery(7, 'z.example');
    let c = metrics.queryCounts(7).counts;
    expect(c.slice(-2)).toEqual([2, 1]);
    // 23 h 59 min later the first minute is the oldest one shown; a minute after that it is gone.
    now += (QUERY_MINUTES - 2) * 60_000;
    c = metrics.queryCounts(7).counts;
    expect([c[0], c[1], sum(c)]).toEqual([2, 1, 3]);
    now += 60_000;
    metrics.countQuery(7, 'z.example'); // lands in the ring slot the first minute used
    c = metrics.queryCounts(7).counts;
    expect([c[0], c.at(-1), sum(c)]).toEqual([1, 1, 2]);
    expect(metrics.queryCounts(8).counts.every((n) => n === 0)).toBe(true);
  });

  it('count alike whether a zone was queried in a few minutes or in many', () => {
    let now = Date.UTC(2026, 0, 1, 12, 0, 30);
    const metrics = new Metrics(new ZoneEventBus(), () => now);
    // Zone 1: 3 queries in each of 40 minutes (more than a few), with a gap of 100 minutes after the 20th.
    const expected: number[] = [];
    for (let m = 0; m < 40; m++) {
      for (let q = 0; q < 3; q++) metrics.countQuery(1, 'busy.example');
      expected.push(3);
      now += 60_000 * (m === 19 ? 101 : 1);
      if (m === 19) expected.push(...new Array<number>(100).fill(0));
    }
    now -= 60_000; // the last minute counted is the current one
    const c = metrics.queryCounts(1).counts;
    expect(c.slice(-expected.length)).toEqual(expected);
    expect(sum(c)).toBe(120);
    // A day later only the newest minutes are left, then none.
    now += (QUERY_MINUTES - 5) * 60_000;
    expect(sum(metrics.queryCounts(1).counts)).toBe(15);
    now += 5 * 60_000;
    expect(sum(metrics.queryCounts(1).counts)).toBe(0);
    metrics.countQuery(1, 'busy.example');
    expect(metrics.queryCounts(1).counts.at(-1)).toBe(1);
    expect(sum(metrics.queryCounts(1).counts)).toBe(1);
  });
});

describe('/metrics', () => {
  // It counts the queries dig made in the tests before.
  needsDig.it('exports query and request counters in the Prometheus text format', async () => {
    await alice.get('/v1/domains');
    const res = await fetch(`${server.base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toContain('# TYPE zonehost_dns_queries_total counter');
    expect(text).toMatch(/^zonehost_dns_queries_total\{zone="counted\.example"\} 3$/m);
    expect(text).toContain('# TYPE zonehost_http_requests_total counter');
    expect(Number(/^zonehost_http_requests_total\{interface="v1",method="GET",status="200"\} (\d+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^zonehost_http_requests_total\{interface="v1",method="GET",status="404"\} \d+$/m);
  });

  needsDig.it('forgets a deleted zone', async () => {
    const d = await alice.post('/v1/domains', { domain: 'gone.example', soa: 'hostmaster@gone.example' });
    await dig(server, 'gone.example', 'SOA');
    expect(await (await fetch(`${server.base}/metrics`)).text()).toContain('zone="gone.example"');
    expect((await alice.del(`/v1/domains/${d.body.id}`)).status).toBe(204);
    expect(await (await fetch(`${server.base}/metrics`)).text()).not.toContain('zone="gone.example"');
  });

  it('is served to local clients only', async () => {
    const res = await fetch(`${server.base}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
    expect(res.status).toBe(403);
    expect(await res.text()).not.toContain('zonehost_');
  });
});
