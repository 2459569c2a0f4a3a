/**
 * PostgreSQL going away under a node and coming back, through a TCP proxy the test controls: a stopped
 * server (connections reset and refused) and a cut cable (nothing answers). Writes fail fast with 503 and
 * Retry-After (interface B) or their code (interface A), DNS keeps answering from memory, no acknowledged
 * write is lost, the API is back within 5 s of the database, and a DNS-only node started while the database
 * is unreachable starts answering once it can load.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, v3 } from '../support/server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { dnsAnswer } from '../dns/support.js';
import { addUser, freePort, startNode, stopNodes, waitFor, type Node } from './nodes.js';

const DATABASE_URL = process.env.DATABASE_URL;
if (!DATABASE_URL) console.log('database outage tests skipped: they need PostgreSQL; set DATABASE_URL (e.g. postgres://127.0.0.1:5432/test)');

/** What a client gives a request before it gives up; every answer during an outage must come before it. */
const CLIENT_TIMEOUT_MS = 15_000;
const db = freshDatabase();
let proxy: TcpProxy;
let node: Node;
let dnsPort = 0;
let key = '';
let domainId = 0;

/** The node's database URL through the proxy. */
const proxied = (p: TcpProxy) => {
  const u = new URL(db.url);
  u.hostname = '127.0.0.1';
  u.port = String(p.port);
  return u.toString();
};

interface Outcome {
  status: number;
  ms: number;
  retryAfter: string | null;
  body: any;
}

