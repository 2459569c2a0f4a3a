/**
 * The zone loads of the DNS server. At start it answers while its zones are still being read from the
 * store: a query for a zone not read yet is answered from that zone loaded on its own, and a zone changed
 * while the bulk read of it was under way is served as changed, never from the older bulk copy. Later, a
 * burst of writes to a zone costs one rebuild, not one a write.
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect } from 'vitest';
import { startDns, type RunningDns } from '../../src/dns/server/server.js';
import { Services, type Actor } from '../../src/services/index.js';
import { DEFAULT_LIMITS } from '../../src/services/actor.js';
import { openStore } from '../../src/store/open.js';
import type { StoredRecord } from '../../src/model/records/index.js';
import { freshDatabase } from '../support/server.js';
import { dig, rrs } from './support.js';
import { peers } from '../support/peers.js';

const needsDig = peers('dig');

const NAMESERVERS = ['ns1.zonehost.test', 'ns2.zonehost.test'];
let db: ReturnType<typeof freshDatabase>;
let services: Services;
let alice: Actor;
let dns: RunningDns | null = null;

beforeEach(async () => {
  db = freshDatabase();
  services = new Services(await openStore(db.url));
  const a = await services.accounts.createUser('alice', 'pw');
  alice = { accountId: a.id, userId: a.id, role: 'owner', username: 'alice', keyLabel: '', iface: 'cli', remoteAddr: '127.0.0.1' };
});
afterEach(async () => {
  await dns?.close();
  dns = null;
  await services.store.close();
  await db.cleanup();
});

async function zone(name: string, address: string): Promise<number> {
  const d = await services.domains.create(alice, { domain: name, kind: 'master', soaEmail: `hostmaster@${name}` });
  await services.records.create(alice, d.id, { type: 'A', name: 'www', ttl: 0, data: { address } });
  return d.id;
}

/**
 * Holds the store's bulk record reads: each one reads at once, but its rows are handed over only when
 * the test calls release().
 */
function holdBulkReads(): { release: () => void; started: Promise<void> } {
  const store = services.store;
  const read = store.recordsOfDomains.bind(store);
  let release = () => {};
  const gate = new Promise<void>((r) => (release = r));
  let started = () => {};
  const startedPromise = new Promise<void>((r) => (started = r));
  store.recordsOfDomains = async (first: number, last: number): Promise<StoredRecord[]> => {
    const rows = await read(first, last);
    started();
    await gate;
    return rows;
  };
  return { release, started: startedPromise };
}

const gauge = (name: string): number => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(services.metrics.prometheus())?.[1]);

