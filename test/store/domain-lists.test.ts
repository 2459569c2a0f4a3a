/**
 * Domain lists on the backend the suite runs on (SQLite, or PostgreSQL with DATABASE_URL, where a list comes
 * packed as JSON, and with its API key in one statement): every field comes back as stored, in id order, one
 * account's domains only, filtered and paged as asked; a key that is no key finds no domains. A list read with
 * its key again is the same (kept: store/kept-lists.ts) until a write, another node's or its own, changes one of
 * its rows (PostgreSQL) or the file (SQLite); nothing read inside a transaction is kept past its rollback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOMAIN_DEFAULTS, type DomainData, type StoredDomain } from '../../src/model/domain.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { freshDatabase } from '../support/server.js';

let store: Store;
let url: string;
let cleanup: () => Promise<void>;
const now = Date.now();

/** An account with its owner; its id. */
async function account(name: string): Promise<number> {
  const owner = await store.insertUser(0, { username: name, passwordHash: 'hash', role: 'owner', domains: null, invitationHash: null, invitationExpiresAt: null }, now);
  const made = await store.createAccount(name, 'hash', now, owner.id);
  await store.setUserAccount(owner.id, made.id);
  return made.id;
}

/** Values JSON, UTF-8 or a text format could get wrong, in every kind of field. */
const awkward = (name: string, i: number): DomainData => ({
  ...DOMAIN_DEFAULTS,
  domain: name,
  kind: i % 3 === 2 ? 'slave' : 'master',
  soaEmail: `hostmaster@${name}`,
  description: ['tab\there "quoted" \\ back', 'é ü 中文 🙂', '', '[1, {"a": null}]'][i % 4] as string,
  refresh: 3600 + i,
  retry: 0,
  expire: 2 ** 31 - 1,
  ttl: 300,
  status: (i % 3) as DomainData['status'],
  masterIps: i % 2 ? ['192.0.2.1', '2001:db8::1'] : [],
  axfrIps: ['198.51.100.0/24'],
  displayGroup: i % 2 ? 'group "one"' : '',
  masterTsig: i % 2 ? { name: 'key.example', algorithm: 'hmac-sha256', secret: 'c2VjcmV0' } : null,
  masterTls: i % 2 === 1,
  masterTlsAuth: i % 2 ? { name: 'primary.example', ca: null } : null,
  tags: i % 2 ? ['a', 'b c'] : [],
  primaryKind: i % 2 ? 'master' : 'native',
});

let mine: number;
let empty: number;
const stored: Awaited<ReturnType<Store['insertDomain']>>[] = [];

beforeAll(async () => {
  const db = freshDatabase();
  cleanup = db.cleanup;
  url = db.url;
  store = await openStore(url);
  mine = await account('lister');
  const other = await account('other');
  empty = await account('empty');
  for (let i = 0; i < 12; i++) {
    stored.push(await store.insertDomain(mine, awkward(`d${i}.example`, i), 2026112700 + i, now));
    await store.insertDomain(other, awkward(`o${i}.example`, i), 1, now);
  }
  await store.insertKey(mine, 'hash-mine', 'pfx', 'mine', now, null, {}, mine);
  await store.insertKey(empty, 'hash-empty', 'pfx', 'empty', now, null, {}, empty);
  await store.insertKey(mine, 'hash-expired', 'pfx', 'expired', now - 2000, now - 1000, {}, mine);
});
afterAll(async () => {
  await store?.close();
  await cleanup?.();
});

