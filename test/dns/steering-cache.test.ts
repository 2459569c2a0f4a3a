/**
 * Steered answers from the response caches (issue 32): every thread keeps one answer per variant and makes the
 * choice for each client itself, so with the caches warm no client is given another's variant. A `zonehost
 * serve` process (the built CLI) on three DNS threads; every question from a fresh socket (its own source port),
 * so the kernel spreads them over the threads. Clients of different networks and ECS subnets asking in turn get
 * their own answer and scope; weighted picks keep their proportions, while the caches fill and once warm; a
 * health check's status change is answered at once by every thread.
 */
import { createServer, type AddressInfo, type Server } from 'node:net';
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { singleThreadReason } from '../../src/dns/server/threads.js';
import { freshDatabase, UDP_BATCH, v3 } from '../support/server.js';
import { addUser, freePort, startNode, stopNodes, waitFor, type Node } from '../multinode/nodes.js';
import { client, createDomain, type Client } from '../v1/support.js';
import { udpExchange } from './support.js';

const THREADS = 3;
const ZONE = 'steer-cache.example';
const db = freshDatabase();
let node: Node;
let dnsPort = 0;
let api: Client;
let zoneId = 0;

async function record(name: string, address: string, steering?: Record<string, unknown>): Promise<void> {
  const r = await api.post(`/v1/domains/${zoneId}/A`, { name, address, ...(steering ? { steering } : {}) });
  expect(r.status, r.text).toBe(201);
}

interface Ask {
  /** The source address the question comes from. */
  from?: string;
  /** An EDNS Client Subnet, "10.1.2.0/24". */
  subnet?: string;
  /** A client cookie (8 octets, hex). */
  cookie?: string;
  /** EDNS's UDP size (each size is a question of its own in the caches); no EDNS when 0. */
  size?: number;
}

interface Got {
  addresses: string[];
  /** The answer's ECS option as "address/source/scope", or null. */
  ecs: string | null;
  /** The answer's cookie (hex), or null. */
  cookie: string | null;
}

/** One A question for `name`, from a fresh socket bound to `from`. */
async function ask(name: string, { from = '127.0.0.1', subnet, cookie, size = 1232 }: Ask = {}): Promise<Got> {
  const options: unknown[] = [];
  if (subnet) {
    const [ip, prefix] = subnet.split('/');
    options.push({ code: 'CLIENT_SUBNET', ip, sourcePrefixLength: Number(prefix) });
  }
  if (cookie) options.push({ code: 10, data: Buffer.from(cookie, 'hex') });
  const additionals = size > 0 ? [{ type: 'OPT', name: '.', udpPayloadSize: size, options }] : [];
  const q = dnsPacket.encode({ type: 'query', id: 1, flags: 0, questions: [{ name, type: 'A', class: 'IN' }], additionals: additionals as dnsPacket.Answer[] });
  const reply = dnsPacket.decode(await udpExchange(dnsPort, q, from));
  const opt = reply.additionals?.find((a): a is dnsPacket.OptAnswer => a.type === 'OPT');
  const got = (opt?.options ?? []) as unknown as { code: number; ip?: string; sourcePrefixLength?: number; scopePrefixLength?: number; data?: Buffer }[];
  const ecs = got.find((o) => o.code === 8);
  const answerCookie = got.find((o) => o.code === 10);
  return {
    addresses: (reply.answers ?? []).flatMap((a) => (a.type === 'A' ? [String(a.data)] : [])).sort(),
    ecs: ecs ? `${ecs.ip}/${ecs.sourcePrefixLength}/${ecs.scopePrefixLength}` : null,
    cookie: answerCookie?.data ? Buffer.from(answerCookie.data).toString('hex') : null,
  };
}

