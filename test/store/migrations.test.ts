/** Migrations that rewrite stored data, on the backend the suite runs on (SQLite, or PostgreSQL with DATABASE_URL). */
import { Kysely, Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DOMAIN_DEFAULTS, type DomainData } from '../../src/model/domain.js';
import { storeOps } from '../../src/store/compose.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import { openStore, sqlitePath } from '../../src/store/open.js';
import { UniqueViolation } from '../../src/store/store.js';
import { createPool, parsePostgresUrl, postgresDialect, waitForDatabase } from '../../src/store/postgres/dialect.js';
import type { Database } from '../../src/store/schema.js';
import { openSqlite } from '../../src/store/sqlite/dialect.js';
import { KeptLists } from '../../src/store/kept-lists.js';
import { sqliteSql } from '../../src/store/sqlite/sql.js';
import { freshDatabase } from '../support/server.js';

/** The database at `url` migrated up to `last` only, as an older release left it. */
async function olderDatabase(url: string, last: string): Promise<Kysely<Database>> {
  const path = sqlitePath(url);
  const parsed = path === null ? parsePostgresUrl(url) : null;
  if (parsed) await waitForDatabase(parsed, {});
  const db = new Kysely<Database>({ dialect: parsed ? postgresDialect(createPool(parsed, {})) : openSqlite(path as string) });
  const migrator = new Migrator({ db, provider: migrationProvider, ...(parsed?.schema ? { migrationTableSchema: parsed.schema } : {}) });
  const { error } = await migrator.migrateTo(last);
  if (error) throw error;
  return db;
}

/** A record as releases from 004_record_data to 013_records_domain_check stored it. */
async function oldRecord(trx: Kysely<Database>, domainId: number, name: string, data: Record<string, unknown>): Promise<void> {
  await trx.insertInto('records').values({ domain_id: domainId, type: 'A', name, ttl: 0, data: JSON.stringify(data), created_at: 1, updated_at: 1 } as never).execute();
}

/** Interface A's columns, as releases before 004_record_data stored every record. */
const oldColumns = { priority: 10, weight: 5, port: 80, protocol: '', ttl: 0, tag: '' };

const rethrow = (e: unknown): never => {
  throw e;
};

/** Today's store operations in a transaction on an older database (what they write needs no dialect's own SQL; errors pass unchanged). */
const opsOf = (trx: Kysely<Database>) => storeOps(trx, { ...sqliteSql(new KeptLists()), mapError: rethrow });

/** A domain row with the columns of 001_initial only, as older releases wrote one (today's insertDomain writes later columns too). */
async function oldDomain(trx: Kysely<Database>, accountId: number, d: Partial<DomainData> & Pick<DomainData, 'domain' | 'kind'>): Promise<{ id: number }> {
  const v = { ...DOMAIN_DEFAULTS, ...d };
  const row = await trx
    .insertInto('domains')
    .values({
      account_id: accountId, domain: v.domain, kind: v.kind, soa_email: v.soaEmail, description: v.description, refresh: v.refresh, retry: v.retry,
      expire: v.expire, ttl: v.ttl, status: v.status, master_ips: JSON.stringify(v.masterIps), axfr_ips: JSON.stringify(v.axfrIps),
      display_group: v.displayGroup, serial: 1, created_at: 1, updated_at: 1,
    } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: Number(row.id) };
}