describe('DNS start-up load', () => {
  needsDig.it('answers a zone the bulk load has not reached yet, and reports the load in /metrics', async () => {
    const first = 'first.startup.test';
    await zone(first, '192.0.2.1');
    await zone('second.startup.test', '192.0.2.2');
    const held = holdBulkReads();
    dns = await startDns(services, { host: '127.0.0.1', port: 0, nameservers: NAMESERVERS, log: pino({ level: 'silent' }) });
    await held.started;
    expect(gauge('zonehost_dns_zones_loading')).toBe(2);
    const server = { dnsAddress: dns.address } as Parameters<typeof dig>[0];
    expect(rrs((await dig(server, `www.${first}`, 'A')).answer)).toEqual([`www.${first}. 86400 A 192.0.2.1`]);
    expect(gauge('zonehost_dns_zones_loading')).toBe(1);
    held.release();
    await dns.zones.loaded;
    expect(gauge('zonehost_dns_zones_loading')).toBe(0);
    expect(gauge('zonehost_dns_zones')).toBe(2);
    expect(rrs((await dig(server, 'www.second.startup.test', 'A')).answer)).toEqual(['www.second.startup.test. 86400 A 192.0.2.2']);
  });

  needsDig.it('answers a zone of the start-up load, kept packed until a query needs it, as the zone built whole', async () => {
    const name = 'packed.startup.test';
    const id = await zone(name, '192.0.2.1');
    for (const r of [
      { type: 'MX', name: '', data: { priority: 10, mail_server: `mail.${name}` } },
      { type: 'A', name: 'Mail', data: { address: '192.0.2.25' } },
      { type: 'CNAME', name: 'alias', data: { target: `www.${name}` } },
      { type: 'TXT', name: '*.wild', data: { text: 'any "quoted" text' } },
      { type: 'AAAA', name: 'deep.er', data: { address: '2001:db8::1' } },
    ]) await services.records.create(alice, id, { ttl: 0, ...r });
    dns = await startDns(services, { host: '127.0.0.1', port: 0, nameservers: NAMESERVERS, log: pino({ level: 'silent' }) });
    await dns.zones.loaded;
    const server = { dnsAddress: dns.address } as Parameters<typeof dig>[0];
    const questions = [[name, 'MX'], [name, 'NS'], [`alias.${name}`, 'A'], [`x.wild.${name}`, 'TXT'], [`er.${name}`, 'A'], [`deep.er.${name}`, 'AAAA'], [`none.${name}`, 'A']];
    const answers = async () => Promise.all(questions.map(async ([q, type]) => {
      const a = await dig(server, q as string, type as string);
      return [a.status, rrs(a.answer), rrs(a.additional), rrs(a.authority).length];
    }));
    const packed = await answers();
    expect(packed[0]).toEqual(['NOERROR', [`${name}. 86400 MX 10 mail.${name}.`], [`mail.${name}. 86400 A 192.0.2.25`], 0]);
    // A change of the domain's settings other than its TTL has the zone read and built whole.
    await services.domains.update(alice, id, { description: 'rebuilt' });
    expect(await answers()).toEqual(packed);
  });

  needsDig.it('answers SERVFAIL for a zone whose load failed, without a store read for every query, until a load succeeds', async () => {
    const name = 'broken.startup.test';
    await zone(name, '192.0.2.1');
    const held = holdBulkReads();
    let singleReads = 0;
    services.store.listRecords = async () => {
      singleReads++;
      throw new Error('store unavailable');
    };
    dns = await startDns(services, { host: '127.0.0.1', port: 0, nameservers: NAMESERVERS, log: pino({ level: 'silent' }) });
    await held.started;
    const server = { dnsAddress: dns.address } as Parameters<typeof dig>[0];
    const failed = await dig(server, `www.${name}`, 'A');
    expect(failed.status).toBe('SERVFAIL');
    // For the person debugging, an Extended DNS Error (RFC 8914) says why.
    expect(failed.raw).toContain('; EDE: 14 (Not Ready): (the zone could not be loaded; retrying)');
    expect((await dig(server, `other.${name}`, 'A')).status).toBe('SERVFAIL');
    expect(singleReads).toBe(1);
    // The bulk read (which holds the zone's rows from before) succeeds, and the zone is served.
    held.release();
    await dns.zones.loaded;
    expect(rrs((await dig(server, `www.${name}`, 'A')).answer)).toEqual([`www.${name}. 86400 A 192.0.2.1`]);
  });

  needsDig.it('serves a zone changed during its bulk read as changed', async () => {
    const name = 'changed.startup.test';
    const id = await zone(name, '192.0.2.1');
    const held = holdBulkReads();
    dns = await startDns(services, { host: '127.0.0.1', port: 0, nameservers: NAMESERVERS, log: pino({ level: 'silent' }) });
    // The bulk read has the zone's rows from before the change in hand.
    await held.started;
    await services.records.create(alice, id, { type: 'A', name: 'new', ttl: 0, data: { address: '192.0.2.9' } });
    held.release();
    await dns.zones.loaded;
    const server = { dnsAddress: dns.address } as Parameters<typeof dig>[0];
    expect(rrs((await dig(server, `new.${name}`, 'A')).answer)).toEqual([`new.${name}. 86400 A 192.0.2.9`]);
  });
});

/** A zone with www, served by a DNS server with every zone in memory; `server` is that server for dig. */
async function servedZone(name: string): Promise<{ id: number; server: Parameters<typeof dig>[0] }> {
  const id = await zone(name, '192.0.2.1');
  const running = await startDns(services, { host: '127.0.0.1', port: 0, nameservers: NAMESERVERS, log: pino({ level: 'silent' }) });
  dns = running;
  await running.zones.loaded;
  return { id, server: { dnsAddress: running.address } as Parameters<typeof dig>[0] };
}

/** Counts the store reads of the DNS side's new zone versions from now on: whole zones, and patches' records at names. */
function countZoneReads(): { whole: number; patches: number } {
  const store = services.store;
  const counts = { whole: 0, patches: 0 };
  const whole = store.listRecords.bind(store);
  const atNames = store.recordsAtNames.bind(store);
  store.listRecords = (domainId: number) => {
    counts.whole++;
    return whole(domainId);
  };
  store.recordsAtNames = (domainId: number, names: readonly string[]) => {
    counts.patches++;
    return atNames(domainId, names);
  };
  return counts;
}