async function v1(method: string, path: string, body?: unknown): Promise<Outcome> {
  const start = performance.now();
  const res = await fetch(`${node.base}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
  });
  const text = await res.text();
  return { status: res.status, ms: performance.now() - start, retryAfter: res.headers.get('retry-after'), body: text ? JSON.parse(text) : null };
}

/**
 * Writers creating records one after another until `stop`, plus a DNS prober: every acknowledged record,
 * every refusal, and every DNS query that did not get the right answer.
 */
function load(writers: number) {
  let running = true;
  const acknowledged: { id: number; name: string }[] = [];
  const refusals: Outcome[] = [];
  const unexpected: string[] = [];
  const dnsFailures: string[] = [];
  let n = 0;
  const writer = async () => {
    while (running) {
      const name = `w${n++}`;
      try {
        const r = await v1('POST', `/domains/${domainId}/A`, { name, address: '192.0.2.7' });
        if (r.status === 201) acknowledged.push({ id: r.body.id as number, name });
        else if (r.status === 503) refusals.push(r);
        else unexpected.push(`${name}: ${r.status} ${JSON.stringify(r.body)}`);
      } catch (e) {
        unexpected.push(`${name}: ${(e as Error).message}`);
      }
    }
  };
  const prober = async () => {
    while (running) {
      const a = await dnsAnswer(dnsPort, 'fixed.outage.example', 'A').catch((e: Error) => e.message);
      if (typeof a === 'string' || a.rcode !== 0 || !a.answers.includes('192.0.2.1')) dnsFailures.push(JSON.stringify(a));
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const all = [...Array.from({ length: writers }, writer), prober()];
  return {
    acknowledged,
    refusals,
    unexpected,
    dnsFailures,
    async stop() {
      running = false;
      await Promise.all(all);
    },
  };
}

beforeAll(async () => {
  if (!DATABASE_URL) return;
  const target = new URL(DATABASE_URL);
  proxy = await startTcpProxy({ host: target.hostname || '127.0.0.1', port: Number(target.port || 5432) });
  await addUser(db.url, 'alice', 'pw');
  dnsPort = await freePort();
  node = await startNode(proxied(proxy), '--dns', `127.0.0.1:${dnsPort}`);
  key = (await v3(node.base, { api_action: 'user.getapikey', username: 'alice', password: 'pw' })).DATA.API_KEY as string;
  domainId = (await v1('POST', '/domains', { domain: 'outage.example', soa: 'h@outage.example' })).body.id as number;
  expect((await v1('POST', `/domains/${domainId}/A`, { name: 'fixed', address: '192.0.2.1' })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await stopNodes();
  await proxy?.close();
  await db.cleanup();
});

/** Waits until a write succeeds again and returns how long that took from `since`. */
async function backAfter(since: number): Promise<number> {
  await waitFor('a write to succeed again', async () => (await v1('POST', `/domains/${domainId}/TXT`, { name: 'probe', text: `t${Date.now()}` })).status === 201, 5_000);
  return performance.now() - since;
}

describe.skipIf(!DATABASE_URL)('PostgreSQL stopped and started under a steady write load', () => {
  it('refuses writes with 503 and Retry-After, keeps DNS answering, loses no acknowledged write, and is back within 5 s', async () => {
    const l = load(3);
    await new Promise((r) => setTimeout(r, 1000));
    await proxy.refuse();
    await waitFor('writes to be refused', () => l.refusals.length >= 3, 8_000);
    await new Promise((r) => setTimeout(r, 2000));
    const during = l.refusals.length;
    await proxy.restore();
    const back = await backAfter(performance.now());
    await new Promise((r) => setTimeout(r, 1000));
    await l.stop();

    expect(l.unexpected).toEqual([]);
    expect(l.dnsFailures).toEqual([]);
    expect(during).toBeGreaterThan(0);
    for (const r of l.refusals) {
      expect(r.body.status).toBe(503);
      expect(r.body.detail).toMatch(/database/i);
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
    }
    expect(back).toBeLessThan(5_000);
    // Every acknowledged write is there, and served.
    const names = new Set<string>();
    for (let after = 0; ; ) {
      const page = (await v1('GET', `/domains/${domainId}/records?limit=500&after=${after}`)).body as { id: number; name: string }[];
      if (page.length === 0) break;
      for (const r of page) names.add(r.name);
      after = page.at(-1)!.id;
    }
    for (const a of l.acknowledged) expect(names.has(a.name), `${a.name} (record ${a.id}) was acknowledged`).toBe(true);
    const last = l.acknowledged.at(-1)!;
    expect((await dnsAnswer(dnsPort, `${last.name}.outage.example`, 'A')).answers).toEqual(['192.0.2.7']);
  }, 60_000);

  it('answers before the client gives up when the database stops answering altogether, and recovers', async () => {
    proxy.blackhole();
    try {
      const write = await v1('POST', `/domains/${domainId}/A`, { name: 'cut', address: '192.0.2.9' });
      expect(write.status).toBe(503);
      expect(write.ms).toBeLessThan(CLIENT_TIMEOUT_MS);
      const read = await v1('GET', `/domains/${domainId}`);
      expect(read.status).toBe(503);
      // Interface A says so in its envelope.
      const a = await v3(node.base, { api_action: 'domain.resource.create', api_key: key, DomainID: domainId, Type: 'A', Name: 'cut3', Target: '192.0.2.9' }, { signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
      expect(a.ERRORARRAY).toEqual([{ ERRORCODE: 1, ERRORMESSAGE: expect.stringMatching(/database/i) }]);
      expect((await dnsAnswer(dnsPort, 'fixed.outage.example', 'A')).answers).toEqual(['192.0.2.1']);
    } finally {
      await proxy.restore();
    }
    expect(await backAfter(performance.now())).toBeLessThan(5_000);
  }, 60_000);

  it('a DNS-only node started while the database is unreachable starts answering once it can load', async () => {
    const late = await startTcpProxy({ host: '127.0.0.1', port: proxy.port });
    await late.refuse();
    const port = await freePort();
    const started = startNode(proxied(late), '--no-http', '--dns', `127.0.0.1:${port}`, '--db-wait', '2');
    try {
      // It keeps trying past its --db-wait: a DNS-only node has nothing better to do than wait.
      await new Promise((r) => setTimeout(r, 4000));
      await late.restore();
      await started;
      await waitFor('the late node to answer', async () => (await dnsAnswer(port, 'fixed.outage.example', 'A').catch(() => null))?.answers.includes('192.0.2.1') ?? false, 15_000);
    } finally {
      await late.close();
    }
  }, 60_000);
});
