/**
 * DNS cookies (RFC 7873, server cookies as RFC 9018), NSID (RFC 5001) and Extended DNS Errors (RFC 8914), as
 * dig and kdig see them, and as raw messages where the clients cannot say it; then thousands of malformed
 * cookie options, after which the server answers as before.
 */
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import * as dnsPacket from 'dns-packet';
import fc from 'fast-check';
import pino from 'pino';
import siphash24 from 'siphash24';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookiePeriod } from '../../src/model/cookie-secret.js';
import { AnswerOptions } from '../../src/dns/server/answer-options.js';
import { startDns, type RunningDns } from '../../src/dns/server/server.js';
import { addressBytes, checkServerCookie, cookieKey, cookieLengthValid, hashedAddressOf, writeAnswerCookie } from '../../src/dns/wire/cookie.js';
import { readClientSubnet } from '../../src/dns/wire/client-subnet.js';
import { parseQuery, type Query } from '../../src/dns/wire/query.js';
import { peers } from '../support/peers.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createDomain, createRecord, dig, kdig, rrs, udpExchange } from './support.js';

const needsDig = peers('dig');
const needsKdig = peers('kdig');

const ZONE = 'cookies.example';
const COOKIE = 10;
const NSID = 3;
const EDE = 15;
/** EDNS Client Subnet (RFC 7871): a malformed first one is FORMERR. */
const ECS = 8;
let server: TestServer;
let port = 0;

beforeAll(async () => {
  server = await startTestServer();
  port = server.dnsAddress?.port ?? 0;
  const { key } = await server.user('cookie');
  const id = await createDomain(server.base, key, ZONE);
  await createRecord(server.base, key, id, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
  for (let i = 0; i < 40; i++) await createRecord(server.base, key, id, { Type: 'TXT', Name: 'big', Target: `${'x'.repeat(40)} ${i}` });
});
afterAll(() => server.close());

type Option = { code: number; data: Buffer };

/** A query for `name` with an OPT record carrying `options` (none: no OPT when `edns` is false). */
function query(name: string, options: Option[], opts: { id?: number; type?: string; edns?: boolean; udpSize?: number } = {}): Buffer {
  const additionals = opts.edns === false ? [] : [{ type: 'OPT' as const, name: '.', udpPayloadSize: opts.udpSize ?? 1232, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: options as unknown as dnsPacket.PacketOpt[] }];
  return dnsPacket.encode({ type: 'query', id: opts.id ?? 4321, flags: 0, questions: [{ name, type: (opts.type ?? 'A') as 'A', class: 'IN' }], additionals });
}

/** One exchange over TCP. */
function tcpExchange(msg: Buffer, to = port): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const s = connect(to, '127.0.0.1', () => s.write(Buffer.concat([Buffer.from([msg.length >> 8, msg.length & 0xff]), msg])));
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        s.end();
        resolve(buf.subarray(2, 2 + buf.readUInt16BE(0)));
      }
    });
    s.on('error', reject);
  });
}

interface Reply {
  rcode: number;
  /** The OPT record's options, or null without OPT. */
  options: Option[] | null;
  answers: string[];
  raw: Buffer;
}

function read(raw: Buffer): Reply {
  const p = dnsPacket.decode(raw);
  const opt = p.additionals?.find((a): a is dnsPacket.OptAnswer => a.type === 'OPT');
  return {
    rcode: (raw.readUInt16BE(2) & 0xf) | ((opt?.extendedRcode ?? 0) << 4),
    options: opt ? (opt.options ?? []).map((o) => ({ code: o.code, data: Buffer.from((o as unknown as Option).data ?? []) })) : null,
    answers: (p.answers ?? []).map((a) => `${a.name} ${a.type} ${JSON.stringify((a as { data: unknown }).data)}`),
    raw,
  };
}

const ask = async (msg: Buffer, tcp = false, to = port): Promise<Reply> => read(tcp ? await tcpExchange(msg, to) : await udpExchange(to, msg));
const cookieOf = (r: Reply): Buffer | undefined => r.options?.find((o) => o.code === COOKIE)?.data;
const hex = (s: string) => Buffer.from(s, 'hex');
const CLIENT = hex('0102030405060708');

