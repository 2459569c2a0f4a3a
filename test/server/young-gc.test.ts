/**
 * Young-generation collections after writes (src/dns/server/young-gc.ts): a write that leaves the young generation over
 * 70 % full is collected before its answer, so the queries right after it are not; one that leaves room is
 * not collected.
 */
import v8 from 'node:v8';
import { constants, performance, PerformanceObserver } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { youngGcAfterWrites } from '../../src/dns/server/young-gc.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { client, type Client } from '../v1/support.js';

const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!;
const fullness = () => {
  const y = young();
  return y.space_used_size / (y.space_used_size + y.space_available_size);
};

/** Allocates short-lived objects until the young generation is more than `fraction` full. */
function fillYoung(fraction: number): void {
  let sink: unknown;
  while (fullness() <= fraction) for (let i = 0; i < 1000; i++) sink = { i, pair: [i, i + 1] };
  void sink;
}

/** The young collections that started while `during` ran. */
async function youngCollections(during: () => unknown): Promise<number> {
  const seen: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) seen.push(e.startTime);
  });
  observer.observe({ entryTypes: ['gc'] });
  const from = performance.now();
  await during();
  const to = performance.now();
  await new Promise((r) => setTimeout(r, 50));
  observer.disconnect();
  return seen.filter((t) => t >= from && t <= to).length;
}

describe('after a write', () => {
  const afterWrite = youngGcAfterWrites();
  /** Starts from an empty young generation, so filling it never reaches V8's own 80 % trigger. */
  const emptyYoung = () => {
    fillYoung(0.72);
    afterWrite();
  };

  it('collects a young generation over 70 % full', async () => {
    emptyYoung();
    fillYoung(0.72);
    expect(await youngCollections(afterWrite)).toBe(1);
    expect(fullness()).toBeLessThan(0.5);
  });

  it('leaves one with room alone', async () => {
    emptyYoung();
    fillYoung(0.4);
    const before = young().space_used_size;
    expect(await youngCollections(afterWrite)).toBe(0);
    expect(young().space_used_size).toBeGreaterThanOrEqual(before);
  });
});

describe('a running node', () => {
  let server: TestServer;
  let api: Client;
  let domainId: number;
  beforeAll(async () => {
    server = await startTestServer();
    api = client(server.base, (await server.user('alice')).key);
    domainId = (await api.post('/v1/domains', { domain: 'gc.example', soa: 'hostmaster@gc.example' })).body.id;
  });
  afterAll(async () => {
    await server?.close();
  });

  const write = async (address: string) => expect((await api.post(`/v1/domains/${domainId}/A`, { name: 'www', address })).status).toBe(201);

  it('collects a nearly full young generation before it answers a write', async () => {
    await write('192.0.2.1');
    fillYoung(0.72);
    expect(await youngCollections(() => write('192.0.2.2'))).toBeGreaterThanOrEqual(1);
  });
});
