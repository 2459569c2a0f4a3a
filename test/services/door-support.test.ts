/**
 * What the services give doors that name things otherwise than by id (the PowerDNS door): a change list made
 * from the zone's records as read under the domain's lock, and the DNSSEC status of many zones in one read.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Services, type Actor } from '../../src/services/index.js';
import { ownerActor } from '../../src/services/actor.js';
import { openStore } from '../../src/store/open.js';
import { freshDatabase } from '../support/server.js';

let services: Services;
let alice: Actor;
let bob: Actor;
let db: ReturnType<typeof freshDatabase>;

beforeEach(async () => {
  db = freshDatabase();
  services = new Services(await openStore(db.url), undefined, undefined, { kek: randomBytes(32) });
  const a = await services.accounts.createUser('alice', 'pw');
  const b = await services.accounts.createUser('bob', 'pw');
  alice = ownerActor(a.id, 'alice', 'pdns', '', '127.0.0.1');
  bob = { ...alice, accountId: b.id, username: 'bob' };
});
afterEach(async () => {
  await services.store.close();
  await db.cleanup();
});

const master = (actor: Actor, domain: string) => services.domains.create(actor, { domain, kind: 'master', soaEmail: `h@${domain}` });

describe('bulk changes made from the stored records', () => {
  it('hands the function the records under the lock and applies what it returns as one write', async () => {
    const d = await master(alice, 'example.com');
    const a = await services.records.create(alice, d.id, { type: 'A', name: 'www', ttl: 0, data: { address: '192.0.2.1' } });
    const seen: number[] = [];
    const { outcomes, serial } = await services.changes.apply(alice, d.id, (stored, domain) => {
      seen.push(...stored.map((r) => r.id));
      expect(domain.id).toBe(d.id);
      return [
        { op: 'delete', type: 'A', id: stored[0]?.id, fields: {} },
        { op: 'create', type: 'A', fields: { name: 'www', address: '192.0.2.2' } },
      ];
    });
    expect(seen).toEqual([a.id]);
    expect(outcomes.map((o) => o.op)).toEqual(['delete', 'create']);
    expect(serial).toBeGreaterThan(d.serial);
    expect((await services.records.list(alice, d.id)).map((r) => r.data.address)).toEqual(['192.0.2.2']);
    const journal = await services.store.listJournal({ domainId: d.id });
    expect(journal.map((j) => j.action)).toEqual(['domain.create', 'record.create', 'record.batch']);
  });

  it('writes nothing, and keeps the serial, when the function returns no change', async () => {
    const d = await master(alice, 'example.com');
    const { serial } = await services.changes.apply(alice, d.id, () => []);
    expect(serial).toBe(d.serial);
    expect((await services.store.listJournal({ domainId: d.id })).map((j) => j.action)).toEqual(['domain.create']);
  });
});

describe('DNSSEC statuses of many zones', () => {
  it("answers each of the actor's zones, and none of another account's", async () => {
    const signed = await master(alice, 'signed.example');
    const plain = await master(alice, 'plain.example');
    const other = await master(bob, 'other.example');
    await services.dnssec.set(alice, signed.id, { enabled: true });
    await services.dnssec.set(bob, other.id, { enabled: true });
    const statuses = await services.dnssec.statuses(alice, [signed, plain, other]);
    expect([...statuses]).toEqual([[signed.id, 'signed']]);
    expect(statuses.get(plain.id)).toBeUndefined();
    expect(await services.dnssec.statuses(alice, [])).toEqual(new Map());
  });
});