describe('server cookies as RFC 9018 makes them', () => {
  it('hashes as SipHash-2-4 does (the reference vector: key 00..0f, message 00..0e)', () => {
    const key = cookieKey(hex('000102030405060708090a0b0c0d0e0f'));
    // The reference code's 64-bit value a129ca6149be45e5, written little-endian.
    expect(Buffer.from(siphash24(Uint8Array.from({ length: 15 }, (_, i) => i), key)).toString('hex')).toBe('e545be4961ca29a1');
  });

  it.each([
    ['A.1, learning a new server cookie', 'e5e973e5a6b2a43f48e7dc849e37bfcf', '2464c4abcf10c957', '198.51.100.100', 1559731985, '2464c4abcf10c957010000005cf79f111f8130c3eee29480'],
    ['A.2, the same client, renewed', 'e5e973e5a6b2a43f48e7dc849e37bfcf', '2464c4abcf10c957', '198.51.100.100', 1559734385, '2464c4abcf10c957010000005cf7a871d4a564a1442aca77'],
    ['A.3, another client', 'e5e973e5a6b2a43f48e7dc849e37bfcf', 'fc93fc62807ddb86', '203.0.113.203', 1559734700, 'fc93fc62807ddb86010000005cf7a9acf73a7810aca2381e'],
    ['A.4, an IPv6 client after a rollover', '445536bcd2513298075a5d379663c962', '22681ab97d52c298', '2001:db8:220:1:59de:d0f4:8769:82b8', 1559741961, '22681ab97d52c298010000005cf7c609a6bb79d16625507a'],
  ])('makes the cookie of its appendix %s', (_what, secret, client, address, at, expected) => {
    const out = Buffer.alloc(24);
    writeAnswerCookie(hex(client), 0, hashedAddressOf(address), at, cookieKey(hex(secret)), out, 0);
    expect(out.toString('hex')).toBe(expected);
  });

  it('accepts the cookies of its appendix with the secrets they were made with, for the address they were made for, within the hour', () => {
    const a3 = hex('fc93fc62807ddb8601abcdef5cf78f71a314227b6679ebf5');
    const key = cookieKey(hex('e5e973e5a6b2a43f48e7dc849e37bfcf'));
    // The reserved octets the client sent are part of the hash.
    expect(checkServerCookie(a3, 0, 24, hashedAddressOf('203.0.113.203'), 0x5cf78f71 + 60, [key])).toBe('valid');
    expect(checkServerCookie(a3, 0, 24, hashedAddressOf('203.0.113.204'), 0x5cf78f71 + 60, [key])).toBe('invalid');
    const a4 = hex('22681ab97d52c298010000005cf7c57926556bd0934c72f8');
    const [old, next] = [cookieKey(hex('dd3bdf9344b678b185a6f5cb60fca715')), cookieKey(hex('445536bcd2513298075a5d379663c962'))];
    expect(checkServerCookie(a4, 0, 24, hashedAddressOf('2001:db8:220:1:59de:d0f4:8769:82b8'), 1559741961, [next, old])).toBe('valid');
    expect(checkServerCookie(a4, 0, 24, hashedAddressOf('2001:db8:220:1:59de:d0f4:8769:82b8'), 1559741961, [next])).toBe('invalid');
    // 1559741817 is its timestamp: renewed after half an hour, refused after an hour, and five minutes early at most.
    const at = (age: number) => checkServerCookie(a4, 0, 24, hashedAddressOf('2001:db8:220:1:59de:d0f4:8769:82b8'), 1559741817 + age, [old]);
    expect([at(0), at(1800), at(1801), at(3600), at(3601), at(-300), at(-301)]).toEqual(['valid', 'valid', 'renew', 'renew', 'invalid', 'valid', 'invalid']);
  });

  it('takes a client cookie alone or with a server cookie of 8 to 32 octets; any other length is FORMERR (RFC 7873 5.2.2)', () => {
    expect([0, 7, 8, 9, 15, 16, 24, 40, 41].map(cookieLengthValid)).toEqual([false, false, true, false, false, true, true, true, false]);
  });

  it('hashes an IPv4-mapped IPv6 client as the IPv4 address it is', () => {
    expect(Buffer.from(addressBytes('::ffff:192.0.2.1')).toString('hex')).toBe('c0000201');
  });

  it("accepts yesterday's secret's cookies after a rollover, and makes new ones with today's", () => {
    const day = 24 * 3600 * 1000;
    const now = Date.UTC(2026, 0, 10, 0, 20);
    const [yesterday, today] = [hex('11'.repeat(16)), hex('22'.repeat(16))];
    const q = (cookie: Buffer): { q: Query; raw: Buffer } => {
      const raw = query('www.example', [{ code: COOKIE, data: cookie }]);
      return { q: parseQuery(raw) as Query, raw };
    };
    const before = new AnswerOptions({ secrets: [{ period: cookiePeriod(now - day), secret: yesterday }], nsid: null });
    const made = q(CLIENT);
    const cookie = before.forQuery(made.q, made.raw, '192.0.2.7', () => now - 30 * 60_000)?.options.subarray(4) as Buffer;
    const after = new AnswerOptions({ secrets: [{ period: cookiePeriod(now - day), secret: yesterday }, { period: cookiePeriod(now), secret: today }], nsid: null });
    const back = q(cookie);
    expect(after.hasValidServerCookie(back.q, back.raw, '192.0.2.7', now)).toBe(true);
    expect(after.hasValidServerCookie(back.q, back.raw, '192.0.2.8', now)).toBe(false);
    // Valid and young: sent back as it came.
    expect(after.forQuery(back.q, back.raw, '192.0.2.7', () => now)?.options.subarray(4)).toEqual(cookie);
    const fresh = after.forQuery(made.q, made.raw, '192.0.2.7', () => now)?.options.subarray(4) as Buffer;
    expect(checkServerCookie(fresh, 0, 24, hashedAddressOf('192.0.2.7'), Math.floor(now / 1000), [cookieKey(today)])).toBe('valid');
  });
});

