/**
 * The response rate limiter on its own (src/dns/server/rrl.ts), on a clock the test moves: the rate and its
 * burst, slip, client networks, exemptions, verified clients, one table shared by several limiters (threads), the
 * answer classes, and the log said once a minute per network.
 */
import { describe, expect, it } from 'vitest';
import { senderOf } from '../../src/dns/server/udp.js';
import { answerClass, DEFAULT_RRL, DROP, PASS, RateLimiter, rrlTable, SLIP, type RrlSettings } from '../../src/dns/server/rrl.js';
import { parseQuery, type Query } from '../../src/dns/wire/query.js';
import { emptyResult } from '../../src/dns/zone/result.js';
import * as dnsPacket from 'dns-packet';

/** The time the queries arrive at, moved by the tests. */
const clock = { ms: 0 };

function limiters(settings: Partial<RrlSettings>, count = 1) {
  const table = rrlTable({ ...DEFAULT_RRL, ...settings });
  if (!table) throw new Error('RRL is off');
  clock.ms = 1_700_000_000_000;
  const logged: string[] = [];
  const made = Array.from({ length: count }, () => new RateLimiter(table, (n) => logged.push(n)));
  return { made, clock, logged };
}

/** `n` answers of class `cls` to `address`, now: how many passed, slipped, dropped. */
function send(l: RateLimiter | RateLimiter[], address: string, n: number, cls = 1, verified = false) {
  const all = Array.isArray(l) ? l : [l];
  const from = { ...senderOf(address), receivedAt: clock.ms };
  const out = { pass: 0, slip: 0, drop: 0 };
  for (let i = 0; i < n; i++) {
    const v = (all[i % all.length] as RateLimiter).verdict(cls, from, verified);
    if (v === PASS) out.pass++;
    else if (v === SLIP) out.slip++;
    else if (v === DROP) out.drop++;
  }
  return out;
}

describe('the response rate limiter', () => {
  it('lets a burst of one second of answers through, then `rate` a second; every second answer over the limit slips', () => {
    const { made: [l], clock } = limiters({ rate: 10 });
    expect(send(l!, '127.0.0.2', 100)).toEqual({ pass: 10, slip: 45, drop: 45 });
    clock.ms += 500;
    expect(send(l!, '127.0.0.2', 100).pass).toBe(5);
    clock.ms += 1000;
    expect(send(l!, '127.0.0.2', 100).pass).toBe(10);
    expect(l!.slipped + l!.dropped).toBe(300 - 25);
  });

  it('over a steady flood gives `rate` a second (plus the first burst)', () => {
    const { made: [l], clock } = limiters({ rate: 200 });
    let pass = 0;
    // 1,000 a second for 5 s, one every millisecond.
    for (let ms = 0; ms < 5000; ms++, clock.ms++) pass += send(l!, '127.0.0.2', 1).pass;
    expect(pass).toBeGreaterThanOrEqual(5 * 200);
    expect(pass).toBeLessThanOrEqual(6 * 200);
  });

  it('slips all with --rrl-slip 1 and none with 0', () => {
    expect(send(limiters({ rate: 5, slip: 1 }).made[0]!, '192.0.2.1', 20)).toEqual({ pass: 5, slip: 15, drop: 0 });
    expect(send(limiters({ rate: 5, slip: 0 }).made[0]!, '192.0.2.1', 20)).toEqual({ pass: 5, slip: 0, drop: 15 });
    expect(send(limiters({ rate: 5, slip: 3 }).made[0]!, '192.0.2.1', 20)).toEqual({ pass: 5, slip: 5, drop: 10 });
  });

  it('counts per client network: a /24 for IPv4, a /56 for IPv6, as configured', () => {
    const { made: [l] } = limiters({ rate: 10 });
    expect(send(l!, '127.0.0.2', 50).pass).toBe(10);
    expect(send(l!, '127.0.0.3', 50).pass).toBe(0); // the same /24
    expect(send(l!, '127.0.1.3', 50).pass).toBe(10);
    expect(send(l!, '2001:db8:0:1::1', 50).pass).toBe(10);
    expect(send(l!, '2001:db8:0:ff::2', 50).pass).toBe(0); // the same /56
    expect(send(l!, '2001:db8:0:100::1', 50).pass).toBe(10);
    const { made: [wide] } = limiters({ rate: 10, ipv4Prefix: 16 });
    expect(send(wide!, '127.0.0.2', 50).pass).toBe(10);
    expect(send(wide!, '127.0.1.3', 50).pass).toBe(0);
  });

  it('counts per answer class', () => {
    const { made: [l] } = limiters({ rate: 10 });
    expect(send(l!, '127.0.0.2', 50, 1).pass).toBe(10);
    expect(send(l!, '127.0.0.2', 50, 2).pass).toBe(10);
  });

  it('never limits exempt networks nor verified clients', () => {
    const { made: [l] } = limiters({ rate: 10, exempt: ['127.0.0.0/24', '2001:db8::/32'] });
    expect(send(l!, '127.0.0.2', 50).pass).toBe(50);
    expect(send(l!, '2001:db8:1::1', 50).pass).toBe(50);
    expect(send(l!, '127.0.1.2', 50).pass).toBe(10);
    expect(send(l!, '127.0.1.2', 50, 1, true).pass).toBe(50);
    // An exemption narrower than the client network: that address only, its answers not counted in its network's.
    const { made: [host] } = limiters({ rate: 10, exempt: ['192.0.2.7'] });
    expect(send(host!, '192.0.2.7', 50).pass).toBe(50);
    expect(send(host!, '192.0.2.8', 50).pass).toBe(10);
  });

  it('shares one table between limiters (threads): a flood spread over them gets the rate once', () => {
    const { made } = limiters({ rate: 10 }, 4);
    expect(send(made, '127.0.0.2', 400).pass).toBe(10);
  });

  it('holds when threads read the clock a batch apart', () => {
    const { made: [a, b], clock } = limiters({ rate: 200 }, 2);
    expect(send(a!, '127.0.0.2', 400).pass).toBe(200);
    // A thread whose batch began 10 ms earlier sees the bucket further ahead than one answer could put it.
    clock.ms -= 10;
    expect(send(b!, '127.0.0.2', 400).pass).toBe(0);
  });

  it('says a network is limited at most once a minute, whichever thread limits it', () => {
    const { made, clock, logged } = limiters({ rate: 10 }, 2);
    send(made, '127.0.0.2', 100);
    send(made, '2001:db8:0:1::1', 100);
    expect(logged).toEqual(['127.0.0.0/24', '2001:db8::/56']);
    clock.ms += 30_000;
    send(made, '127.0.0.9', 100);
    expect(logged).toHaveLength(2);
    clock.ms += 60_000;
    send(made, '127.0.0.9', 100);
    expect(logged).toEqual(['127.0.0.0/24', '2001:db8::/56', '127.0.0.0/24']);
  });

  it("counts the minute from the time it said so, not by the clock: a flood across a minute's turn is told once", () => {
    const { made, clock, logged } = limiters({ rate: 10 }, 2);
    clock.ms = Math.ceil(clock.ms / 60_000) * 60_000 - 500;
    send(made, '127.0.0.2', 100);
    clock.ms += 1_000;
    send(made, '127.0.0.2', 100);
    expect(logged).toEqual(['127.0.0.0/24']);
  });

  it('is off at rate 0', () => {
    expect(rrlTable({ ...DEFAULT_RRL, rate: 0 })).toBeNull();
  });
});

