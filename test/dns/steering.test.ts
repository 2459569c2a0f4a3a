/**
 * Steered answers (issue 32) as real clients and peers see them: `dig -b` from two loopback addresses and
 * `dig +subnet` get their network's records with the ECS scope set; health checks of HTTP and TCP servers the
 * test starts and stops take a record out of answers and back within the bounds, and a knotd secondary
 * follows; a 3:1 weighted pair; several CNAME records at one name; what AXFR carries; and delv validating each
 * variant of a signed zone.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delv } from '../support/dnssec.js';
import { eventually, kdigAt, startKnot, transfer, zonehostPrimary, type Knot } from '../support/knot.js';
import { peers } from '../support/peers.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { client, createDomain, type Client } from '../v1/support.js';
import { dig, dnsAnswer, udpExchange, type DigAnswer } from './support.js';

const needsDig = peers('dig');
const needsKnot = peers('dig', 'knotd', 'knotc', 'kdig');
const needsDelv = peers('dig', 'delv');
const needsKdig = peers('kdig');

const ZONE = 'steer.example';
const SIGNED = 'signed-steer.example';
const SECONDARY = '127.0.62.2';

let server: TestServer;
let api: Client;
let zoneId: number;
let knot: Knot | undefined;

const port = () => server.dnsAddress?.port as number;
const addresses = async (name: string, type = 'A') => (await dnsAnswer(port(), name, type)).answers.sort();
const datas = (a: DigAnswer, type = 'A') => a.answer.filter((r) => r.type === type).map((r) => r.data).sort();
/** The ECS option dig printed: "10.1.2.0/24/8" (address/source/scope), or null. */
const clientSubnet = (a: DigAnswer) => /CLIENT-SUBNET: (\S+)/.exec(a.raw)?.[1] ?? null;

async function record(type: string, body: Record<string, unknown>, zone = zoneId): Promise<number> {
  const r = await api.post(`/v1/domains/${zone}/${type}`, body);
  expect(r.status, r.text).toBe(201);
  return r.body.id as number;
}

beforeAll(async () => {
  // RRL off: the weighted test asks 2,000 times from one address. The checks probe servers on loopback.
  server = await startTestServer({ healthcheckAllow: ['127.0.0.0/8'], rrl: { rate: 0 } });
  api = client(server.base, (await server.user('steerer')).key);
  zoneId = await createDomain(api, ZONE, { axfr: ['127.0.0.1', SECONDARY] });
  // By network: one record for 127.0.0.2, one for 127.0.0.3 and 10.0.0.0/8, one for everyone else.
  await record('A', { name: 'geo', address: '198.51.100.2', steering: { subnets: ['127.0.0.2/32'] } });
  await record('A', { name: 'geo', address: '198.51.100.3', steering: { subnets: ['127.0.0.3/32', '10.0.0.0/8'] } });
  await record('A', { name: 'geo', address: '198.51.100.99' });
  // The more specific network wins.
  await record('A', { name: 'nested', address: '198.51.100.8', steering: { subnets: ['10.0.0.0/8'] } });
  await record('A', { name: 'nested', address: '198.51.100.16', steering: { subnets: ['10.1.0.0/16'] } });
  // Every record with subnets: NODATA for the others.
  await record('A', { name: 'only', address: '198.51.100.50', steering: { subnets: ['127.0.0.2/32'] } });
  await record('TXT', { name: 'only', text: 'for everyone' });
});

afterAll(async () => {
  await knot?.stop();
  await server?.close();
});