describe('cookies over UDP and TCP', () => {
  needsDig.it('dig +cookie gets our server cookie; sent back, it is accepted; forged, a fresh one comes with the usual answer', async () => {
    const first = await dig(server, `www.${ZONE}`, 'A', '+cookie');
    expect(first.status).toBe('NOERROR');
    const cookie = /; COOKIE: ([0-9a-f]{48}) \(good\)/.exec(first.raw)?.[1] as string;
    expect(cookie).toMatch(/^[0-9a-f]{16}01000000/);
    await new Promise((r) => setTimeout(r, 1100));
    // A second later: the same cookie comes back, not one with a new timestamp.
    const again = await dig(server, `www.${ZONE}`, 'A', `+cookie=${cookie}`);
    expect(rrs(again.answer)).toEqual([`www.${ZONE}. 86400 A 192.0.2.1`]);
    expect(again.raw).toContain(`; COOKIE: ${cookie} (good)`);
    const forged = `${cookie.slice(0, 32)}${'ab'.repeat(8)}`;
    const answered = await dig(server, `www.${ZONE}`, 'A', `+cookie=${forged}`);
    expect(rrs(answered.answer)).toEqual([`www.${ZONE}. 86400 A 192.0.2.1`]);
    const fresh = /; COOKIE: ([0-9a-f]{48})/.exec(answered.raw)?.[1] as string;
    expect(fresh.slice(0, 16)).toBe(cookie.slice(0, 16));
    expect(fresh).not.toBe(forged);
    expect((await dig(server, `www.${ZONE}`, 'A', `+cookie=${fresh}`)).raw).toContain(`; COOKIE: ${fresh} (good)`);
    // And over TCP, where cookies are optional, the same.
    expect((await dig(server, `www.${ZONE}`, 'A', '+tcp', `+cookie=${fresh}`)).raw).toContain(`; COOKIE: ${fresh} (good)`);
  });

  needsKdig.it('kdig +cookie gets one too, and a query without a cookie gets none', async () => {
    const k = await kdig(server, `www.${ZONE}`, 'A', '+cookie');
    expect(k.status).toBe('NOERROR');
    expect(k.raw).toMatch(/COOKIE: [0-9a-f]{16}/i);
    expect((await kdig(server, `www.${ZONE}`, 'A', '+nocookie')).raw).not.toMatch(/COOKIE/);
  });

  it("answers a stale or another server's cookie with a fresh one, and from the cache each client its own", async () => {
    const secrets = await server.services.cookieSecrets.current();
    const key = cookieKey((secrets[1] as { secret: Uint8Array }).secret);
    const stale = Buffer.alloc(24);
    writeAnswerCookie(CLIENT, 0, hashedAddressOf('127.0.0.1'), Math.floor(Date.now() / 1000) - 2 * 3600, key, stale, 0);
    const reply = await ask(query(`www.${ZONE}`, [{ code: COOKIE, data: stale }]));
    expect(reply.answers).toEqual([`www.${ZONE} A "192.0.2.1"`]);
    const fresh = cookieOf(reply) as Buffer;
    expect(fresh.subarray(0, 8)).toEqual(CLIENT);
    expect(fresh.readUInt32BE(12)).toBeGreaterThan(stale.readUInt32BE(12) + 3600);
    // Two clients asking the same question (cached after the first) each get their own client cookie back.
    const other = hex('a1a2a3a4a5a6a7a8');
    for (const c of [CLIENT, other, CLIENT]) expect(cookieOf(await ask(query(`www.${ZONE}`, [{ code: COOKIE, data: c }])))?.subarray(0, 8)).toEqual(c);
    // The cache keeps no one's cookie: a query without one gets the answer without one.
    const plain = await ask(query(`www.${ZONE}`, []));
    expect(plain.options).toEqual([]);
    expect(plain.answers).toEqual([`www.${ZONE} A "192.0.2.1"`]);
  });

  it('keeps an answer with a cookie within the client’s UDP size, truncating what does not fit', async () => {
    for (const size of [512, 1232]) {
      const without = await ask(query(`big.${ZONE}`, [], { type: 'TXT', udpSize: size }));
      const withCookie = await ask(query(`big.${ZONE}`, [{ code: COOKIE, data: CLIENT }], { type: 'TXT', udpSize: size }));
      expect(withCookie.raw.length).toBeLessThanOrEqual(size);
      expect(cookieOf(withCookie)?.length).toBe(24);
      expect(without.raw.length).toBeLessThanOrEqual(size);
    }
  });

  it('answers a query for a server cookie alone (no question, RFC 7873 5.4) with NOERROR and a cookie', async () => {
    const msg = Buffer.concat([Buffer.from([0x12, 0x34, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), Buffer.from([0, 0, 41, 4, 0xd0, 0, 0, 0, 0, 0, 12, 0, 10, 0, 8]), CLIENT]);
    for (const tcp of [false, true]) {
      const reply = await ask(msg, tcp);
      expect(reply.rcode).toBe(0);
      expect(cookieOf(reply)?.subarray(0, 8)).toEqual(CLIENT);
    }
  });

  it('answers FORMERR, with OPT and no cookie, to a cookie option of a wrong length, also beside a good one', async () => {
    for (const len of [0, 1, 7, 9, 12, 15, 41, 64]) {
      for (const tcp of [false, true]) {
        const reply = await ask(query(`www.${ZONE}`, [{ code: COOKIE, data: Buffer.alloc(len, 7) }]), tcp);
        expect([len, reply.rcode, reply.options]).toEqual([len, 1, []]);
      }
    }
    expect((await ask(query(`www.${ZONE}`, [{ code: COOKIE, data: CLIENT }, { code: COOKIE, data: Buffer.alloc(3) }]))).rcode).toBe(1);
    // Two good ones: the first counts (RFC 7873 5.2).
    const two = await ask(query(`www.${ZONE}`, [{ code: COOKIE, data: CLIENT }, { code: COOKIE, data: hex('b1b2b3b4b5b6b7b8') }]));
    expect([two.rcode, cookieOf(two)?.subarray(0, 8)]).toEqual([0, CLIENT]);
  });
});

/** The cookie counters of /metrics: client cookie alone, valid, not valid, malformed (FORMERR). */
async function cookieMetrics(): Promise<number[]> {
  const text = await (await fetch(`${server.base}/metrics`)).text();
  return ['client_only', 'valid', 'invalid', 'malformed'].map((kind) => Number(new RegExp(`^zonehost_dns_cookie_${kind}_total (\\d+)$`, 'm').exec(text)?.[1] ?? NaN));
}

describe('cookies in /metrics', () => {
  needsDig.it('counts queries with a client cookie alone, a valid, a forged and a malformed cookie, over UDP and TCP', async () => {
    const before = await cookieMetrics();
    const first = await dig(server, `www.${ZONE}`, 'A', '+cookie');
    const cookie = /; COOKIE: ([0-9a-f]{48}) \(good\)/.exec(first.raw)?.[1] as string;
    await dig(server, `www.${ZONE}`, 'A', `+cookie=${cookie}`);
    await dig(server, `www.${ZONE}`, 'A', '+tcp', `+cookie=${cookie}`);
    await dig(server, `www.${ZONE}`, 'A', `+cookie=${cookie.slice(0, 32)}${'ab'.repeat(8)}`);
    expect((await ask(query(`www.${ZONE}`, [{ code: COOKIE, data: Buffer.alloc(12) }]))).rcode).toBe(1);
    // Without a cookie: counted nowhere.
    await dig(server, `www.${ZONE}`, 'A', '+nocookie');
    const after = await cookieMetrics();
    expect(after.map((n, i) => n - (before[i] as number))).toEqual([1, 2, 1, 1]);
  });
});

describe('NSID (RFC 5001)', () => {
  let dns: RunningDns;
  beforeAll(async () => {
    dns = await startDns(server.services, { host: '127.0.0.1', port: 0, nameservers: ['ns1.zonehost.test'], log: pino({ level: 'silent' }), nsid: 'ns-a.zonehost.test' });
  });
  afterAll(() => dns.close());

  needsDig.it('answers --nsid to dig +nsid, beside a cookie, and to nobody who does not ask', async () => {
    const withNsid = { dnsAddress: dns.address } as TestServer;
    const asked = await dig(withNsid, `www.${ZONE}`, 'A', '+nsid', '+cookie');
    expect(asked.raw).toContain('; NSID: 6e 73 2d 61 2e 7a 6f 6e 65 68 6f 73 74 2e 74 65 73 74 ("ns-a.zonehost.test")');
    expect(asked.raw).toMatch(/; COOKIE: [0-9a-f]{48} \(good\)/);
    expect((await dig(withNsid, `www.${ZONE}`, 'A')).raw).not.toContain('NSID');
    // A node without --nsid answers none.
    expect((await dig(server, `www.${ZONE}`, 'A', '+nsid')).raw).not.toContain('NSID');
  });

  it('answers it from the cache and over TCP, whatever the option held (RFC 5001 2.1)', async () => {
    for (const tcp of [false, true]) {
      for (const data of [Buffer.alloc(0), Buffer.from('ignored')]) {
        const reply = await ask(query(`www.${ZONE}`, [{ code: NSID, data }]), tcp, dns.address.port);
        expect(reply.options?.find((o) => o.code === NSID)?.data.toString()).toBe('ns-a.zonehost.test');
      }
    }
  });
});

describe('Extended DNS Errors (RFC 8914)', () => {
  const edeOf = (r: Reply) => {
    const o = r.options?.find((x) => x.code === EDE);
    return o ? `${o.data.readUInt16BE(0)} ${o.data.subarray(2).toString()}` : null;
  };

  needsDig.it('says Not Authoritative (20) with REFUSED for a name outside our zones, only to EDNS clients', async () => {
    const refused = await dig(server, 'www.example.org', 'A');
    expect(refused.status).toBe('REFUSED');
    expect(refused.raw).toContain('; EDE: 20 (Not Authoritative): (not a zone served here)');
    expect((await ask(query('www.example.org', [], { edns: false }))).options).toBeNull();
  });

  it('says Prohibited (18) with REFUSED for a zone transfer, an UPDATE without a key and a NOTIFY from a stranger', async () => {
    expect(edeOf(await ask(query(ZONE, [], { type: 'AXFR' }), true))).toBe('18 zone transfer not allowed from this address or key');
    const update = query(ZONE, [], { type: 'SOA' });
    update[2] = 5 << 3;
    expect(edeOf(await ask(update))).toBe('18 UPDATE needs a TSIG key allowed to change the zone');
    const notify = query(ZONE, [], { type: 'SOA' });
    notify[2] = (4 << 3) | 0x04;
    expect(edeOf(await ask(notify))).toBe("18 NOTIFY is taken only for a zone mirror, from its masters");
  });
});

describe('opcodes we do not serve', () => {
  it('answers NOTIMP with the header alone, opcode echoed, RD and CD not (ISC compliance: opcode, opcodeflg)', async () => {
    for (const opcode of [1, 2, 3, 6, 15]) {
      // Header only, every flag set, as genreport sends it; then with a question and OPT.
      const bare = Buffer.from([0x11, 0x11, (opcode << 3) | 0x07, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0]);
      const reply = await udpExchange(port, bare);
      expect([opcode, reply.length, reply[2], reply[3]]).toEqual([opcode, 12, 0x80 | (opcode << 3), 4]);
      const withQuestion = query(`www.${ZONE}`, [{ code: COOKIE, data: CLIENT }]);
      withQuestion[2] = opcode << 3;
      const r = await ask(withQuestion);
      expect([r.rcode, r.raw.readUInt16BE(4), cookieOf(r)?.subarray(0, 8)]).toEqual([4, 0, CLIENT]);
    }
  });
});

/** Cookie options of every length, several in a message, with garbage options around them. */
const hostileArb = fc
  .array(
    fc.oneof(
      fc.record({ code: fc.constant(COOKIE), data: fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)) }),
      fc.record({ code: fc.constantFrom(COOKIE, NSID, EDE, 0, 65535, ECS, 12), data: fc.uint8Array({ maxLength: 30 }).map((a) => Buffer.from(a)) }),
    ),
    { minLength: 1, maxLength: 5 },
  )
  .chain((options) => fc.tuple(fc.constant(options), fc.boolean()));

