/**
 * Health checks run on one node of a cluster at a time, the leader, never on two; when it goes, the node that
 * takes over runs them (issue 32). Two nodes on one PostgreSQL database, one HTTP server counting probes.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase, startTestServer, type TestServer } from '../support/server.js';
import { client } from '../v1/support.js';
import { waitFor } from './nodes.js';

const DATABASE_URL = process.env.DATABASE_URL;
if (!DATABASE_URL) console.log('multi-node health check tests skipped: they need PostgreSQL; set DATABASE_URL (e.g. postgres://127.0.0.1:5432/test)');

let web: Server | undefined;
afterAll(() => new Promise<void>((resolve) => (web ? web.close(() => resolve()) : resolve())));

describe.skipIf(!DATABASE_URL)('health checks in a cluster', () => {
  it('are probed by the leader alone, and by the next leader once it is gone', async () => {
    const probes: number[] = [];
    web = createServer((_req, res) => {
      probes.push(Date.now());
      res.end('ok');
    });
    await new Promise<void>((resolve) => (web as Server).listen(0, '127.0.0.1', () => resolve()));
    const port = (web.address() as AddressInfo).port;
    const own = freshDatabase();
    const opts = { db: own.url, healthcheckAllow: ['127.0.0.0/8'] };
    const a = await startTestServer(opts);
    const b = await startTestServer(opts);
    const open = new Set<TestServer>([a, b]);
    try {
      const api = client(a.base, (await a.user('ops')).key);
      const c = await api.post('/v1/healthchecks', { type: 'http', address: '127.0.0.1', port, interval: 1, timeout: 0.5, fall: 1, rise: 1 });
      expect(c.status, c.text).toBe(201);
      await waitFor('the first probe', () => probes.length > 0);
      const from = Date.now();
      await new Promise((r) => setTimeout(r, 6000));
      // One probe a second from one node; two nodes would make about twelve.
      const counted = probes.filter((t) => t >= from).length;
      expect(counted).toBeGreaterThanOrEqual(4);
      expect(counted).toBeLessThanOrEqual(8);

      const leader = a.leadership.isLeader() ? a : b;
      const other = leader === a ? b : a;
      open.delete(leader);
      await leader.close();
      await waitFor('the other node to lead', () => other.leadership.isLeader(), 20_000);
      const after = Date.now();
      await waitFor('probes from the new leader', () => probes.some((t) => t > after + 500), 10_000);
    } finally {
      for (const s of open) await s.close();
      await own.cleanup();
    }
  }, 90_000);
});
