/**
 * ALIAS on several DNS threads (`--dns-threads`): the main thread resolves and answers, the worker threads
 * repeat its answers from their caches; after the target's addresses change, every thread answers the new
 * ones within the TTL. A `zonehost serve` process (the built CLI) with `--resolver` pointing at a knotd that
 * serves the target's zone.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { singleThreadReason } from '../../src/dns/server/threads.js';
import { startKnot, type Knot } from '../support/knot.js';
import { peers } from '../support/peers.js';
import { freshDatabase, UDP_BATCH, v3 } from '../support/server.js';
import { addUser, freePort, startNode, stopNodes, waitFor, type Node } from '../multinode/nodes.js';
import { dnsAnswer } from './support.js';

const needsKnot = peers('knotd', 'knotc');
const THREADS = 3;
const CLIENTS = 60;
const RESOLVER = '127.0.36.3';
const TTL = 2;
const targetZone = (serial: number, v4: string) => `$ORIGIN target.test.
$TTL ${TTL}
@ 300 SOA ns.target.test. admin.target.test. ${serial} 3600 600 86400 60
@ 300 NS ns.target.test.
ns 300 A 192.0.2.53
www A ${v4}
`;

const db = freshDatabase();
let node: Node;
let resolver: Knot | undefined;
let dnsPort = 0;
let key = '';

/** The answers of CLIENTS questions sent at once, each from a fresh socket (so its own source port): the kernel spreads them over the threads. */
const round = () => Promise.all(Array.from({ length: CLIENTS }, () => dnsAnswer(dnsPort, 'threads-alias.example', 'A').then((a) => a.answers.join(','))));

beforeAll(async () => {
  resolver = await startKnot({
    address: RESOLVER,
    files: { 'target.test.zone': targetZone(1, '192.0.2.1') },
    config: `zone:\n  - domain: target.test\n    file: "{dir}/target.test.zone"\n    zonefile-sync: -1\n    journal-content: none\n`,
  }).catch(() => undefined);
  await addUser(db.url, 'alice', 'pw');
  dnsPort = await freePort();
  node = await startNode(db.url, '--dns', `127.0.0.1:${dnsPort}`, '--dns-threads', String(THREADS), '--rrl-rate', '0', '--resolver', `${RESOLVER}:53`);
  key = (await v3(node.base, { api_action: 'user.getapikey', username: 'alice', password: 'pw' })).DATA.API_KEY as string;
  await waitFor('DNS to listen', () => node.messages.some((m) => m.startsWith('DNS listening')));
}, 60_000);

afterAll(async () => {
  await stopNodes();
  await resolver?.stop();
  await db.cleanup();
});

describe.skipIf(singleThreadReason(UDP_BATCH) !== null)('ALIAS on several DNS threads', () => {
  needsKnot.it("answers the target's addresses on every thread, and its new ones within the TTL", async () => {
    expect(resolver, 'knotd (the resolver) did not start').toBeDefined();
    expect(node.messages.some((m) => m.startsWith(`DNS listening (UDP on ${THREADS} threads, `))).toBe(true);
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${node.base}/v1${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status, await res.clone().text()).toBe(201);
      return (await res.json()) as { id: number };
    };
    const domain = (await post('/domains', { domain: 'threads-alias.example', soa: 'h@threads-alias.example' })).id;
    await post(`/domains/${domain}/ALIAS`, { name: '', target: 'www.target.test' });
    // Twice: the second round is answered from the threads' caches.
    for (let twice = 0; twice < 2; twice++) expect(new Set(await round())).toEqual(new Set(['192.0.2.1']));
    (resolver as Knot).writeFile('target.test.zone', targetZone(2, '192.0.2.2'));
    await (resolver as Knot).knotc('zone-reload', 'target.test');
    await new Promise((r) => setTimeout(r, (TTL + 2) * 1000));
    for (let twice = 0; twice < 2; twice++) expect(new Set(await round())).toEqual(new Set(['192.0.2.2']));
  }, 60_000);
});