/**
 * What the answer to a query with `options` must be: FORMERR when a cookie has a wrong length, or when the first
 * EDNS Client Subnet option (code 8) is malformed (RFC 7871 7.1; test/dns/steering.test.ts), else the usual
 * answer (NOERROR, or NXDOMAIN for a name that is not there) with the first cookie's client part.
 */
function expected(options: Option[], exists = true): { rcode: number; client: string | null } {
  const cookies = options.filter((o) => o.code === COOKIE);
  if (cookies.some((c) => !cookieLengthValid(c.data.length))) return { rcode: 1, client: null };
  const ecs = options.find((o) => o.code === ECS);
  if (ecs && !readClientSubnet(ecs.data, 0, ecs.data.length)) return { rcode: 1, client: null };
  return { rcode: exists ? 0 : 3, client: cookies[0] ? cookies[0].data.subarray(0, 8).toString('hex') : null };
}

describe('hostile cookie options', () => {
  it('answers thousands of malformed and repeated cookie options over UDP as the RFC asks, then answers as before', async () => {
    const cases = fc.sample(hostileArb, { numRuns: 3000, seed: 7873 });
    const socket = createSocket('udp4');
    const replies = new Map<number, Buffer>();
    socket.on('message', (m) => replies.set(m.readUInt16BE(0), m));
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
    const sent = new Map<number, { options: Option[]; www: boolean }>();
    for (let i = 0; i < cases.length; i += 50) {
      for (const [options, www] of cases.slice(i, i + 50)) {
        const id = sent.size;
        sent.set(id, { options, www });
        socket.send(query(www ? `www.${ZONE}` : `nx${id}.${ZONE}`, options, { id }), port, '127.0.0.1');
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, 1000));
    socket.close();
    // UDP may drop some under this load; every reply that came is right.
    expect(replies.size).toBeGreaterThan(cases.length / 2);
    const wrong: string[] = [];
    for (const [id, raw] of replies) {
      const { options, www } = sent.get(id) as { options: Option[]; www: boolean };
      const want = expected(options, www);
      const got = read(raw);
      const client = cookieOf(got)?.subarray(0, 8).toString('hex') ?? null;
      if (got.rcode !== want.rcode || client !== want.client) wrong.push(`${id}: ${JSON.stringify({ got: [got.rcode, client], want })}`);
    }
    expect(wrong.slice(0, 10)).toEqual([]);
    await stillAnswers();
  }, 60_000);

  it('does the same over TCP, many messages to a connection', async () => {
    const cases = fc.sample(hostileArb, { numRuns: 1000, seed: 9018 });
    for (let i = 0; i < cases.length; i += 100) {
      const batch = cases.slice(i, i + 100).map(([options], j) => ({ options, msg: query(`www.${ZONE}`, options, { id: j }) }));
      const replies = await new Promise<Buffer[]>((resolve, reject) => {
        const out: Buffer[] = [];
        let buf = Buffer.alloc(0);
        const s = connect(port, '127.0.0.1', () => s.write(Buffer.concat(batch.map(({ msg }) => Buffer.concat([Buffer.from([msg.length >> 8, msg.length & 0xff]), msg])))));
        s.on('data', (d: Buffer) => {
          buf = Buffer.concat([buf, d]);
          while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
            out.push(buf.subarray(2, 2 + buf.readUInt16BE(0)));
            buf = buf.subarray(2 + buf.readUInt16BE(0));
          }
          if (out.length === batch.length) {
            s.end();
            resolve(out);
          }
        });
        s.on('error', reject);
      });
      for (const raw of replies) {
        const { options } = batch[raw.readUInt16BE(0)] as { options: Option[] };
        const got = read(raw);
        expect({ rcode: got.rcode, client: cookieOf(got)?.subarray(0, 8).toString('hex') ?? null }).toEqual(expected(options));
      }
    }
    await stillAnswers();
  }, 60_000);
});

async function stillAnswers(): Promise<void> {
  for (const tcp of [false, true]) {
    const r = await ask(query(`www.${ZONE}`, [{ code: COOKIE, data: CLIENT }]), tcp);
    expect([r.rcode, r.answers, cookieOf(r)?.subarray(0, 8)]).toEqual([0, [`www.${ZONE} A "192.0.2.1"`], CLIENT]);
  }
}
