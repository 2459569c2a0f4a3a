/**
 * The ALIAS cache (dns/alias/cache.ts) over a scripted resolver and a fake clock: waits for a first
 * resolution only, refreshes at three quarters of the TTL, says when the addresses change, serves stale
 * addresses for an hour while the resolver is away, then gives up, and says why when there are none.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AliasCache, STALE_TTL } from '../../src/dns/alias/cache.js';
import type { Resolution } from '../../src/dns/alias/resolver.js';
import { A } from '../../src/model/records/a.js';
import { AAAA } from '../../src/model/records/aaaa.js';

const SERVER = { host: '127.0.0.1', port: 53 };
let answer: Resolution;
let asked: number;
let cache: AliasCache;

const records = (ttl: number, ...addresses: string[]): Resolution => ({ kind: 'records', records: addresses.map((address) => ({ address })), ttl });

beforeEach(() => {
  vi.useFakeTimers();
  asked = 0;
  answer = records(100, '192.0.2.1');
  cache = new AliasCache(SERVER, () => Date.now(), async () => {
    asked++;
    return answer;
  });
});

afterEach(() => {
  cache.stop();
  vi.useRealTimers();
});

/** Lets the scripted resolution settle. */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe('the ALIAS cache', () => {
  it('makes a first query wait for the resolution, then answers from the cache until the TTL runs out', async () => {
    const first = cache.addresses('www.example.net', A);
    expect(first.kind).toBe('waiting');
    await settle();
    const ready = cache.addresses('www.example.net', A);
    expect(ready).toMatchObject({ kind: 'ready', ttl: 100, stale: false, until: Date.now() + 100_000 });
    expect(asked).toBe(1);
    cache.addresses('WWW.example.net', A);
    expect(asked).toBe(1);
  });

  it('resolves a used target again at three quarters of its TTL and says when its addresses change (not at the first resolution)', async () => {
    const changes: string[] = [];
    cache.onChange((t) => changes.push(t));
    cache.use('www.example.net', [A]);
    await settle();
    expect(asked).toBe(1);
    expect(changes).toEqual([]);
    await vi.advanceTimersByTimeAsync(74_000);
    expect(asked).toBe(1);
    answer = records(100, '192.0.2.2');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(asked).toBe(2);
    expect(changes).toEqual(['www.example.net']);
    // The same addresses again are no change.
    await vi.advanceTimersByTimeAsync(75_000);
    expect(asked).toBe(3);
    expect(changes).toEqual(['www.example.net']);
    expect(cache.addresses('www.example.net', A)).toMatchObject({ kind: 'ready', stale: false });
    expect(await cache.records('www.example.net', A)).toEqual({ records: [{ address: '192.0.2.2' }], ttl: 100 });
  });

  it('serves the last addresses stale, with a short TTL, for an hour past their TTL while the resolver is away; then SERVFAIL with why', async () => {
    cache.use('www.example.net', [A]);
    await settle();
    answer = { kind: 'unreachable', why: 'no answer' };
    await vi.advanceTimersByTimeAsync(101_000);
    const stale = cache.addresses('www.example.net', A);
    expect(stale).toMatchObject({ kind: 'ready', stale: true, ttl: STALE_TTL });
    await vi.advanceTimersByTimeAsync(3_500_000);
    expect(cache.addresses('www.example.net', A)).toMatchObject({ kind: 'ready', stale: true });
    await vi.advanceTimersByTimeAsync(110_000);
    expect(cache.addresses('www.example.net', A)).toEqual({ kind: 'failed', ede: { code: 23, text: 'the ALIAS target www.example.net could not be resolved: no answer' } });
  });

  it('says why a target has no addresses: never resolved, or does not exist', async () => {
    answer = { kind: 'unreachable', why: 'no answer' };
    cache.addresses('a.example.net', AAAA);
    await settle();
    expect(cache.addresses('a.example.net', AAAA)).toMatchObject({ kind: 'failed', ede: { code: 23 } });
    answer = { kind: 'nxdomain' };
    cache.addresses('b.example.net', A);
    await settle();
    expect(cache.addresses('b.example.net', A)).toEqual({ kind: 'failed', ede: { code: 0, text: 'the ALIAS target b.example.net does not exist (NXDOMAIN from the resolver)' } });
  });

  it('answers SERVFAIL without a resolver', async () => {
    const none = new AliasCache(null);
    none.addresses('www.example.net', A);
    await settle();
    expect(none.addresses('www.example.net', A)).toMatchObject({ kind: 'failed', ede: { code: 23, text: expect.stringMatching(/no resolver/) } });
    none.stop();
  });

  it('stops resolving a target no zone uses', async () => {
    cache.use('www.example.net', [A]);
    await settle();
    cache.release('www.example.net', [A]);
    await vi.advanceTimersByTimeAsync(500_000);
    expect(asked).toBe(1);
  });
});