describe('answer classes', () => {
  const q = (name: string, type = 'A'): Query => parseQuery(dnsPacket.encode({ type: 'query', id: 1, questions: [{ name, type: type as 'A', class: 'IN' }] }) as Buffer) as Query;
  const zone = { key: 'example.com' } as Parameters<typeof answerClass>[2];
  const response = (rcode: number) => Buffer.from([0, 1, 0x84, rcode]);
  const positive = { ...emptyResult(0, true), answer: [{}] } as unknown as ReturnType<typeof emptyResult>;

  it('one per name and type for answers, one per zone for NXDOMAIN and for NODATA', () => {
    expect(answerClass(q('a.example.com'), positive, zone, response(0))).toBe(answerClass(q('a.example.com'), positive, zone, response(0)));
    expect(answerClass(q('a.example.com'), positive, zone, response(0))).not.toBe(answerClass(q('b.example.com'), positive, zone, response(0)));
    expect(answerClass(q('a.example.com'), positive, zone, response(0))).not.toBe(answerClass(q('a.example.com', 'AAAA'), positive, zone, response(0)));
    const nx = (name: string) => answerClass(q(name), emptyResult(3, true), zone, response(3));
    expect(nx('x1.example.com')).toBe(nx('x2.example.com'));
    const nodata = (name: string) => answerClass(q(name), emptyResult(0, true), zone, response(0));
    expect(nodata('x1.example.com')).toBe(nodata('x2.example.com'));
    expect(nodata('x1.example.com')).not.toBe(nx('x1.example.com'));
  });

  it('one per delegation for referrals and per wildcard for its answers; one for every error', () => {
    const referral = (name: string, cut: string) => answerClass(q(name), { ...emptyResult(0), denial: [{ kind: 'referral', cut }] }, zone, response(0));
    expect(referral('a.sub.example.com', 'sub.example.com')).toBe(referral('b.sub.example.com', 'sub.example.com'));
    expect(referral('a.sub.example.com', 'sub.example.com')).not.toBe(referral('a.other.example.com', 'other.example.com'));
    const wild = (name: string) => answerClass(q(name), { ...positive, denial: [{ kind: 'wildcard', name, encloser: 'w.example.com' }] }, zone, response(0));
    expect(wild('a.w.example.com')).toBe(wild('b.w.example.com'));
    expect(answerClass(q('a.example.org'), emptyResult(5), null, response(5))).toBe(answerClass(q('b.example.net', 'MX'), emptyResult(2), null, response(2)));
  });
});