describe('DNS zone rebuilds', () => {
  needsDig.it('rebuild a zone once for a burst of writes nobody queried in between', async () => {
    const name = 'burst.startup.test';
    const { id, server } = await servedZone(name);
    // A new version reads the whole zone, or (a patch) the records at the names the changes touched.
    const reads = countZoneReads();
    const started = performance.now();
    for (let i = 0; i < 20; i++) {
      await services.records.create(alice, id, { type: 'A', name: `b${i}`, ttl: 0, data: { address: `192.0.2.${i + 10}` } });
      // Timers get their turn between writes (a SQLite write alone never yields to them).
      await new Promise((r) => setTimeout(r, 5));
    }
    const elapsed = performance.now() - started;
    await new Promise((r) => setTimeout(r, 400));
    // One rebuild per 100 ms of the burst at most (a burst straddles one boundary more), not one a write.
    const bound = Math.ceil(elapsed / 100) + 1;
    expect(bound).toBeLessThan(20); // else the burst was too slow to tell anything
    expect(reads.whole + reads.patches).toBeGreaterThan(0);
    expect(reads.whole + reads.patches).toBeLessThanOrEqual(bound);
    expect(rrs((await dig(server, `b19.${name}`, 'A')).answer)).toEqual([`b19.${name}. 86400 A 192.0.2.29`]);
  });

  needsDig.it('patch a zone at the names a write touched, never reading it whole again, and answer as if it were', async () => {
    const name = 'patch.startup.test';
    const { id, server } = await servedZone(name);
    const reads = countZoneReads();
    const deep = await services.records.create(alice, id, { type: 'TXT', name: 'a.b.c', ttl: 300, data: { text: 'deep' } });
    expect(rrs((await dig(server, `a.b.c.${name}`, 'TXT')).answer)).toEqual([`a.b.c.${name}. 300 TXT "deep"`]);
    // b.c exists (an empty non-terminal): NODATA, not NXDOMAIN.
    expect((await dig(server, `b.c.${name}`, 'A')).status).toBe('NOERROR');
    const www2 = await services.records.create(alice, id, { type: 'A', name: 'WWW', ttl: 300, data: { address: '192.0.2.2' } });
    // One RRset at one TTL, the lowest of its records, whatever the case of the owners.
    expect(rrs((await dig(server, `www.${name}`, 'A')).answer).sort()).toEqual([`www.${name}. 300 A 192.0.2.1`, `www.${name}. 300 A 192.0.2.2`]);
    await services.records.delete(alice, id, www2.id);
    expect(rrs((await dig(server, `www.${name}`, 'A')).answer)).toEqual([`www.${name}. 86400 A 192.0.2.1`]);
    await services.records.delete(alice, id, deep.id);
    expect((await dig(server, `a.b.c.${name}`, 'TXT')).status).toBe('NXDOMAIN');
    expect((await dig(server, `b.c.${name}`, 'A')).status).toBe('NXDOMAIN');
    // The SOA moved with every change.
    const serial = (await services.store.domainById(id))!.serial;
    expect(rrs((await dig(server, name, 'SOA')).answer)[0]).toContain(` ${serial} `);
    expect(reads.whole).toBe(0);
    // A change of the domain's settings reads it whole.
    await services.domains.update(alice, id, { ttl: 3600 });
    expect(rrs((await dig(server, `www.${name}`, 'A')).answer)).toEqual([`www.${name}. 3600 A 192.0.2.1`]);
    expect(reads.whole).toBe(1);
  });

  needsDig.it('patch a signed zone with the keys it was signed with, reading its DNSSEC state again only when that changed', async () => {
    await services.store.close();
    services = new Services(await openStore(db.url), DEFAULT_LIMITS, Date.now, { kek: randomBytes(32) });
    const a = await services.accounts.createUser('bob', 'pw');
    const bob: Actor = { ...alice, accountId: a.id, userId: a.id, username: 'bob' };
    const name = 'signed.startup.test';
    const d = await services.domains.create(bob, { domain: name, kind: 'master', soaEmail: `hostmaster@${name}` });
    await services.dnssec.set(bob, d.id, { enabled: true, algorithm: 'ECDSAP256SHA256' });
    const running = await startDns(services, { host: '127.0.0.1', port: 0, nameservers: NAMESERVERS, log: pino({ level: 'silent' }) });
    dns = running;
    await running.zones.loaded;
    const server = { dnsAddress: running.address } as Parameters<typeof dig>[0];
    const keys = async () => rrs((await dig(server, '+dnssec', name, 'DNSKEY')).answer).filter((r) => / \d+ DNSKEY /.test(r)).length;
    expect(await keys()).toBe(1);
    const reads = countZoneReads();
    let stateReads = 0;
    const state = services.store.dnssecOfDomains.bind(services.store);
    services.store.dnssecOfDomains = (first: number, last: number) => {
      stateReads++;
      return state(first, last);
    };
    await services.records.create(bob, d.id, { type: 'A', name: 'new', ttl: 300, data: { address: '192.0.2.7' } });
    const answer = rrs((await dig(server, '+dnssec', `new.${name}`, 'A')).answer);
    expect(answer[0]).toBe(`new.${name}. 300 A 192.0.2.7`);
    expect(answer.some((r) => / RRSIG A 13 /.test(r))).toBe(true);
    expect(await keys()).toBe(1);
    expect(reads).toEqual({ whole: 0, patches: 1 });
    expect(stateReads).toBe(0);
    // A rollover is a change of the DNSSEC state: the next version reads it (whole), with the new key published.
    await services.dnssec.rollover(bob, d.id);
    expect(await keys()).toBe(2);
    expect(reads.whole).toBe(1);
    expect(stateReads).toBeGreaterThan(0);
  });
});