describe('answers by client network', () => {
  needsDig.it('dig -b 127.0.0.2 and -b 127.0.0.3 each get their own record, others the default, and no cache mixes them', async () => {
    for (let round = 0; round < 3; round++) {
      expect(datas(await dig(server, '-b', '127.0.0.2', `geo.${ZONE}`, 'A'))).toEqual(['198.51.100.2']);
      expect(datas(await dig(server, '-b', '127.0.0.3', `geo.${ZONE}`, 'A'))).toEqual(['198.51.100.3']);
      expect(datas(await dig(server, '-b', '127.0.0.1', `geo.${ZONE}`, 'A'))).toEqual(['198.51.100.99']);
    }
  });

  needsDig.it('dig +subnet gets the answer of its client network, with the ECS scope that decided it', async () => {
    const ten = await dig(server, '+subnet=10.1.2.0/24', `geo.${ZONE}`, 'A');
    expect(datas(ten)).toEqual(['198.51.100.3']);
    expect(clientSubnet(ten)).toBe('10.1.2.0/24/8');
    const exact = await dig(server, '+subnet=127.0.0.2/32', `geo.${ZONE}`, 'A');
    expect(datas(exact)).toEqual(['198.51.100.2']);
    expect(clientSubnet(exact)).toBe('127.0.0.2/32/32');
    // ECS, not the source address (127.0.0.1), decides.
    const nested = await dig(server, '+subnet=10.1.9.0/24', `nested.${ZONE}`, 'A');
    expect(datas(nested)).toEqual(['198.51.100.16']);
    expect(clientSubnet(nested)).toBe('10.1.9.0/24/16');
    const outer = await dig(server, '+subnet=10.2.0.0/16', `nested.${ZONE}`, 'A');
    expect(datas(outer)).toEqual(['198.51.100.8']);
    // Within 10.2.0.0/16 every client gets this: the scope leaves 10.1.0.0/16 out.
    expect(clientSubnet(outer)).toBe('10.2.0.0/16/15');
    // A name nothing steers: scope 0, the same answer for everyone.
    const plain = await dig(server, '+subnet=10.1.2.0/24', `only.${ZONE}`, 'TXT');
    expect(plain.status).toBe('NOERROR');
    expect(clientSubnet(plain)).toBe('10.1.2.0/24/0');
  });

  needsDig.it('answers NODATA where every record of the type has subnets and none matches', async () => {
    const other = await dig(server, '-b', '127.0.0.1', `only.${ZONE}`, 'A');
    expect(other.status).toBe('NOERROR');
    expect(other.answer).toEqual([]);
    expect(datas(await dig(server, '-b', '127.0.0.2', `only.${ZONE}`, 'A'))).toEqual(['198.51.100.50']);
  });

  needsDig.it("gives in the additional section a steered host's addresses as its client would get them, asked in turn", async () => {
    await record('MX', { name: 'mail', mail_server: `geo.${ZONE}`, priority: 10 });
    const additional = async (...args: string[]) => (await dig(server, ...args, `mail.${ZONE}`, 'MX')).additional.filter((r) => r.type === 'A').map((r) => r.data);
    for (let round = 0; round < 3; round++) {
      expect(await additional('-b', '127.0.0.2')).toEqual(['198.51.100.2']);
      expect(await additional('-b', '127.0.0.3')).toEqual(['198.51.100.3']);
      expect(await additional('-b', '127.0.0.1')).toEqual(['198.51.100.99']);
      const ten = await dig(server, '+subnet=10.1.2.0/24', `mail.${ZONE}`, 'MX');
      expect(ten.additional.filter((r) => r.type === 'A').map((r) => r.data)).toEqual(['198.51.100.3']);
      expect(clientSubnet(ten)).toBe('10.1.2.0/24/8');
    }
  });

  needsDig.it("gives a referral's steered glue as its client would get the name server's addresses, asked in turn", async () => {
    await record('NS', { name: 'sub', nameserver: `ns1.sub.${ZONE}` });
    await record('A', { name: 'ns1.sub', address: '198.51.100.52', steering: { subnets: ['127.0.0.2/32'] } });
    await record('A', { name: 'ns1.sub', address: '198.51.100.53', steering: { subnets: ['127.0.0.3/32'] } });
    await record('A', { name: 'ns1.sub', address: '198.51.100.59' });
    const glue = async (...args: string[]) => {
      const referral = await dig(server, ...args, `host.sub.${ZONE}`, 'A');
      expect(referral.authority.map((r) => r.type)).toEqual(['NS']);
      return referral.additional.filter((r) => r.type === 'A').map((r) => r.data);
    };
    for (let round = 0; round < 3; round++) {
      expect(await glue('-b', '127.0.0.2')).toEqual(['198.51.100.52']);
      expect(await glue('-b', '127.0.0.3')).toEqual(['198.51.100.53']);
      expect(await glue('-b', '127.0.0.1')).toEqual(['198.51.100.59']);
    }
  });

  it('answers a malformed ECS option FORMERR (RFC 7871 7.1)', async () => {
    const ask = async (data: Buffer) => {
      const q = dnsPacket.encode({ type: 'query', id: 7, questions: [{ type: 'A', class: 'IN', name: `geo.${ZONE}` }] });
      // An OPT record written by hand (dns-packet would encode ECS from its fields): root, OPT, 1232, TTL 0, one option.
      const opt = Buffer.alloc(15 + data.length);
      opt.writeUInt16BE(41, 1);
      opt.writeUInt16BE(1232, 3);
      opt.writeUInt16BE(4 + data.length, 9);
      opt.writeUInt16BE(8, 11);
      opt.writeUInt16BE(data.length, 13);
      data.copy(opt, 15);
      const msg = Buffer.concat([q, opt]);
      msg.writeUInt16BE(1, 10);
      return (await udpExchange(port(), msg)).readUInt16BE(2) & 15;
    };
    // A source prefix longer than IPv4's; a scope in a query; an address longer than its prefix; an unknown family.
    for (const hex of ['00012100c000020000', '0001180cc00002', '00011800c0000201', '00031800c00002']) expect(await ask(Buffer.from(hex, 'hex')), hex).toBe(1);
    // A well-formed one is answered.
    expect(await ask(Buffer.from('00011800c00002', 'hex'))).toBe(0);
  });
});

