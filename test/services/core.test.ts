import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '../../src/model/errors.js';
import { Services, type Actor } from '../../src/services/index.js';
import { openStore } from '../../src/store/open.js';
import { freshDatabase } from '../support/server.js';

let services: Services;
let alice: Actor;
let bob: Actor;
let db: ReturnType<typeof freshDatabase>;

beforeEach(async () => {
  db = freshDatabase();
  services = new Services(await openStore(db.url));
  const a = await services.accounts.createUser('alice', 'pw');
  const b = await services.accounts.createUser('bob', 'pw');
  alice = { accountId: a.id, userId: a.id, role: 'owner', username: 'alice', keyLabel: '', iface: 'cli', remoteAddr: '127.0.0.1' };
  bob = { ...alice, accountId: b.id, userId: b.id, username: 'bob' };
});
afterEach(async () => {
  await services.store.close();
  await db.cleanup();
});

describe('core services', () => {
  it('bumps the serial on every change and journals it', async () => {
    const d = await services.domains.create(alice, { domain: 'Example.COM.', kind: 'master', soaEmail: 'h@example.com' });
    expect(d.domain).toBe('example.com');
    const r = await services.records.create(alice, d.id, { type: 'a', name: 'www', ttl: 0, data: { address: '192.0.2.1' } });
    const after = await services.domains.get(alice, d.id);
    expect(after.serial).toBeGreaterThan(d.serial);
    expect(r.type).toBe('A');
    const changes = await services.store.listJournal({ domainId: d.id });
    expect(changes.map((c) => c.action)).toEqual(['domain.create', 'record.create']);
  });

  it('hides other accounts and refuses duplicates service-wide', async () => {
    const d = await services.domains.create(alice, { domain: 'example.com', kind: 'master', soaEmail: 'h@example.com' });
    await expect(services.domains.get(bob, d.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(services.domains.create(bob, { domain: 'EXAMPLE.com', kind: 'master', soaEmail: 'h@example.com' })).rejects.toBeInstanceOf(ConflictError);
  });

  it('keeps CNAMEs exclusive and reports every problem', async () => {
    const d = await services.domains.create(alice, { domain: 'example.com', kind: 'master', soaEmail: 'h@example.com' });
    await services.records.create(alice, d.id, { type: 'CNAME', name: 'www', ttl: 0, data: { target: 'example.net' } });
    await expect(services.records.create(alice, d.id, { type: 'A', name: 'WWW', ttl: 0, data: { address: '192.0.2.1' } })).rejects.toBeInstanceOf(ConflictError);
    const err = await services.records.create(alice, d.id, { type: 'MX', name: 'bad name', ttl: -1, data: { mail_server: '' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).problems.map((p) => p.field).sort()).toEqual(['mail_server', 'name', 'ttl']);
  });

  it('lists records as they are now, also after changes made by another node on the same database', async () => {
    const other = new Services(await openStore(db.url));
    try {
      const d = await services.domains.create(alice, { domain: 'example.com', kind: 'master', soaEmail: 'h@example.com' });
      const a = await services.records.create(alice, d.id, { type: 'A', name: 'b', ttl: 0, data: { address: '192.0.2.1' } });
      const names = async () => (await services.records.list(alice, d.id)).map((r) => `${r.name} ${String(r.data.address)}`);
      expect(await names()).toEqual(['b 192.0.2.1']);
      // The caller may reorder what it gets without changing the next answer.
      await other.records.create(alice, d.id, { type: 'A', name: 'a', ttl: 0, data: { address: '192.0.2.2' } });
      const listed = await services.records.list(alice, d.id);
      listed.sort((x, y) => x.name.localeCompare(y.name));
      expect(await names()).toEqual(['b 192.0.2.1', 'a 192.0.2.2']);
      await other.records.update(alice, d.id, a.id, (current) => ({ ...current, data: { address: '192.0.2.9' } }));
      expect(await names()).toEqual(['b 192.0.2.9', 'a 192.0.2.2']);
      expect((await services.records.list(alice, d.id, { name: 'A' })).map((r) => r.data.address)).toEqual(['192.0.2.2']);
      expect((await services.records.list(alice, d.id, { after: a.id, limit: 1 })).map((r) => r.name)).toEqual(['a']);
      await other.records.delete(alice, d.id, a.id);
      expect(await names()).toEqual(['a 192.0.2.2']);
      await expect(services.records.list(bob, d.id)).rejects.toBeInstanceOf(NotFoundError);
    } finally {
      await other.store.close();
    }
  });
});

describe('audit trail', () => {
  it("returns an account's own changes with who, how, from where, before and after", async () => {
    const actor = { ...alice, keyLabel: 'laptop', iface: 'v3' as const, remoteAddr: '192.0.2.9' };
    const d = await services.domains.create(actor, { domain: 'example.com', kind: 'master', soaEmail: 'h@example.com' });
    await services.domains.update(actor, d.id, { ttl: 3600 });
    await services.domains.create(bob, { domain: 'bob.example', kind: 'master', soaEmail: 'h@bob.example' });
    const events = await services.audit.list(alice);
    expect(events.map((e) => e.action)).toEqual(['domain.create', 'domain.update']);
    expect(events[1]).toMatchObject({ keyLabel: 'laptop', iface: 'v3', remoteAddr: '192.0.2.9', domainId: d.id });
    expect((events[1]!.before as { ttl: number }).ttl).toBe(0);
    expect((events[1]!.after as { ttl: number }).ttl).toBe(3600);
    expect(await services.audit.list(bob, { domainId: d.id })).toEqual([]);
  });
});
