/**
 * services.copies (new domains from existing zones: the v4 door's clone) and the times Linode's v4 shows
 * (domains.times, records.times), on the store the suite runs on. Imports by AXFR need a primary: test/v4/copies.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../src/model/errors.js';
import { ChangesRejected } from '../../src/services/bulk-changes.js';
import { Services, type Actor } from '../../src/services/index.js';
import { ownerActor } from '../../src/services/actor.js';
import { openStore } from '../../src/store/open.js';
import { freshDatabase } from '../support/server.js';

let services: Services;
let alice: Actor;
let bob: Actor;
let db: ReturnType<typeof freshDatabase>;
let clock = 0;

beforeEach(async () => {
  clock = 1_700_000_000_000;
  db = freshDatabase();
  services = new Services(await openStore(db.url), undefined, () => clock);
  const a = await services.accounts.createUser('alice', 'pw');
  const b = await services.accounts.createUser('bob', 'pw');
  alice = ownerActor(a.id, 'alice', 'v4', '', '127.0.0.1');
  bob = { ...alice, accountId: b.id, userId: b.id, username: 'bob' };
});
afterEach(async () => {
  await services.store.close();
  await db.cleanup();
});

const source = async () => {
  const d = await services.domains.create(alice, { domain: 'source.example', kind: 'master', soaEmail: 'h@source.example', description: 'd', tags: ['prod'] });
  await services.records.create(alice, d.id, { type: 'A', name: 'www', ttl: 300, data: { address: '192.0.2.1' } });
  await services.records.create(alice, d.id, { type: 'TXT', name: '', ttl: 0, data: { text: 'hello' } });
  return d;
};

describe('a clone', () => {
  it('copies the settings and the records, the records in one journal entry', async () => {
    const d = await source();
    const copy = await services.copies.clone(alice, d.id, 'Copy.Example');
    expect(copy).toMatchObject({ domain: 'copy.example', kind: 'master', soaEmail: 'h@source.example', description: 'd', tags: ['prod'] });
    const strip = (rs: { type: string; name: string; ttl: number; data: unknown }[]) => rs.map(({ type, name, ttl, data }) => ({ type, name, ttl, data }));
    expect(strip(await services.records.list(alice, copy.id))).toEqual(strip(await services.records.list(alice, d.id)));
    const journal = await services.store.listJournal({ domainId: copy.id });
    expect(journal.map((c) => c.action)).toEqual(['domain.create', 'record.batch']);
  });

  it("is refused for another account's domain or a name taken, leaving nothing", async () => {
    const d = await source();
    await expect(services.copies.clone(bob, d.id, 'bobs.example')).rejects.toBeInstanceOf(NotFoundError);
    await expect(services.copies.clone(alice, d.id, 'source.example')).rejects.toBeInstanceOf(ConflictError);
    expect((await services.domains.list(alice)).map((x) => x.domain)).toEqual(['source.example']);
    expect(await services.domains.list(bob)).toEqual([]);
  });

  it('is deleted again when its records cannot be written', async () => {
    const d = await source();
    await services.operator.set('alice', { maxRecords: 1 });
    await expect(services.copies.clone(alice, d.id, 'copy.example')).rejects.toBeInstanceOf(ChangesRejected);
    expect((await services.domains.list(alice)).map((x) => x.domain)).toEqual(['source.example']);
  });
});

describe('times', () => {
  it("are when a domain or record was made and last changed, for the actor's own only", async () => {
    const d = await source();
    const [www] = await services.records.list(alice, d.id);
    clock += 60_000;
    await services.records.update(alice, d.id, (www as { id: number }).id, (r) => ({ ...r, ttl: 3600 }));
    await services.domains.update(alice, d.id, { description: 'changed' });
    const domains = await services.domains.times(alice);
    expect(domains.get(d.id)).toEqual({ created: 1_700_000_000_000, updated: 1_700_000_060_000 });
    expect(await services.domains.times(bob)).toEqual(new Map());
    const other = await services.domains.create(alice, { domain: 'other.example', kind: 'master', soaEmail: 'h@other.example' });
    const scoped: Actor = { ...alice, key: { id: 1, scope: { domains: [other.id] }, expiresAt: null } };
    expect([...(await services.domains.times(scoped)).keys()]).toEqual([other.id]);
    const records = await services.records.times(alice, d.id);
    expect(records.get((www as { id: number }).id)).toEqual({ created: 1_700_000_000_000, updated: 1_700_000_060_000 });
    expect(records.size).toBe(2);
    await expect(services.records.times(bob, d.id)).rejects.toBeInstanceOf(NotFoundError);
  });
});
