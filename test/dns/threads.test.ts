/**
 * DNS on several threads (`--dns-threads`): on the batched UDP path, or with Node.js 22.12+ on dgram's, worker threads share the UDP port, and every
 * thread answers the first query after a write from the new data, for clients spread over the threads by
 * their source ports; the query counts stay exact. On dgram's path before Node.js 22.12 the node answers on one thread and says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { singleThreadReason } from '../../src/dns/server/threads.js';
import { freshDatabase, UDP_BATCH, v3 } from '../support/server.js';
import { addUser, freePort, startNode, stopNodes, waitFor, type Node } from '../multinode/nodes.js';
import * as dnsPacket from 'dns-packet';
import { dnsAnswer, udpExchange } from './support.js';

const THREADS = 3;
/** Questions per round, each from its own socket (so its own source port): the kernel spreads them over the threads. */
const CLIENTS = 60;
const db = freshDatabase();
let node: Node;
let dnsPort = 0;
let key = '';

async function v1(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${node.base}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return res.json();
}

/** The answers of CLIENTS questions sent at once, each from a fresh socket. */
const round = (name: string) => Promise.all(Array.from({ length: CLIENTS }, () => dnsAnswer(dnsPort, name, 'A').then((a) => a.answers.join(','))));

/** The value of the line of /metrics that starts with `name` (a metric with its labels). */
const metric = async (name: string): Promise<number> => {
  const text = await (await fetch(`${node.base}/metrics`, { headers: { authorization: `Bearer ${key}` } })).text();
  return Number(text.split('\n').find((l) => l.startsWith(`${name} `))?.split(' ')[1] ?? 0);
};
const queriesCounted = (zone: string): Promise<number> => metric(`zonehost_dns_queries_total{zone="${zone}"}`);

beforeAll(async () => {
  await addUser(db.url, 'alice', 'pw');
  dnsPort = await freePort();
  // Response rate limiting off (--rrl-rate 0): rounds of 60 copies of one question from one address, on purpose.
  node = await startNode(db.url, '--dns', `127.0.0.1:${dnsPort}`, '--dns-threads', String(THREADS), '--rrl-rate', '0');
  key = (await v3(node.base, { api_action: 'user.getapikey', username: 'alice', password: 'pw' })).DATA.API_KEY as string;
  // HTTP answers before DNS has started.
  await waitFor('DNS to listen', () => node.messages.some((m) => m.startsWith('DNS listening')));
}, 60_000);

afterAll(async () => {
  await stopNodes();
  await db.cleanup();
});

describe.skipIf(singleThreadReason(UDP_BATCH) !== null)('DNS on several threads', () => {
  it('starts the threads asked for', () => {
    expect(node.messages.some((m) => m.startsWith(`DNS listening (UDP on ${THREADS} threads, `))).toBe(true);
    expect(node.messages.some((m) => /DNS answers on one thread/.test(m))).toBe(false);
  });

  it('answers the first query after each write from the new data on every thread, and counts every query', async () => {
    const domain = (await v1('POST', '/domains', { domain: 'threads.example', soa: 'h@threads.example' })).id as number;
    const record = (await v1('POST', `/domains/${domain}/A`, { name: 'www', address: '192.0.2.1' })).id as number;
    let asked = 0;
    for (let i = 1; i <= 5; i++) {
      // Twice: the second round is answered from the threads' caches.
      for (let twice = 0; twice < 2; twice++) {
        expect(new Set(await round('www.threads.example'))).toEqual(new Set([`192.0.2.${i}`]));
        asked += CLIENTS;
      }
      await v1('PUT', `/domains/${domain}/A/${record}`, { name: 'www', address: `192.0.2.${i + 1}` });
    }
    await waitFor('every query to be counted', async () => (await queriesCounted('threads.example')) === asked, 5_000);
    expect(await queriesCounted('threads.example')).toBe(asked);
  }, 60_000);

  it('makes and accepts the same DNS cookies on every thread, answers from the threads\' caches too', async () => {
    const domain = (await v1('POST', '/domains', { domain: 'cookies.threads.example', soa: 'h@cookies.threads.example' })).id as number;
    await v1('POST', `/domains/${domain}/A`, { name: 'www', address: '192.0.2.1' });
    /** The cookie (hex) of the answer to a query carrying `cookie`, from a fresh socket (so any thread). */
    const ask = async (cookie: string): Promise<string> => {
      const options = [{ code: 10, data: Buffer.from(cookie, 'hex') }] as unknown as dnsPacket.PacketOpt[];
      const q = dnsPacket.encode({ type: 'query', id: 1, flags: 0, questions: [{ name: 'www.cookies.threads.example', type: 'A', class: 'IN' }], additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, options }] as dnsPacket.Answer[] });
      const reply = dnsPacket.decode(await udpExchange(dnsPort, q));
      const opt = reply.additionals?.find((a): a is dnsPacket.OptAnswer => a.type === 'OPT');
      const got = (opt?.options as unknown as { code: number; data: Buffer }[] | undefined)?.find((o) => o.code === 10);
      return got ? Buffer.from(got.data).toString('hex') : '';
    };
    // Client cookies of their own: each gets a server cookie made for it, by whichever thread answered.
    const made = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => ask(i.toString(16).padStart(16, '0'))));
    expect(made.every((c, i) => c.startsWith(`${i.toString(16).padStart(16, '0')}01000000`) && c.length === 48)).toBe(true);
    await new Promise((r) => setTimeout(r, 1100));
    // Sent back, twice (the second time from the caches), to any thread: each is taken, and comes back as it went.
    for (let twice = 0; twice < 2; twice++) expect(await Promise.all(made.map(ask))).toEqual(made);
    // Every thread's cookies are counted in /metrics, once each: CLIENTS alone, then twice CLIENTS valid.
    const counted = async () => [await metric('zonehost_dns_cookie_client_only_total'), await metric('zonehost_dns_cookie_valid_total')];
    await waitFor('every cookie to be counted', async () => (await counted()).join() === `${CLIENTS},${2 * CLIENTS}`, 5_000);
    expect(await counted()).toEqual([CLIENTS, 2 * CLIENTS]);
  }, 60_000);
});

describe.skipIf(singleThreadReason(UDP_BATCH) === null)('DNS on a Node.js without UDP port sharing', () => {
  it('answers on one thread and says why at start', async () => {
    expect(node.messages.some((m) => new RegExp(`^DNS answers on one thread, not ${THREADS}: .*Node\\.js 22\\.12`).test(m))).toBe(true);
    expect(node.messages.some((m) => m.startsWith('DNS listening (UDP on one thread, one datagram per system call through dgram'))).toBe(true);
    await v1('POST', '/domains', { domain: 'one.example', soa: 'h@one.example' });
    expect((await dnsAnswer(dnsPort, 'one.example', 'SOA')).rcode).toBe(0);
  });
});