beforeAll(async () => {
  await addUser(db.url, 'alice', 'pw');
  dnsPort = await freePort();
  // RRL off: thousands of questions from one address, on purpose. Health checks probe a server on loopback.
  node = await startNode(db.url, '--dns', `127.0.0.1:${dnsPort}`, '--dns-threads', String(THREADS), '--rrl-rate', '0', '--healthcheck-allow', '127.0.0.0/8');
  api = client(node.base, (await v3(node.base, { api_action: 'user.getapikey', username: 'alice', password: 'pw' })).DATA.API_KEY as string);
  await waitFor('DNS to listen', () => node.messages.some((m) => m.startsWith('DNS listening')));
  zoneId = await createDomain(api, ZONE);
  // By network: 127.0.0.2 alone, 127.0.0.3 and 10.0.0.0/8, everyone else; and nested networks.
  await record('geo', '198.51.100.2', { subnets: ['127.0.0.2/32'] });
  await record('geo', '198.51.100.3', { subnets: ['127.0.0.3/32', '10.0.0.0/8'] });
  await record('geo', '198.51.100.99');
  await record('nested', '198.51.100.8', { subnets: ['10.0.0.0/8'] });
  await record('nested', '198.51.100.16', { subnets: ['10.1.0.0/16'] });
  await record('w', '198.51.100.31', { weight: 3 });
  await record('w', '198.51.100.32', { weight: 1 });
  await record('even', '198.51.100.41', { weight: 1 });
  await record('even', '198.51.100.42', { weight: 1 });
}, 60_000);

afterAll(async () => {
  await stopNodes();
  await db.cleanup();
});

describe('steered answers from warm caches', () => {
  it('starts the threads asked for, where it can', () => {
    const threads = singleThreadReason(UDP_BATCH) === null ? `${THREADS} threads` : 'one thread';
    expect(node.messages.some((m) => m.startsWith(`DNS listening (UDP on ${threads}, `))).toBe(true);
  });

  it('clients of different networks asking in turn, again and again, each get their own network\'s record', async () => {
    const own = { '127.0.0.2': ['198.51.100.2'], '127.0.0.3': ['198.51.100.3'], '127.0.0.1': ['198.51.100.99'] };
    for (let round = 0; round < 20; round++) {
      // In turn, then all at once (over every thread), with and without EDNS.
      for (const [from, want] of Object.entries(own)) expect((await ask(`geo.${ZONE}`, { from, size: round % 2 ? 0 : 1232 })).addresses, from).toEqual(want);
      const all = await Promise.all(Object.keys(own).flatMap((from) => [0, 1232].map(async (size) => [from, (await ask(`geo.${ZONE}`, { from, size })).addresses] as const)));
      for (const [from, got] of all) expect(got, from).toEqual(own[from as keyof typeof own]);
    }
  });

  it('ECS clients asking in turn each get their own answer and scope, and the same as their first, cookies or not', async () => {
    const cases: [subnet: string, name: string, addresses: string[], ecs: string][] = [
      ['10.1.2.0/24', 'geo', ['198.51.100.3'], '10.1.2.0/24/8'],
      ['127.0.0.2/32', 'geo', ['198.51.100.2'], '127.0.0.2/32/32'],
      ['10.1.9.0/24', 'nested', ['198.51.100.16'], '10.1.9.0/24/16'],
      ['10.2.0.0/16', 'nested', ['198.51.100.8'], '10.2.0.0/16/15'],
    ];
    const first = new Map<string, Got>();
    for (let round = 0; round < 15; round++) {
      const answers = await Promise.all(
        cases.flatMap(([subnet, name]) => [undefined, 'a1b2c3d4e5f60718'].map(async (cookie) => [subnet, name, cookie, await ask(`${name}.${ZONE}`, { subnet, cookie })] as const)),
      );
      for (const [subnet, name, cookie, got] of answers) {
        const [, , addresses, ecs] = cases.find((c) => c[0] === subnet && c[1] === name) as (typeof cases)[number];
        expect(got.addresses, `${subnet} ${name}`).toEqual(addresses);
        expect(got.ecs, `${subnet} ${name}`).toBe(ecs);
        expect(got.cookie === null, `${subnet} ${name} cookie`).toBe(cookie === undefined);
        if (cookie) expect(got.cookie?.startsWith(cookie)).toBe(true);
        const was = first.get(`${subnet} ${name} ${cookie}`) ?? got;
        first.set(`${subnet} ${name} ${cookie}`, got);
        expect({ ...got, cookie: null }).toEqual({ ...was, cookie: null });
      }
      // Without ECS, from 127.0.0.1: the default record, and no ECS option.
      expect(await ask(`geo.${ZONE}`)).toEqual({ addresses: ['198.51.100.99'], ecs: null, cookie: null });
    }
  });

  it('a 3:1 weighted pair stays at 75 % ± 5 % of 2,000 answers with the caches warm', async () => {
    let three = 0;
    for (let i = 0; i < 2000; i += 50) {
      const batch = await Promise.all(Array.from({ length: 50 }, () => ask(`w.${ZONE}`)));
      for (const got of batch) {
        expect(got.addresses).toHaveLength(1);
        if (got.addresses[0] === '198.51.100.31') three++;
      }
    }
    expect(three / 2000).toBeGreaterThanOrEqual(0.7);
    expect(three / 2000).toBeLessThanOrEqual(0.8);
  });

  it('weighted picks keep their proportions while the caches fill: the second answer to a question differs from the first half the time', async () => {
    // Each EDNS size is a question of its own in the caches: asked twice, the first answer is made afresh and
    // kept, the second picks 1:1 again. Had the caches' pick of a variant they lack been thrown away, the
    // second answer would differ a quarter of the time only.
    let differ = 0;
    const sizes = Array.from({ length: 400 }, (_, i) => 600 + i);
    for (let i = 0; i < sizes.length; i += 40) {
      const pairs = await Promise.all(sizes.slice(i, i + 40).map(async (size) => [await ask(`even.${ZONE}`, { size }), await ask(`even.${ZONE}`, { size })]));
      for (const [a, b] of pairs) if ((a as Got).addresses[0] !== (b as Got).addresses[0]) differ++;
    }
    expect(differ / sizes.length).toBeGreaterThanOrEqual(0.4);
    expect(differ / sizes.length).toBeLessThanOrEqual(0.6);
  });
});