describe('weights', () => {
  needsDig.it('a 3:1 weighted pair gives 75 % ± 5 % of 2,000 answers, one record each', async () => {
    await record('A', { name: 'w', address: '198.51.100.31', steering: { weight: 3 } });
    await record('A', { name: 'w', address: '198.51.100.32', steering: { weight: 1 } });
    let three = 0;
    for (let i = 0; i < 2000; i++) {
      const a = await addresses(`w.${ZONE}`);
      expect(a).toHaveLength(1);
      if (a[0] === '198.51.100.31') three++;
    }
    expect(three / 2000).toBeGreaterThanOrEqual(0.7);
    expect(three / 2000).toBeLessThanOrEqual(0.8);
  });

  needsDig.it('several CNAME records at one name: each answer holds exactly one, and follows it', async () => {
    await record('CNAME', { name: 'cdn', target: `a.${ZONE}`, steering: { weight: 1 } });
    await record('CNAME', { name: 'cdn', target: `b.${ZONE}`, steering: { weight: 1 } });
    await record('A', { name: 'a', address: '198.51.100.61' });
    await record('A', { name: 'b', address: '198.51.100.62' });
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const a = await dig(server, `cdn.${ZONE}`, 'A');
      expect(a.answer.filter((r) => r.type === 'CNAME')).toHaveLength(1);
      const target = a.answer.find((r) => r.type === 'CNAME')?.data;
      expect(datas(a)).toEqual([target === `a.${ZONE}.` ? '198.51.100.61' : '198.51.100.62']);
      seen.add(target as string);
    }
    expect(seen.size).toBe(2);
  });
});

/** An HTTP and a TCP server the checks probe, stopped and started by the tests. */
class Target {
  port = 0;
  constructor(private readonly server: HttpServer | TcpServer) {}
  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as AddressInfo).port;
  }
  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      if ('closeAllConnections' in this.server) this.server.closeAllConnections();
    });
  }
}

/** Milliseconds until `check` holds, polled every 50 ms; fails past `ms`. */
async function within(what: string, ms: number, check: () => Promise<boolean>): Promise<number> {
  const start = Date.now();
  await eventually(what, check, ms + 5000);
  return Date.now() - start;
}

