/**
 * Leadership: of the nodes on one PostgreSQL database exactly one is the leader (it alone sends NOTIFY
 * and runs mirror transfers); when it dies, another takes over. On SQLite the single node leads.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freshDatabase, startTestServer } from '../support/server.js';
import { startNode, stopNodes, waitFor, type Node } from './nodes.js';

const DATABASE_URL = process.env.DATABASE_URL;
if (!DATABASE_URL) console.log('leader failover tests skipped: they need PostgreSQL; set DATABASE_URL (e.g. postgres://127.0.0.1:5432/test)');

const BECAME_LEADER = /is now the leader/;
const leads = (n: Node) => n.messages.filter((m) => BECAME_LEADER.test(m)).length;

const db = freshDatabase();

afterAll(async () => {
  await stopNodes();
  await db.cleanup();
});

describe('leadership', () => {
  it('makes a node that is alone on its database the leader', async () => {
    const server = await startTestServer();
    try {
      expect(server.leadership.isLeader()).toBe(true);
    } finally {
      await server.close();
    }
  });

  it.skipIf(!DATABASE_URL)('has exactly one leader among three nodes, and another takes over when the leader is killed', async () => {
    const nodes = await Promise.all([startNode(db.url, '--no-dns'), startNode(db.url, '--no-dns'), startNode(db.url, '--no-dns')]);
    await waitFor('a leader', () => nodes.some((n) => leads(n) > 0));
    // Several retry rounds (2 s apart) pass without a second node claiming the lock.
    await new Promise((r) => setTimeout(r, 4500));
    expect(nodes.map(leads).sort()).toEqual([0, 0, 1]);

    const leader = nodes.find((n) => leads(n) > 0) as Node;
    leader.proc.kill('SIGKILL');
    await new Promise((r) => leader.proc.on('exit', r));
    const survivors = nodes.filter((n) => n !== leader);
    await waitFor('a surviving node to take over', () => survivors.some((n) => leads(n) > 0), 20_000);
    await new Promise((r) => setTimeout(r, 4500));
    expect(survivors.map(leads).sort()).toEqual([0, 1]);

    // A clean shutdown hands over too.
    const next = survivors.find((n) => leads(n) > 0) as Node;
    const last = survivors.find((n) => n !== next) as Node;
    next.proc.kill('SIGTERM');
    await new Promise((r) => next.proc.on('exit', r));
    await waitFor('the last node to take over', () => leads(last) > 0, 20_000);
  }, 90_000);
});

describe.skipIf(!DATABASE_URL)('in-process nodes on one database', () => {
  it('report leadership through RunningServer.leadership', async () => {
    const own = freshDatabase();
    const a = await startTestServer({ db: own.url });
    const b = await startTestServer({ db: own.url });
    const open = new Set([a, b]);
    try {
      expect([a, b].filter((s) => s.leadership.isLeader())).toHaveLength(1);
      const leader = a.leadership.isLeader() ? a : b;
      const other = leader === a ? b : a;
      open.delete(leader);
      await leader.close();
      await waitFor('the other to take over', () => other.leadership.isLeader());
    } finally {
      for (const s of open) await s.close();
      await own.cleanup();
    }
  }, 60_000);
});