describe('a health check\'s status change', () => {
  let target: Server;
  let targetPort = 0;
  const listen = () => new Promise<void>((resolve) => target.listen(targetPort, '127.0.0.1', () => resolve()));
  const close = () => new Promise<void>((resolve) => target.close(() => resolve()));

  beforeAll(async () => {
    target = createServer((s) => s.end());
    await listen();
    targetPort = (target.address() as AddressInfo).port;
  });
  afterAll(async () => {
    if (target.listening) await close();
  });

  it('is answered at once by every thread, though each had the answer cached', async () => {
    const made = await api.post('/v1/healthchecks', { type: 'tcp', address: '127.0.0.1', port: targetPort, interval: 1, timeout: 0.5, fall: 2, rise: 2 });
    expect(made.status, made.text).toBe(201);
    const check = made.body.id as number;
    await record('www', '198.51.100.10', { healthcheck: check, weight: 1 });
    await record('www', '198.51.100.12', { weight: 1 });
    const status = async () => (await api.get(`/v1/healthchecks/${check}`)).body.status as string;
    await waitFor('the check up', async () => (await status()) === 'up', 15_000);
    /** What 60 clients at once (so every thread) are answered. */
    const seen = async () => new Set((await Promise.all(Array.from({ length: 60 }, () => ask(`www.${ZONE}`)))).map((g) => g.addresses.join()));
    /** The zone's serial as DNS answers it: once it moved, the change is in the zones in memory. */
    const serial = async () => {
      const q = dnsPacket.encode({ type: 'query', id: 2, flags: 0, questions: [{ name: ZONE, type: 'SOA', class: 'IN' }] });
      const soa = dnsPacket.decode(await udpExchange(dnsPort, q)).answers?.find((a) => a.type === 'SOA');
      return (soa?.data as { serial?: number } | undefined)?.serial ?? 0;
    };
    for (const [change, want] of [
      [close, new Set(['198.51.100.12'])],
      [listen, new Set(['198.51.100.10', '198.51.100.12'])],
    ] as const) {
      // Warm: every thread has both variants cached.
      for (let i = 0; i < 5; i++) await seen();
      const before = await serial();
      const was = await status();
      await change();
      await waitFor('the status to change', async () => (await status()) !== was, 15_000);
      await waitFor('the zone to take a new serial', async () => (await serial()) !== before, 5_000);
      expect(await seen()).toEqual(want);
    }
  }, 60_000);
});