describe('health checks', () => {
  const web = new Target(createHttpServer((_req, res) => res.end('ok')));
  const tcp = new Target(createTcpServer((s) => s.end()));
  // interval 1 s, timeout 0.5 s, fall 2, rise 2: out within 2×1 + 0.5 + 1 s, back within 2×1 + 1 s.
  const timing = { interval: 1, timeout: 0.5, fall: 2, rise: 2 };
  const OUT_MS = (2 * 1 + 0.5 + 1) * 1000;
  const BACK_MS = (2 * 1 + 1) * 1000;
  let httpCheck: number;
  let tcpCheck: number;

  beforeAll(async () => {
    await web.start();
    await tcp.start();
    httpCheck = (await api.post('/v1/healthchecks', { type: 'http', address: '127.0.0.1', port: web.port, ...timing })).body.id;
    tcpCheck = (await api.post('/v1/healthchecks', { type: 'tcp', address: '127.0.0.1', port: tcp.port, ...timing })).body.id;
    await record('A', { name: 'www', address: '198.51.100.10', steering: { healthcheck: httpCheck } });
    await record('A', { name: 'www', address: '198.51.100.11', steering: { healthcheck: tcpCheck } });
    await record('A', { name: 'www', address: '198.51.100.12' });
    // Both records of this name follow the HTTP check: when it is down, both are served (fail open).
    await record('A', { name: 'failopen', address: '198.51.100.21', steering: { healthcheck: httpCheck } });
    await record('A', { name: 'failopen', address: '198.51.100.22', steering: { healthcheck: httpCheck } });
    const up = async (id: number) => (await api.get(`/v1/healthchecks/${id}`)).body.status === 'up';
    await eventually('both checks up', async () => (await up(httpCheck)) && (await up(tcpCheck)), 15_000);
  });
  afterAll(async () => {
    await web.stop().catch(() => undefined);
    await tcp.stop().catch(() => undefined);
  });

  needsKnot.it('a knotd secondary serves the zone as transferred', async () => {
    knot = await startKnot({ address: SECONDARY, config: `${zonehostPrimary(server)}zone:\n  - domain: ${ZONE}\n    master: zonehost\n    acl: notify_from_zonehost\n    storage: "{dir}"\n` });
    await eventually(`knot serving www.${ZONE}\n${knot.log()}`, async () => (await kdigAt(knot as Knot, `www.${ZONE}`, 'A')).answer.length === 3);
  });

  const secondaryHas = async (address: string) => datas(await kdigAt(knot as Knot, `www.${ZONE}`, 'A')).includes(address);

  for (const [kind, target, address] of [
    ['HTTP', web, '198.51.100.10'],
    ['TCP', tcp, '198.51.100.11'],
  ] as const) {
    needsDig.it(`a record whose ${kind} server stops leaves the answers in time, comes back in time, and the secondary follows within 2 s`, async () => {
      expect(await addresses(`www.${ZONE}`)).toContain(address);
      await target.stop();
      const out = await within(`${address} to leave`, OUT_MS, async () => !(await addresses(`www.${ZONE}`)).includes(address));
      expect(out).toBeLessThanOrEqual(OUT_MS);
      expect((await addresses(`www.${ZONE}`)).length).toBe(2);
      if (knot) expect(await within('the secondary to drop it', 2000, async () => !(await secondaryHas(address)))).toBeLessThanOrEqual(2000);
      await target.start();
      const back = await within(`${address} to come back`, BACK_MS, async () => (await addresses(`www.${ZONE}`)).includes(address));
      expect(back).toBeLessThanOrEqual(BACK_MS);
      if (knot) expect(await within('the secondary to serve it again', 2000, () => secondaryHas(address))).toBeLessThanOrEqual(2000);
    });
  }

  needsDig.it('serves every record when all the candidates are down (fail open), and journals the changes', async () => {
    await web.stop();
    await eventually('the HTTP check down', async () => (await api.get(`/v1/healthchecks/${httpCheck}`)).body.status === 'down', 10_000);
    expect(await addresses(`www.${ZONE}`)).not.toContain('198.51.100.10');
    expect(await addresses(`failopen.${ZONE}`)).toEqual(['198.51.100.21', '198.51.100.22']);
    const events = (await api.get(`/v1/events?domain=${zoneId}&limit=500`)).body as { action: string; object_id: number }[];
    expect(events.filter((e) => e.action === 'healthcheck.status' && e.object_id === httpCheck).length).toBeGreaterThanOrEqual(3);
    await web.start();
    await eventually('the HTTP check up', async () => (await api.get(`/v1/healthchecks/${httpCheck}`)).body.status === 'up', 10_000);
  });
});