describe('003_canonical_aaaa', () => {
  it('rewrites stored AAAA targets to canonical text, over more than one page of rows, and leaves other records alone', async () => {
    const { url, cleanup } = freshDatabase();
    try {
      const db = await olderDatabase(url, '002_mirrors');
      // Written as the older release stored them: AAAA targets as the client spelled them.
      const spelled = Array.from({ length: 1500 }, (_, i) => `2001:0DB8:0:0::${(i + 1).toString(16).toUpperCase()}`);
      const domainId = await db.transaction().execute(async (trx) => {
        const ops = opsOf(trx);
        const account = await ops.createAccount('alice', 'hash', 1);
        const domain = await oldDomain(trx, account.id, { domain: 'old.example', kind: 'master' });
        const insert = (type: string, name: string, target: string) =>
          trx.insertInto('records').values({ domain_id: domain.id, type, name, ...oldColumns, target, created_at: 1, updated_at: 1 } as never).execute();
        for (const [i, target] of spelled.entries()) await insert('AAAA', `v${i}`, target);
        await insert('AAAA', 'mapped', '::FFFF:192.0.2.1');
        await insert('CNAME', 'c', 'Mixed.Example.NET');
        return domain.id;
      });
      await db.destroy();

      const store = await openStore(url);
      try {
        const targets = (await store.listRecords(domainId)).map((r) => r.data.address ?? r.data.target);
        expect(targets).toEqual([...spelled.map((_, i) => `2001:db8::${(i + 1).toString(16)}`), '::ffff:192.0.2.1', 'Mixed.Example.NET']);
      } finally {
        await store.close();
      }
    } finally {
      await cleanup();
    }
  });
});

