/**
 * The zones using ALIAS targets (dns/alias/users.ts): a change of a target's addresses gives each zone using it
 * a new serial, at most once a minute per zone, only on the node that acts (the leader), and none to a zone
 * that no longer uses it.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AliasCache } from '../../src/dns/alias/cache.js';
import type { Resolution } from '../../src/dns/alias/resolver.js';
import { AliasUsers, SERIAL_INTERVAL_MS } from '../../src/dns/alias/users.js';
import type { ZoneRecord } from '../../src/model/zone.js';

let address = '192.0.2.1';
let leader = true;
let bumped: number[];
let cache: AliasCache;
let users: AliasUsers;

const alias = (name: string, target: string): ZoneRecord => ({ name, type: 'ALIAS', ttl: 300, data: { target } });
/** One resolution's answer: www's address (which the test changes) or other's (which stays), for A; none for AAAA. */
const resolve = async (_s: unknown, name: string, t: { type: string }): Promise<Resolution> => ({
  kind: 'records',
  records: t.type === 'A' ? [{ address: name.startsWith('www.') ? address : '198.51.100.1' }] : [],
  ttl: 4,
});

beforeEach(() => {
  vi.useFakeTimers();
  bumped = [];
  leader = true;
  cache = new AliasCache({ host: '127.0.0.1', port: 53 }, () => Date.now(), resolve);
  users = new AliasUsers(cache, { bump: async (id) => void bumped.push(id), shouldAct: () => leader, log: { warn: () => undefined } }, () => Date.now());
});

afterEach(() => {
  users.stop();
  cache.stop();
  vi.useRealTimers();
});

describe('new serials for new ALIAS addresses', () => {
  it('gives each zone using the target one at once, then at most one a minute', async () => {
    users.update(1, [alias('a.example', 'www.example.net')]);
    users.update(2, [alias('b.example', 'www.example.net'), alias('x.b.example', 'other.example.net')]);
    users.update(3, [alias('c.example', 'other.example.net')]);
    await vi.advanceTimersByTimeAsync(0);
    expect(bumped).toEqual([]); // the first resolution is no change
    address = '192.0.2.2';
    await vi.advanceTimersByTimeAsync(3_100); // refreshed at three quarters of the TTL
    expect(bumped.sort()).toEqual([1, 2]);
    address = '192.0.2.3';
    await vi.advanceTimersByTimeAsync(3_100);
    expect(bumped.sort()).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(SERIAL_INTERVAL_MS);
    expect(bumped.sort()).toEqual([1, 1, 2, 2]);
  });

  it('gives none on a node that does not act, nor to a zone that stopped using the target', async () => {
    users.update(1, [alias('a.example', 'www.example.net')]);
    users.update(2, [alias('b.example', 'www.example.net')]);
    await vi.advanceTimersByTimeAsync(0);
    // Zone 2's ALIAS went (a patch of that name), zone 1 is on a node that is not the leader.
    users.update(2, [], new Set(['b.example']));
    leader = false;
    address = '192.0.2.9';
    await vi.advanceTimersByTimeAsync(3_100);
    expect(bumped).toEqual([]);
  });
});