describe('transfers', () => {
  needsKdig.it('AXFR carries what a client no subnet matches gets, minus down records, every weighted record, and one of several CNAMEs', async () => {
    await record('CNAME', { name: 'pick', target: `a.${ZONE}`, steering: { weight: 1 } });
    const heavy = `b.${ZONE}.`;
    await record('CNAME', { name: 'pick', target: heavy, steering: { weight: 9 } });
    const axfr = await transfer(server, '127.0.0.1', ZONE, 'AXFR');
    expect(axfr.status).toBe('NOERROR');
    const at = (name: string, type = 'A') =>
      axfr.records
        .filter((r) => r.startsWith(`${name}.${ZONE}. ${type} `))
        .map((r) => r.split(' ').slice(2).join(' '))
        .sort();
    expect(at('geo')).toEqual(['198.51.100.99']);
    expect(at('nested')).toEqual([]);
    expect(at('only')).toEqual([]);
    expect(at('w')).toEqual(['198.51.100.31', '198.51.100.32']);
    expect(at('cdn', 'CNAME')).toEqual([`a.${ZONE}.`]);
    expect(at('pick', 'CNAME')).toEqual([heavy]);
  });
});

describe('a signed zone', () => {
  let signedId: number;
  const local = () => ({ host: '127.0.0.1', port: port() });
  const dsRecords = async () => ((await api.get(`/v1/domains/${signedId}/dnssec`)).body.keys as { ds: string[] }[]).flatMap((k) => k.ds);

  beforeAll(async () => {
    signedId = await createDomain(api, SIGNED);
    await record('A', { name: 'geo', address: '198.51.100.2', steering: { subnets: ['127.0.0.2/32'] } }, signedId);
    await record('A', { name: 'geo', address: '198.51.100.3', steering: { subnets: ['127.0.0.3/32'] } }, signedId);
    await record('A', { name: 'geo', address: '198.51.100.99' }, signedId);
    await record('A', { name: 'only', address: '198.51.100.50', steering: { subnets: ['127.0.0.2/32'] } }, signedId);
    await record('A', { name: 'w', address: '198.51.100.31', steering: { weight: 3 } }, signedId);
    await record('A', { name: 'w', address: '198.51.100.32', steering: { weight: 1 } }, signedId);
    const put = await api.put(`/v1/domains/${signedId}/dnssec`, { enabled: true });
    expect(put.status, put.text).toBeLessThan(300);
  });

  needsDelv.it('delv validates each variant: by source address, the default, NODATA, and each weighted record', async () => {
    const ds = await dsRecords();
    const validated = async (name: string, from: string) => delv(SIGNED, ds, local(), name, 'A', ['-b', from]);
    const two = await validated(`geo.${SIGNED}`, '127.0.0.2');
    expect(two).toMatch(/^; fully validated/m);
    expect(two).toMatch(/198\.51\.100\.2\b/);
    const three = await validated(`geo.${SIGNED}`, '127.0.0.3');
    expect(three).toMatch(/^; fully validated/m);
    expect(three).toMatch(/198\.51\.100\.3\b/);
    const others = await validated(`geo.${SIGNED}`, '127.0.0.1');
    expect(others).toMatch(/^; fully validated/m);
    expect(others).toMatch(/198\.51\.100\.99\b/);
    expect(await validated(`only.${SIGNED}`, '127.0.0.1')).toMatch(/negative response, fully validated/);
    expect(await validated(`only.${SIGNED}`, '127.0.0.2')).toMatch(/^; fully validated/m);
    const seen = new Set<string>();
    // 3:1: the lighter one is missed 40 times in a row once in 100,000 runs.
    for (let i = 0; i < 40 && seen.size < 2; i++) {
      const w = await validated(`w.${SIGNED}`, '127.0.0.1');
      expect(w).toMatch(/^; fully validated/m);
      seen.add(/198\.51\.100\.3[12]/.exec(w)?.[0] ?? '');
    }
    expect(seen).toEqual(new Set(['198.51.100.31', '198.51.100.32']));
  });
});