describe('004_record_data', () => {
  it("moves every record's fields from interface A's columns into its type's own, journal images too, and drops mirrors' old copies", async () => {
    const { url, cleanup } = freshDatabase();
    try {
      const db = await olderDatabase(url, '003_canonical_aaaa');
      const { domainId, mirrorId } = await db.transaction().execute(async (trx) => {
        const ops = opsOf(trx);
        const account = await ops.createAccount('alice', 'hash', 1);
        const domain = await oldDomain(trx, account.id, { domain: 'old.example', kind: 'master' });
        const mirror = await oldDomain(trx, account.id, { domain: 'mirror.example', kind: 'slave', masterIps: ['192.0.2.53'] });
        const insert = (row: Record<string, unknown>) =>
          trx.insertInto('records').values({ domain_id: domain.id, ...oldColumns, created_at: 1, updated_at: 1, ...row } as never).execute();
        await insert({ type: 'A', name: 'www', target: '192.0.2.1', priority: 20, ttl: 3600 });
        await insert({ type: 'MX', name: '', target: 'mx.old.example', priority: 5 });
        await insert({ type: 'SRV', name: '_sip._tcp', target: 'sip.old.example', priority: 1, weight: 2, port: 5060, protocol: 'tcp' });
        await insert({ type: 'CAA', name: '', target: 'letsencrypt.org', priority: 0, tag: 'issue' });
        await insert({ type: 'TXT', name: 'txt', target: 'v=spf1 -all' });
        await insert({ type: 'NS', name: 'sub', target: 'ns.elsewhere.example' });
        const image = (target: string) => JSON.stringify({ id: 1, domainId: domain.id, type: 'A', name: 'www', ...oldColumns, target });
        await trx
          .insertInto('changes')
          .values({ domain_id: domain.id, account_id: account.id, serial: 2, at: 1, action: 'record.update', object_id: 1, key_label: '', iface: 'v3', remote_addr: '', before: image('192.0.2.9'), after: image('192.0.2.1') } as never)
          .execute();
        await ops.saveMirrorState({ domainId: mirror.id, serial: 7, lastSuccess: 1, lastAttempt: 1, lastError: null, zone: '{"soa":{"type":"SOA"},"answers":[]}' });
        return { domainId: domain.id, mirrorId: mirror.id };
      });
      await db.destroy();

      const store = await openStore(url);
      try {
        expect((await store.listRecords(domainId)).map(({ type, name, ttl, data }) => ({ type, name, ttl, data }))).toEqual([
          { type: 'A', name: 'www', ttl: 3600, data: { address: '192.0.2.1' } },
          { type: 'MX', name: '', ttl: 0, data: { priority: 5, mail_server: 'mx.old.example' } },
          { type: 'SRV', name: '_sip._tcp', ttl: 0, data: { priority: 1, weight: 2, port: 5060, target: 'sip.old.example' } },
          { type: 'CAA', name: '', ttl: 0, data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' } },
          { type: 'TXT', name: 'txt', ttl: 0, data: { text: 'v=spf1 -all' } },
          { type: 'NS', name: 'sub', ttl: 0, data: { nameserver: 'ns.elsewhere.example' } },
        ]);
        const [change] = await store.listJournal({ domainId });
        expect(change?.before).toEqual({ id: 1, domainId, type: 'A', name: 'www', ttl: 0, data: { address: '192.0.2.9' } });
        expect(change?.after).toMatchObject({ data: { address: '192.0.2.1' } });
        expect(await store.mirrorState(mirrorId)).toMatchObject({ serial: null, zone: null, lastSuccess: 1 });
      } finally {
        await store.close();
      }
    } finally {
      await cleanup();
    }
  });
});

describe('004_record_data, every type', () => {
  it("gives each type the fields interface A's mapping gave it when 004 was written, and other types their target", async () => {
    const { url, cleanup } = freshDatabase();
    try {
      const db = await olderDatabase(url, '003_canonical_aaaa');
      const domainId = await db.transaction().execute(async (trx) => {
        const account = await opsOf(trx).createAccount('alice', 'hash', 1);
        const domain = await oldDomain(trx, account.id, { domain: 'old.example', kind: 'master' });
        const insert = (row: Record<string, unknown>) =>
          trx.insertInto('records').values({ domain_id: domain.id, ...oldColumns, created_at: 1, updated_at: 1, ...row } as never).execute();
        await insert({ type: 'A', name: 'here', target: '[remote_addr]' });
        await insert({ type: 'AAAA', name: 'v6', target: '2001:db8::1' });
        await insert({ type: 'CNAME', name: 'alias', target: 'www.old.example' });
        await insert({ type: 'SRV', name: '_sip._udp.old.example', target: 'sip.old.example', priority: 3, weight: 4, port: 5061, protocol: 'udp' });
        await insert({ type: 'CAA', name: 'caa', target: 'ca.example', tag: 'iodef' });
        await insert({ type: 'PTR', name: '1', target: 'host.old.example' });
        return domain.id;
      });
      await db.destroy();

      const store = await openStore(url);
      try {
        expect((await store.listRecords(domainId)).map(({ type, name, data }) => ({ type, name, data }))).toEqual([
          { type: 'A', name: 'here', data: { address: '[remote_addr]' } },
          { type: 'AAAA', name: 'v6', data: { address: '2001:db8::1' } },
          { type: 'CNAME', name: 'alias', data: { target: 'www.old.example' } },
          { type: 'SRV', name: '_sip._udp.old.example', data: { priority: 3, weight: 4, port: 5061, target: 'sip.old.example' } },
          { type: 'CAA', name: 'caa', data: { flags: 0, tag: 'iodef', value: 'ca.example' } },
          { type: 'PTR', name: '1', data: { target: 'host.old.example' } },
        ]);
      } finally {
        await store.close();
      }
    } finally {
      await cleanup();
    }
  });
});

describe('005_tsig_keys', () => {
  it('keeps existing domains (with no master key), and adds keys whose names are unique across accounts', async () => {
    const { url, cleanup } = freshDatabase();
    try {
      const db = await olderDatabase(url, '004_record_data');
      const { mirrorId, alice, bob } = await db.transaction().execute(async (trx) => {
        const ops = opsOf(trx);
        const alice = await ops.createAccount('alice', 'hash', 1);
        const bob = await ops.createAccount('bob', 'hash', 1);
        const mirror = await oldDomain(trx, alice.id, { domain: 'mirror.example', kind: 'slave', masterIps: ['192.0.2.53'] });
        return { mirrorId: mirror.id, alice: alice.id, bob: bob.id };
      });
      await db.destroy();

      const store = await openStore(url);
      try {
        const mirror = await store.domainById(mirrorId);
        expect(mirror).toMatchObject({ domain: 'mirror.example', masterTsig: null });
        const ref = { name: 'master.example', algorithm: 'hmac-sha256' as const, secret: 'c2VjcmV0LXNlY3JldC1zZWNyZXQ=' };
        await store.updateDomain(mirrorId, { ...(mirror as DomainData), masterTsig: ref }, 2);
        expect((await store.domainById(mirrorId))?.masterTsig).toEqual(ref);

        const data = { name: 'acme.example.com', algorithm: 'hmac-sha256' as const, domains: [mirrorId], update: { names: ['_acme-challenge'], types: ['TXT'] }, transfer: true };
        const key = await store.insertTsigKey(alice, data, 'c2VjcmV0LXNlY3JldC1zZWNyZXQ=', 5);
        expect(await store.tsigKeyByName('acme.example.com')).toEqual({
          ...data, id: key.id, accountId: alice, secret: 'c2VjcmV0LXNlY3JldC1zZWNyZXQ=', createdAt: 5, account: 'alice', accountStatus: 'active',
          userId: alice, member: { id: alice, username: 'alice', role: 'owner', domains: null }, memberHeld: false,
        });
        await expect(store.insertTsigKey(bob, data, 'c2VjcmV0LXNlY3JldC1zZWNyZXQ=', 5)).rejects.toBeInstanceOf(UniqueViolation);
        expect(await store.tsigKey(bob, key.id)).toBeUndefined();
        expect(await store.deleteTsigKey(bob, key.id)).toBe(false);
        expect(await store.deleteTsigKey(alice, key.id)).toBe(true);
        expect(await store.tsigKeyByName('acme.example.com')).toBeUndefined();
      } finally {
        await store.close();
      }
    } finally {
      await cleanup();
    }
  });
});

describe('013_records_domain_check', () => {
  it("keeps the records an older release stored; on PostgreSQL trades records' foreign key for triggers, and back down", async () => {
    const { url, cleanup } = freshDatabase();
    try {
      const db = await olderDatabase(url, '012_mirror_tls');
      const domainId = await db.transaction().execute(async (trx) => {
        const ops = opsOf(trx);
        const account = await ops.createAccount('erin', 'hash', 1);
        const d = await oldDomain(trx, account.id, { domain: 'kept.example', kind: 'master' });
        // As that release wrote it: the live store also writes the columns added since (019's steering).
        await oldRecord(trx, d.id, 'www', { address: '192.0.2.1' });
        return d.id;
      });
      const postgres = sqlitePath(url) === null;
      const schema = postgres ? parsePostgresUrl(url).schema : null;
      const foreignKeys = async () => (await sql<{ n: number }>`select count(*)::int as n from pg_constraint where conrelid = 'records'::regclass and contype = 'f'`.execute(db)).rows[0]?.n;
      const migrator = new Migrator({ db, provider: migrationProvider, ...(schema ? { migrationTableSchema: schema } : {}) });
      expect((await migrator.migrateTo('013_records_domain_check')).error).toBeUndefined();
      if (postgres) expect(await foreignKeys()).toBe(0);
      expect((await migrator.migrateDown()).error).toBeUndefined();
      if (postgres) expect(await foreignKeys()).toBe(1);
      expect((await migrator.migrateTo('013_records_domain_check')).error).toBeUndefined();
      await db.destroy();
      const store = await openStore(url);
      try {
        expect((await store.listRecords(domainId)).map((r) => r.name)).toEqual(['www']);
        await store.deleteDomain(domainId);
        expect(await store.countAllRecords()).toBe(0);
      } finally {
        await store.close();
      }
    } finally {
      await cleanup();
    }
  });
});

describe('019_healthchecks', () => {
  it('keeps the records an older release stored, without steering; adds health checks, and back down', async () => {
    const { url, cleanup } = freshDatabase();
    try {
      const db = await olderDatabase(url, '013_records_domain_check');
      const { domainId, accountId } = await db.transaction().execute(async (trx) => {
        const account = await opsOf(trx).createAccount('fay', 'hash', 1);
        const d = await oldDomain(trx, account.id, { domain: 'older.example', kind: 'master' });
        await oldRecord(trx, d.id, 'www', { address: '192.0.2.1' });
        return { domainId: d.id, accountId: account.id };
      });
      const schema = sqlitePath(url) === null ? parsePostgresUrl(url).schema : null;
      const migrator = new Migrator({ db, provider: migrationProvider, ...(schema ? { migrationTableSchema: schema } : {}) });
      expect((await migrator.migrateTo('019_healthchecks')).error).toBeUndefined();
      expect((await migrator.migrateDown()).error).toBeUndefined();
      await db.destroy();
      const store = await openStore(url);
      try {
        const [www] = await store.listRecords(domainId);
        expect(www).toEqual({ id: www?.id, domainId, type: 'A', name: 'www', ttl: 0, data: { address: '192.0.2.1' } });
        const check = await store.insertHealthCheck(accountId, { type: 'tcp', address: '192.0.2.7', port: 443, path: '/', host: '', interval: 10, timeout: 0.5, fall: 3, rise: 2 }, 1);
        expect(check).toMatchObject({ status: 'unknown', changedAt: null, timeout: 0.5 });
        await store.insertRecords(domainId, [{ type: 'A', name: 'www', ttl: 0, data: { address: '192.0.2.2' }, steering: { healthcheck: check.id, subnets: ['10.0.0.0/8'] } }], 2);
        expect((await store.listRecords(domainId)).map((r) => r.steering ?? null)).toEqual([null, { healthcheck: check.id, subnets: ['10.0.0.0/8'] }]);
        expect(await store.domainsUsingCheck(accountId, check.id)).toEqual([{ id: domainId, domain: 'older.example' }]);
        // Many at once (PostgreSQL: unnest from 2 records, COPY from 3,000) keep steering, and its absence.
        for (const n of [2, 3000]) {
          const many = Array.from({ length: n }, (_, i) => ({ type: 'A', name: `m${n}-${i}`, ttl: 0, data: { address: '192.0.2.3' }, ...(i === 0 ? { steering: { weight: n } } : {}) }));
          const stored = await store.insertRecords(domainId, many, 3);
          expect(stored[0]?.steering).toEqual({ weight: n });
          const read = (await store.listRecords(domainId)).filter((r) => r.name.startsWith(`m${n}-`));
          expect(read.filter((r) => r.steering).map((r) => [r.name, r.steering])).toEqual([[`m${n}-0`, { weight: n }]]);
        }
      } finally {
        await store.close();
      }
    } finally {
      await cleanup();
    }
  });
});

describe('011_account_controls', () => {
  it('leaves existing accounts active, with the node\'s limits, and lets the operator set both', async () => {
    const { url, cleanup } = freshDatabase();
    try {
      const db = await olderDatabase(url, '010_cookie_secrets');
      await db.insertInto('accounts').values({ username: 'alice', password_hash: 'hash', created_at: 1 } as never).execute();
      await db.destroy();

      const store = await openStore(url);
      try {
        const alice = await store.accountByName('alice');
        expect(alice).toMatchObject({ username: 'alice', status: 'active', maxDomains: null, maxRecords: null });
        await store.setAccountControls(alice!.id, { status: 'suspended', maxDomains: 2 });
        expect(await store.listAccounts()).toEqual([{ id: alice!.id, name: 'alice', members: 1, domains: 0, records: 0, status: 'suspended', maxDomains: 2, maxRecords: null }]);
      } finally {
        await store.close();
      }
    } finally {
      await cleanup();
    }
  });
});

describe('014_members', () => {
  it("gives each account one member, its owner, with the account's id, name and password; keys keep working as the owner's; new ids never collide", async () => {
    const { url, cleanup } = freshDatabase();
    try {
      const db = await olderDatabase(url, '013_records_domain_check');
      const { alice, bob } = await db.transaction().execute(async (trx) => {
        const ops = opsOf(trx);
        const alice = await ops.createAccount('alice', 'alice-hash', 1);
        const bob = await ops.createAccount('bob', 'bob-hash', 2);
        await trx.insertInto('api_keys').values({ account_id: bob.id, key_hash: 'bob-key', prefix: 'bobkey', label: 'old', created_at: 2, expires_at: null, scope: '{}' } as never).execute();
        await trx
          .insertInto('tsig_keys')
          .values({ account_id: bob.id, name: 'old.example', algorithm: 'hmac-sha256', secret: 'c2VjcmV0LXNlY3JldC1zZWNyZXQ=', domains: '[]', update_scope: 'true', transfer: 0, created_at: 2 } as never)
          .execute();
        return { alice: alice.id, bob: bob.id };
      });
      await db.destroy();

      const store = await openStore(url);
      try {
        expect(await store.userByName('bob')).toMatchObject({ id: bob, accountId: bob, username: 'bob', role: 'owner', domains: null, passwordHash: 'bob-hash', accountName: 'bob' });
        expect((await store.listUsers(alice)).map((u) => [u.id, u.username, u.role])).toEqual([[alice, 'alice', 'owner']]);
        expect(await store.keyByHash('bob-key', 3)).toMatchObject({ accountId: bob, userId: bob, member: { username: 'bob', role: 'owner', domains: null } });
        expect(await store.tsigKeyByName('old.example')).toMatchObject({ userId: bob, member: { id: bob, username: 'bob', role: 'owner' } });
        // A member, then a new account: fresh ids, past every account id, from one sequence.
        const member = await store.insertUser(alice, { username: 'carol', passwordHash: '', role: 'viewer', domains: null, invitationHash: null, invitationExpiresAt: null }, 4);
        expect(member.id).toBeGreaterThan(bob);
        const dave = await store.transaction(async (tx) => {
          const owner = await tx.insertUser(0, { username: 'dave', passwordHash: 'h', role: 'owner', domains: null, invitationHash: null, invitationExpiresAt: null }, 5);
          const account = await tx.createAccount('dave', 'h', 5, owner.id);
          await tx.setUserAccount(owner.id, account.id);
          return { owner, account };
        });
        expect(dave.account.id).toBe(dave.owner.id);
        expect(dave.account.id).toBeGreaterThan(member.id);
        expect((await store.listAccounts('alice'))[0]?.members).toBe(2);
      } finally {
        await store.close();
      }
    } finally {
      await cleanup();
    }
  });
});

describe('015_second_factors', () => {
  it('leaves existing accounts without require_2fa and existing keys labelled API keys (not sessions), and goes back down', async () => {
    const { url, cleanup } = freshDatabase();
    try {
      const db = await olderDatabase(url, '013_records_domain_check');
      const account = await db.insertInto('accounts').values({ username: 'vera', password_hash: 'hash', created_at: 1 } as never).returning('id').executeTakeFirstOrThrow();
      await db
        .insertInto('api_keys')
        .values({ account_id: account.id, key_hash: 'h', prefix: 'abcdef', label: 'control panel (browser)', created_at: 1, expires_at: null, scope: '{}' } as never)
        .execute();
      const schema = sqlitePath(url) === null ? parsePostgresUrl(url).schema : null;
      const migrator = new Migrator({ db, provider: migrationProvider, ...(schema ? { migrationTableSchema: schema } : {}) });
      expect((await migrator.migrateTo('015_second_factors')).error).toBeUndefined();
      expect((await migrator.migrateDown()).error).toBeUndefined();
      expect((await migrator.migrateTo('015_second_factors')).error).toBeUndefined();
      await db.destroy();
      const store = await openStore(url);
      try {
        const id = Number(account.id);
        expect((await store.accountById(id))?.requireTwoFactor).toBe(false);
        expect((await store.listKeys(id, 2)).map((k) => k.session)).toEqual([false]);
        // An old panel key is not a session: a password change leaves it (its label proves nothing).
        expect(await store.deleteSessionKeys(id)).toBe(0);
        expect(await store.hasSecondFactor(id)).toBe(false);
      } finally {
        await store.close();
      }
    } finally {
      await cleanup();
    }
  });
});

describe('016_primary_kind', () => {
  it("makes every domain an older release stored a Native one, and keeps the kind it is given", async () => {
    const { url, cleanup } = freshDatabase();
    try {
      const db = await olderDatabase(url, '013_records_domain_check');
      const domainId = await db.transaction().execute(async (trx) => {
        const account = await opsOf(trx).createAccount('fay', 'hash', 1);
        return (await oldDomain(trx, account.id, { domain: 'older.example', kind: 'master' })).id;
      });
      await db.destroy();
      const store = await openStore(url);
      try {
        const before = await store.domainById(domainId);
        if (!before) throw new Error('the older domain is gone');
        expect(before.primaryKind).toBe('native');
        await store.updateDomain(domainId, { ...before, primaryKind: 'master' }, 2);
        expect((await store.domainById(domainId))?.primaryKind).toBe('master');
      } finally {
        await store.close();
      }
    } finally {
      await cleanup();
    }
  });
});

describe('022_records_insert_cost', () => {
  it("finds an older release's records by name whatever their case, by the name index on PostgreSQL; checks records' domains as before, and back down", async () => {
    const { url, cleanup } = freshDatabase();
    try {
      const db = await olderDatabase(url, '021_mirror_tls_auth');
      const { domainId, otherId } = await db.transaction().execute(async (trx) => {
        const account = await opsOf(trx).createAccount('gus', 'hash', 1);
        const d = await oldDomain(trx, account.id, { domain: 'older.example', kind: 'master' });
        const other = await oldDomain(trx, account.id, { domain: 'other.example', kind: 'master' });
        await oldRecord(trx, d.id, 'WWW', { address: '192.0.2.1' });
        await oldRecord(trx, d.id, 'Mail', { address: '192.0.2.2' });
        return { domainId: d.id, otherId: other.id };
      });
      const postgres = sqlitePath(url) === null;
      const schema = postgres ? parsePostgresUrl(url).schema : null;
      const migrator = new Migrator({ db, provider: migrationProvider, ...(schema ? { migrationTableSchema: schema } : {}) });
      const collation = async () =>
        (await sql<{ c: string | null }>`select collation_name as c from information_schema.columns where table_schema = current_schema() and table_name = 'records' and column_name = 'name'`.execute(db)).rows[0]?.c;
      // The plan of recordsAtNames's query, sequential scans ruled out (two records would not need the index otherwise).
      const plan = () =>
        db.connection().execute(async (c) => {
          await sql`set enable_seqscan = off`.execute(c);
          const rows = (await sql<{ 'QUERY PLAN': string }>`explain select id from records where domain_id = ${domainId} and lower(name) in (${'www'}, ${'mail'})`.execute(c)).rows;
          await sql`reset enable_seqscan`.execute(c);
          return rows.map((r) => r['QUERY PLAN']).join('\n');
        });
      const insertBoth = (a: number, b: number) =>
        sql`insert into records (domain_id, type, name, ttl, data, created_at, updated_at) values (${a}, 'A', 'x', 0, '{}', 1, 1), (${b}, 'A', 'y', 0, '{}', 1, 1)`.execute(db);
      expect((await migrator.migrateTo('022_records_insert_cost')).error).toBeUndefined();
      if (postgres) {
        expect(await collation()).toBe('C');
        expect(await plan()).toContain('records_domain_name');
        // One domain's rows (the one-scan check) and two domains' (the check of 013), each with a domain missing.
        await expect(insertBoth(999_999, 999_999)).rejects.toMatchObject({ code: '23503' });
        await expect(insertBoth(domainId, 999_999)).rejects.toMatchObject({ code: '23503' });
        await insertBoth(domainId, otherId);
        await insertBoth(otherId, otherId);
        await sql`delete from records where name in ('x', 'y')`.execute(db);
      }
      expect((await migrator.migrateDown()).error).toBeUndefined();
      if (postgres) expect(await collation()).toBe(null);
      expect((await migrator.migrateTo('022_records_insert_cost')).error).toBeUndefined();
      await db.destroy();
      const store = await openStore(url);
      try {
        expect((await store.recordsAt(domainId, 'www')).map((r) => r.name)).toEqual(['WWW']);
        expect((await store.recordsAt(domainId, 'WwW')).map((r) => r.name)).toEqual(['WWW']);
        expect((await store.recordsAtNames(domainId, ['mail', 'www'])).map((r) => r.name)).toEqual(['WWW', 'Mail']);
      } finally {
        await store.close();
      }
    } finally {
      await cleanup();
    }
  });
});
