/**
 * DNS cookies across nodes and restarts: the secrets live in the database (services/cookie-secrets.ts), so a node
 * that restarts accepts the cookies it made before (on SQLite as on PostgreSQL), and two nodes over one
 * PostgreSQL database accept each other's: a client moving between them never sees its cookie refused.
 */
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { udpExchange } from '../dns/support.js';
import { freshDatabase, v3 } from '../support/server.js';
import { addUser, freePort, startNode, stopNodes, waitFor, type Node } from './nodes.js';

const DATABASE_URL = process.env.DATABASE_URL;
const ZONE = 'cookies.nodes.example';
const db = freshDatabase();

/** Asks node `port` for www with `cookie` (hex) and resolves to the cookie of its answer (hex) and the answer. */
async function withCookie(port: number, cookie: string): Promise<{ cookie: string; answers: string[] }> {
  const options = [{ code: 10, data: Buffer.from(cookie, 'hex') }] as unknown as dnsPacket.PacketOpt[];
  const q = dnsPacket.encode({ type: 'query', id: 7, flags: 0, questions: [{ name: `www.${ZONE}`, type: 'A', class: 'IN' }], additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, options }] as dnsPacket.Answer[] });
  const reply = dnsPacket.decode(await udpExchange(port, q));
  const opt = reply.additionals?.find((a): a is dnsPacket.OptAnswer => a.type === 'OPT');
  const got = (opt?.options as unknown as { code: number; data: Buffer }[] | undefined)?.find((o) => o.code === 10);
  return { cookie: got ? Buffer.from(got.data).toString('hex') : '', answers: (reply.answers ?? []).map((a) => String((a as { data: unknown }).data)) };
}

/** A node with DNS on a port of its own, once DNS listens. */
async function dnsNode(): Promise<{ node: Node; port: number }> {
  const port = await freePort();
  const node = await startNode(db.url, '--dns', `127.0.0.1:${port}`, '--dns-threads', '1');
  await waitFor('DNS to listen', () => node.messages.some((m) => m.startsWith('DNS listening')));
  return { node, port };
}

const stop = (node: Node) =>
  new Promise<void>((resolve) => {
    node.proc.on('exit', () => resolve());
    node.proc.kill('SIGTERM');
  });

let key = '';
beforeAll(async () => {
  await addUser(db.url, 'alice', 'pw');
}, 60_000);

afterAll(async () => {
  await stopNodes();
  await db.cleanup();
});

describe('DNS cookies from the database', () => {
  it('are accepted after a restart, and the answer keeps coming', async () => {
    const first = await dnsNode();
    key = (await v3(first.node.base, { api_action: 'user.getapikey', username: 'alice', password: 'pw' })).DATA.API_KEY as string;
    const id = (await v3(first.node.base, { api_action: 'domain.create', api_key: key, Domain: ZONE, Type: 'master', SOA_Email: `h@${ZONE}` })).DATA.DomainID as number;
    await v3(first.node.base, { api_action: 'domain.resource.create', api_key: key, DomainID: id, Type: 'A', Name: 'www', Target: '192.0.2.1' });
    const { cookie } = await withCookie(first.port, '0102030405060708');
    expect(cookie).toMatch(/^010203040506070801000000[0-9a-f]{24}$/);
    await stop(first.node);
    const again = await dnsNode();
    // A second later, so a new cookie would carry another timestamp: the one made before the restart comes back as it went.
    await new Promise((r) => setTimeout(r, 1100));
    expect(await withCookie(again.port, cookie)).toEqual({ cookie, answers: ['192.0.2.1'] });
    await stop(again.node);
  }, 60_000);

  it.skipIf(!DATABASE_URL)("are accepted by every node of a cluster: each takes the other's", async () => {
    const [a, b] = await Promise.all([dnsNode(), dnsNode()]);
    const fromA = (await withCookie(a.port, '1112131415161718')).cookie;
    const fromB = (await withCookie(b.port, '2122232425262728')).cookie;
    await new Promise((r) => setTimeout(r, 1100));
    expect(await withCookie(b.port, fromA)).toEqual({ cookie: fromA, answers: ['192.0.2.1'] });
    expect(await withCookie(a.port, fromB)).toEqual({ cookie: fromB, answers: ['192.0.2.1'] });
    // And a cookie neither made (another secret) gets a fresh one from either.
    const forged = `${fromA.slice(0, 32)}${'00'.repeat(8)}`;
    expect((await withCookie(b.port, forged)).cookie).not.toBe(forged);
  }, 60_000);
});