describe('domain lists', () => {
  it("lists an account's domains with every field as stored, in id order, and no other account's", async () => {
    expect(await store.listDomains(mine)).toEqual(stored);
  });

  it('filters by kind and name, and pages by id', async () => {
    expect(await store.listDomains(mine, { kind: 'slave' })).toEqual(stored.filter((d) => d.kind === 'slave'));
    expect(await store.listDomains(mine, { name: 'd5.example' })).toEqual([stored[5]]);
    expect(await store.listDomains(mine, { after: stored[3]?.id, limit: 4 })).toEqual(stored.slice(4, 8));
    expect(await store.listDomains(mine, { ids: [stored[7]?.id as number, stored[2]?.id as number] })).toEqual([stored[2], stored[7]]);
    expect(await store.listDomains(empty)).toEqual([]);
  });

  it('reads a key with its account’s domains as keyByHash and listDomains each do', async () => {
    const filters = [{}, { kind: 'master' as const }, { after: stored[5]?.id, limit: 3 }, { name: 'd1.example' }];
    for (const filter of filters) {
      const both = await store.keyWithDomains('hash-mine', now, filter);
      expect(both.key).toEqual(await store.keyByHash('hash-mine', now));
      expect(both.key?.accountId).toBe(mine);
      expect(both.domains).toEqual(await store.listDomains(mine, filter));
      expect(both.domains.length).toBeGreaterThan(0);
    }
    // One shape of filter, other values each time (PostgreSQL compiles the statement once per shape).
    for (const d of stored.slice(0, 6)) {
      expect((await store.keyWithDomains('hash-mine', now, { after: d.id, limit: 2, kind: 'master' })).domains).toEqual(await store.listDomains(mine, { after: d.id, limit: 2, kind: 'master' }));
    }
    const none = await store.keyWithDomains('hash-empty', now, {});
    expect(none.key?.accountId).toBe(empty);
    expect(none.domains).toEqual([]);
  });

  it("sees every change another node makes to a list it has read before, and hands out a list no caller can change", async () => {
    const other = await openStore(url);
    try {
      const watcher = await account('watcher');
      await store.insertKey(watcher, 'hash-watcher', 'pfx', 'watcher', now, null, {}, watcher);
      const made: StoredDomain[] = [];
      for (let i = 0; i < 3; i++) made.push(await store.insertDomain(watcher, awkward(`w${i}.example`, i), 1, now));
      const list = async (filter = {}) => (await store.keyWithDomains('hash-watcher', now, filter)).domains;
      const first = await list();
      expect(first).toEqual(made);
      // The list kept is handed out again while no row of it changed (PostgreSQL: the rows' versions; SQLite: the file's).
      expect(await list()).toBe(first);
      expect(await list()).toEqual(made);
      expect(() => (first as StoredDomain[]).push(made[0] as StoredDomain)).toThrow();
      expect(() => (first[0] as { serial: number }).serial++).toThrow();
      expect(() => (first[1]?.masterIps as string[]).push('192.0.2.9')).toThrow();

      await other.updateDomain(made[1]?.id as number, { ...awkward('w1.example', 1), description: 'changed elsewhere' }, now);
      expect((await list()).map((d) => d.description)).toEqual([made[0]?.description, 'changed elsewhere', made[2]?.description]);
      await other.bumpSerial(made[2]?.id as number, 2026112800);
      expect((await list())[2]?.serial).toBe(2026112800);
      const added = await other.insertDomain(watcher, awkward('w3.example', 3), 1, now);
      expect((await list()).map((d) => d.id)).toEqual([...made.map((d) => d.id), added.id]);
      expect((await list({ limit: 2, after: made[1]?.id })).map((d) => d.id)).toEqual([made[2]?.id, added.id]);
      await other.deleteDomain(made[0]?.id as number);
      expect((await list()).map((d) => d.id)).toEqual([made[1]?.id, made[2]?.id, added.id]);
      expect((await list({ limit: 2, after: made[1]?.id })).map((d) => d.id)).toEqual([made[2]?.id, added.id]);
      await other.deleteDomain(added.id);
      expect((await list({ limit: 2, after: made[1]?.id })).map((d) => d.id)).toEqual([made[2]?.id]);
    } finally {
      await other.close();
    }
  });

  it('sees its own writes, and keeps nothing read inside a transaction that is then rolled back', async () => {
    const owner = await account('own');
    await store.insertKey(owner, 'hash-own', 'pfx', 'own', now, null, {}, owner);
    const first = await store.insertDomain(owner, awkward('own0.example', 0), 1, now);
    const list = async () => (await store.keyWithDomains('hash-own', now, {})).domains;
    const read = await list();
    expect(read.map((d) => d.id)).toEqual([first.id]);
    expect(await list()).toBe(read);
    await store.updateDomain(first.id, { ...awkward('own0.example', 0), description: 'changed here' }, now);
    expect((await list()).map((d) => d.description)).toEqual(['changed here']);

    const rolledBack = store.transaction(async (tx) => {
      await tx.insertDomain(owner, awkward('own1.example', 1), 1, now);
      expect((await tx.keyWithDomains('hash-own', now, {})).domains.map((d) => d.domain)).toEqual(['own0.example', 'own1.example']);
      throw new Error('rolled back');
    });
    await expect(rolledBack).rejects.toThrow('rolled back');
    expect((await list()).map((d) => d.domain)).toEqual(['own0.example']);
  });

  it('finds neither key nor domains for an unknown or expired key', async () => {
    expect(await store.keyWithDomains('hash-unknown', now, {})).toEqual({ key: undefined, domains: [] });
    expect(await store.keyWithDomains('hash-expired', now, {})).toEqual({ key: undefined, domains: [] });
  });
});
