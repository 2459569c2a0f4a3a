/**
 * Interface B's DNSSEC sub-resource (/v1/domains/{id}/dnssec) over HTTP, with timings of a second or two:
 * turning signing on and off, rollovers (also of the algorithm) through their states, what the DNS side
 * reads (services.zones.signing), private keys never shown and sealed at rest, and the key-encryption key.
 */
import { execFileSync } from 'node:child_process';
import { createPublicKey, randomBytes, sign, verify } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { dsDigest, keyTag, type ZoneSigning } from '../../src/model/dnssec.js';
import { startServer } from '../../src/server.js';
import { sqlitePath } from '../../src/store/open.js';
import { parsePostgresUrl } from '../../src/store/postgres/dialect.js';
import { betterSqlite3 } from '../../src/store/sqlite/better-sqlite3.js';
import { dig } from '../dns/support.js';
import { backend, freshDatabase, startTestServer, type TestServer } from '../support/server.js';
import { call, client, expectProblem, problemFields, type Client } from './support.js';
import { peers } from '../support/peers.js';

const needsDnssecDsfromkey = peers('dnssec-dsfromkey');
const needsDig = peers('dig');

/** Short waits: a rollover takes about 3 s, turning off about 2 s. */
const TIMINGS = { dnskeyTtl: 1, dsTtl: 2, propagation: 0 };
const FAST: Partial<Config> = { dnssec: TIMINGS, dnssecTickMs: 100 };

const dir = mkdtempSync(join(tmpdir(), 'zonehost-kek-'));
/** PostgreSQL has no default key-encryption key: the suite gives one there. */
function kekFile(name = 'kek'): string {
  const file = join(dir, name);
  if (!existsSync(file)) writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  return file;
}
const withKek = (): Partial<Config> => (backend === 'postgres' ? { keyEncryptionKeyFile: kekFile() } : {});

let server: TestServer;
let alice: Client;
let aliceKey: string;
let bob: Client;

beforeAll(async () => {
  // On PostgreSQL startTestServer gives the node a KEK file of its own.
  server = await startTestServer(FAST);
  aliceKey = (await server.user('alice')).key;
  alice = client(server.base, aliceKey);
  bob = client(server.base, (await server.user('bob')).key);
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

let zones = 0;
async function newDomain(c: Client = alice): Promise<{ id: number; name: string }> {
  const name = `z${++zones}-${Date.now().toString(36)}.example`;
  const r = await c.post('/v1/domains', { domain: name, soa: `hostmaster@${name}` });
  expect(r.status, r.text).toBe(201);
  return { id: r.body.id, name };
}

const serialOf = async (id: number) => (await server.services.zones.byId(id))?.serial ?? 0;

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 15_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The DNSKEY rdata of a key as the GET shows it (flags, protocol, algorithm, public key). */
function rdataOf(dnskey: string): Buffer {
  const m = /^(\S+)\. (\d+) IN DNSKEY (\d+) (\d+) (\d+) ([A-Za-z0-9+/=]+)$/.exec(dnskey);
  expect(m, dnskey).not.toBeNull();
  const [, , , flags, protocol, algorithm, key] = m as RegExpExecArray;
  const head = Buffer.alloc(4);
  head.writeUInt16BE(Number(flags));
  head[2] = Number(protocol);
  head[3] = Number(algorithm);
  return Buffer.concat([head, Buffer.from(key as string, 'base64')]);
}

/** A node KeyObject from a DNSKEY's public key: P-256 X‖Y or an Ed25519 key. */
function publicKeyOf(rdata: Buffer) {
  const key = rdata.subarray(4);
  if (rdata[3] === 15) return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.toString('base64url') }, format: 'jwk' });
  return createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: key.subarray(0, 32).toString('base64url'), y: key.subarray(32).toString('base64url') }, format: 'jwk' });
}

/** Every key a GET shows is well formed for the zone: DNSKEY text, key tag, DS digest. */
function checkKeys(body: any, zone: string): void {
  for (const k of body.keys) {
    const rdata = rdataOf(k.dnskey);
    expect(k.dnskey.startsWith(`${zone}. ${TIMINGS.dnskeyTtl} IN DNSKEY 257 3 ${k.algorithm} `)).toBe(true);
    expect(rdata.readUInt16BE(0)).toBe(k.flags);
    expect(keyTag(rdata)).toBe(k.key_tag);
    expect(k.ds).toEqual([`${zone}. ${TIMINGS.dnskeyTtl} IN DS ${k.key_tag} ${k.algorithm} 2 ${dsDigest(zone, rdata)}`]);
    expect(dsDigest(zone, rdata)).toMatch(/^[0-9A-F]{64}$/);
    expect(rdata.length - 4).toBe(k.algorithm === 13 ? 64 : 32);
  }
}

/** BIND's own DS of a DNSKEY record (bind9-utils), to check ours against another implementation. */
function bindDs(zone: string, dnskey: string): string {
  const file = join(dir, `dnskey-${randomBytes(4).toString('hex')}`);
  writeFileSync(file, `${dnskey}\n`);
  return execFileSync('dnssec-dsfromkey', ['-2', '-f', file, zone], { encoding: 'utf8' }).trim();
}

/** Each signing key of what the DNS side reads signs, and its DNSKEY verifies the signature. */
function checkSigning(s: ZoneSigning): void {
  const data = Buffer.from('a zone to sign');
  for (const k of s.keys) {
    expect(k.privateKey).not.toBeNull();
    const signature = sign(k.algorithm === 13 ? 'sha256' : null, data, k.privateKey!);
    expect(verify(k.algorithm === 13 ? 'sha256' : null, data, publicKeyOf(k.dnskey), signature)).toBe(true);
    expect(keyTag(k.dnskey)).toBe(k.keyTag);
  }
}

/** No private key material anywhere in a text. */
function expectNoPrivate(text: string): void {
  expect(text).not.toMatch(/PRIVATE|BEGIN|sealed|v1:[A-Za-z0-9+/=]+:/i);
}

describe('/v1/domains/{id}/dnssec', () => {
  needsDnssecDsfromkey.it('is off for a new domain, and turning it on signs the zone at once with one active key whose DNSKEY and DS are right', async () => {
    const { id, name } = await newDomain();
    const off = await alice.get(`/v1/domains/${id}/dnssec`);
    expect(off.status, off.text).toBe(200);
    expect(off.body).toEqual({ enabled: false, status: 'off', algorithm: null, keys: [], next_step: null });
    expect(await server.services.zones.signing(id)).toBeNull();

    const before = await serialOf(id);
    const on = await alice.put(`/v1/domains/${id}/dnssec`, { enabled: true });
    expect(on.status, on.text).toBe(200);
    expect(on.body).toMatchObject({ enabled: true, status: 'signed', algorithm: 'ECDSAP256SHA256', next_step: null });
    expect(on.body.keys).toEqual([
      { id: expect.any(Number), key_tag: expect.any(Number), flags: 257, algorithm: 13, state: 'active', dnskey: expect.any(String), ds: [expect.any(String)], created: expect.any(String) },
    ]);
    checkKeys(on.body, name);
    expect(rdataOf(on.body.keys[0].dnskey).length).toBe(4 + 64);
    // BIND computes the same DS from our DNSKEY (it prints no TTL).
    expect(bindDs(name, on.body.keys[0].dnskey)).toBe(on.body.keys[0].ds[0].replace(` ${TIMINGS.dnskeyTtl} IN DS `, ' IN DS '));
    expect(await serialOf(id)).toBeGreaterThan(before);
    expect(on.headers.get('etag')).toMatch(/^"/);

    const s = await server.services.zones.signing(id);
    expect(s).toMatchObject({ cds: { keyTags: [on.body.keys[0].key_tag] }, dnskeyTtl: TIMINGS.dnskeyTtl });
    expect(s!.keys.map((k) => ({ keyTag: k.keyTag, published: k.published, signs: k.signs }))).toEqual([{ keyTag: on.body.keys[0].key_tag, published: true, signs: true }]);
    expect(s!.keys[0]!.dnskey.equals(rdataOf(on.body.keys[0].dnskey))).toBe(true);
    checkSigning(s!);

    // Idempotent: the same PUT changes nothing, not even the serial.
    const serial = await serialOf(id);
    const again = await alice.put(`/v1/domains/${id}/dnssec`, { enabled: true, algorithm: 'ECDSAP256SHA256' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(on.body);
    expect(await serialOf(id)).toBe(serial);
    expect((await alice.get(`/v1/domains/${id}/dnssec`)).body).toEqual(on.body);
  });

  needsDnssecDsfromkey.it('signs with Ed25519 when asked', async () => {
    const { id, name } = await newDomain();
    const on = await alice.put(`/v1/domains/${id}/dnssec`, { enabled: true, algorithm: 'ED25519' });
    expect(on.status, on.text).toBe(200);
    expect(on.body).toMatchObject({ algorithm: 'ED25519', keys: [{ algorithm: 15, flags: 257, state: 'active' }] });
    checkKeys(on.body, name);
    expect(rdataOf(on.body.keys[0].dnskey).length).toBe(4 + 32);
    expect(bindDs(name, on.body.keys[0].dnskey)).toBe(on.body.keys[0].ds[0].replace(` ${TIMINGS.dnskeyTtl} IN DS `, ' IN DS '));
    checkSigning((await server.services.zones.signing(id))!);
    // Another algorithm for a signed zone is a rollover, not a PUT.
    const other = await alice.put(`/v1/domains/${id}/dnssec`, { enabled: true, algorithm: 'ECDSAP256SHA256' });
    expect(problemFields(other, 409)).toEqual(['algorithm']);
    expect(other.body.detail).toMatch(/rollover/);
  });

  it('never shows a private key: not in the GET, the PUT, the rollover or the audit trail', async () => {
    const { id } = await newDomain();
    const texts = [(await alice.put(`/v1/domains/${id}/dnssec`, { enabled: true })).text];
    texts.push((await alice.post(`/v1/domains/${id}/dnssec/rollover`, {})).text);
    texts.push((await alice.get(`/v1/domains/${id}/dnssec`)).text);
    texts.push((await alice.put(`/v1/domains/${id}/dnssec`, { enabled: false })).text);
    const events = await alice.get(`/v1/events?domain=${id}`);
    expect(events.status).toBe(200);
    expect(events.body.map((e: { action: string }) => e.action)).toEqual(['domain.create', 'dnssec.enable', 'dnssec.rollover', 'dnssec.disable']);
    texts.push(events.text);
    for (const t of texts) expectNoPrivate(t);
    // The store holds them, sealed.
    for (const k of await server.services.store.dnssecKeys(id)) {
      expect(k.sealedKey).toMatch(/^v1:/);
      expect(k.sealedKey).not.toMatch(/PRIVATE|BEGIN/);
    }
  });

  needsDig.it('rolls over to a key of another algorithm: both sign, CDS moves to the new key, the old key retires and goes; every step bumps the serial', async () => {
    const { id, name } = await newDomain();
    const on = await alice.put(`/v1/domains/${id}/dnssec`, { enabled: true });
    const old = on.body.keys[0];
    const serials = [await serialOf(id)];

    const roll = await alice.post(`/v1/domains/${id}/dnssec/rollover`, { algorithm: 'ED25519' });
    expect(roll.status, roll.text).toBe(202);
    expect(roll.body).toMatchObject({ enabled: true, status: 'signed', algorithm: 'ED25519', next_step: expect.any(String) });
    expect(roll.body.keys.map((k: any) => [k.id, k.algorithm, k.state])).toEqual([
      [old.id, 13, 'active'],
      [expect.any(Number), 15, 'incoming'],
    ]);
    checkKeys(roll.body, name);
    const fresh = roll.body.keys[1];
    serials.push(await serialOf(id));
    // Both publish and sign (RFC 4035 2.2: every algorithm of the DNSKEY set signs); CDS still names the old key.
    let s = (await server.services.zones.signing(id))!;
    expect(s.keys.map((k) => [k.keyTag, k.algorithm, k.published, k.signs])).toEqual([
      [old.key_tag, 13, true, true],
      [fresh.key_tag, 15, true, true],
    ]);
    expect(s.cds).toEqual({ keyTags: [old.key_tag] });
    checkSigning(s);

    // One rollover at a time.
    expectProblem(await alice.post(`/v1/domains/${id}/dnssec/rollover`, {}), 409);

    const switched = await waitFor('the new key in CDS', async () => {
      const g = await alice.get(`/v1/domains/${id}/dnssec`);
      return g.body.keys.some((k: any) => k.id === fresh.id && k.state === 'active') && g.body;
    });
    expect(switched.keys.map((k: any) => [k.id, k.state])).toEqual([
      [old.id, 'retiring'],
      [fresh.id, 'active'],
    ]);
    serials.push(await serialOf(id));
    s = (await server.services.zones.signing(id))!;
    expect(s.cds).toEqual({ keyTags: [fresh.key_tag] });
    expect(s.keys.every((k) => k.published && k.signs)).toBe(true);

    const done = await waitFor('the old key removed', async () => {
      const g = await alice.get(`/v1/domains/${id}/dnssec`);
      return g.body.keys.length === 1 && g.body;
    });
    expect(done).toMatchObject({ enabled: true, status: 'signed', algorithm: 'ED25519', next_step: null });
    expect(done.keys.map((k: any) => [k.id, k.algorithm, k.state])).toEqual([[fresh.id, 15, 'active']]);
    serials.push(await serialOf(id));
    s = (await server.services.zones.signing(id))!;
    expect(s.keys.map((k) => k.keyTag)).toEqual([fresh.key_tag]);
    expect(s.cds).toEqual({ keyTags: [fresh.key_tag] });
    for (let i = 1; i < serials.length; i++) expect(serials[i]).toBeGreaterThan(serials[i - 1] as number);

    // The timer's steps are in the owner's audit trail, as the server's own.
    const events = (await alice.get(`/v1/events?domain=${id}`)).body as any[];
    const steps = events.filter((e) => e.action === 'dnssec.step');
    expect(steps.map((e) => [e.before.step, e.interface, e.key_label])).toEqual([
      ['activate', 'system', 'dnssec timer'],
      ['remove', 'system', 'dnssec timer'],
    ]);
    expect(steps.map((e) => e.object_id)).toEqual([fresh.id, old.id]);

    // The DNS server rebuilt the zone on each step: it serves the serial of the last one.
    expect((await dig(server, name, 'SOA')).answer[0]?.data.split(' ')[2]).toBe(String(serials[serials.length - 1]));

    // A rollover of the same algorithm, from the new state; a POST without a body is one too.
    const bare = await call(server.base, 'POST', `/v1/domains/${id}/dnssec/rollover`, { key: aliceKey });
    expect(bare.status, bare.text).toBe(202);
    expect(bare.body.keys.map((k: any) => [k.algorithm, k.state])).toEqual([
      [15, 'active'],
      [15, 'incoming'],
    ]);
  });

  it('starts a rollover with an empty JSON object', async () => {
    const { id } = await newDomain();
    await alice.put(`/v1/domains/${id}/dnssec`, { enabled: true });
    const same = await alice.post(`/v1/domains/${id}/dnssec/rollover`, {});
    expect(same.status, same.text).toBe(202);
    expect(same.body.keys.map((k: any) => [k.algorithm, k.state])).toEqual([
      [13, 'active'],
      [13, 'incoming'],
    ]);
  });

  it('starts a rollover with an empty body labelled JSON', async () => {
    const { id } = await newDomain();
    await alice.put(`/v1/domains/${id}/dnssec`, { enabled: true });
    const same = await alice.call('POST', `/v1/domains/${id}/dnssec/rollover`, { raw: '', headers: { 'content-type': 'application/json' } });
    expect(same.status, same.text).toBe(202);
    expect(same.body.keys.map((k: any) => k.state)).toEqual(['active', 'incoming']);
  });

  it('turns off through unsigning: CDS/CDNSKEY delete while the keys still sign, then unsigned and keyless; re-enabling meanwhile keeps the key', async () => {
    const { id } = await newDomain();
    const on = await alice.put(`/v1/domains/${id}/dnssec`, { enabled: true });
    const key = on.body.keys[0];

    const serial0 = await serialOf(id);
    const off = await alice.put(`/v1/domains/${id}/dnssec`, { enabled: false });
    expect(off.status, off.text).toBe(200);
    expect(off.body).toMatchObject({ enabled: false, status: 'unsigning', algorithm: 'ECDSAP256SHA256', next_step: expect.any(String) });
    expect(off.body.keys).toEqual([key]);
    expect(await serialOf(id)).toBeGreaterThan(serial0);
    let s = (await server.services.zones.signing(id))!;
    expect(s.cds).toBe('delete');
    expect(s.keys.map((k) => [k.keyTag, k.signs])).toEqual([[key.key_tag, true]]);
    // A rollover now makes no sense; turning off twice is the same as once.
    expectProblem(await alice.post(`/v1/domains/${id}/dnssec/rollover`, {}), 409);
    const serial1 = await serialOf(id);
    expect((await alice.put(`/v1/domains/${id}/dnssec`, { enabled: false })).body).toEqual(off.body);
    expect(await serialOf(id)).toBe(serial1);

    // Back on before the end: the same key, CDS names it again.
    const back = await alice.put(`/v1/domains/${id}/dnssec`, { enabled: true });
    expect(back.body).toMatchObject({ enabled: true, status: 'signed', keys: [key] });
    s = (await server.services.zones.signing(id))!;
    expect(s.cds).toEqual({ keyTags: [key.key_tag] });
    expect(await serialOf(id)).toBeGreaterThan(serial1);

    await alice.put(`/v1/domains/${id}/dnssec`, { enabled: false });
    const serial2 = await serialOf(id);
    const gone = await waitFor('the zone off', async () => {
      const g = await alice.get(`/v1/domains/${id}/dnssec`);
      return g.body.status === 'off' && g.body;
    });
    expect(gone).toEqual({ enabled: false, status: 'off', algorithm: null, keys: [], next_step: null });
    expect(await server.services.zones.signing(id)).toBeNull();
    expect(await server.services.store.dnssecKeys(id)).toEqual([]);
    expect(await serialOf(id)).toBeGreaterThan(serial2);

    // On again from off: a new key.
    const again = await alice.put(`/v1/domains/${id}/dnssec`, { enabled: true });
    expect(again.body.keys).toHaveLength(1);
    expect(again.body.keys[0].id).not.toBe(key.id);
  });

  it('refuses zone mirrors, other accounts, bad input and other methods', async () => {
    const mirror = await alice.post('/v1/zonemirrors', { domain: 'mirror.example', masters: ['192.0.2.53'] });
    expect(mirror.status, mirror.text).toBe(201);
    const { id: bobs } = await newDomain(bob);
    const { id } = await newDomain();
    for (const target of [mirror.body.id, bobs, 999999]) {
      expectProblem(await alice.get(`/v1/domains/${target}/dnssec`), 404);
      expectProblem(await alice.put(`/v1/domains/${target}/dnssec`, { enabled: true }), 404);
      expectProblem(await alice.post(`/v1/domains/${target}/dnssec/rollover`, {}), 404);
    }
    expect((await bob.get(`/v1/domains/${bobs}/dnssec`)).body.status).toBe('off');

    expect(problemFields(await alice.put(`/v1/domains/${id}/dnssec`, { enabled: true, algorithm: 'RSASHA256' }), 400)).toEqual(['algorithm']);
    expect(problemFields(await alice.put(`/v1/domains/${id}/dnssec`, { algorithm: 'ED25519' }), 400)).toEqual(['enabled']);
    expect(problemFields(await alice.put(`/v1/domains/${id}/dnssec`, { enabled: 'yes' }), 400)).toEqual(['enabled']);
    expect(problemFields(await alice.put(`/v1/domains/${id}/dnssec`, { enabled: true, ksk: true }), 400)).toEqual(['ksk']);
    expect(problemFields(await alice.post(`/v1/domains/${id}/dnssec/rollover`, { algorithm: 13 }), 400)).toEqual(['algorithm']);
    // Not signed: no rollover.
    expectProblem(await alice.post(`/v1/domains/${id}/dnssec/rollover`, {}), 409);
    expect((await alice.get(`/v1/domains/${id}/dnssec`)).body.status).toBe('off');

    const del = await alice.del(`/v1/domains/${id}/dnssec`);
    expectProblem(del, 405);
    expect(del.headers.get('allow')).toBe('GET, PUT, HEAD, OPTIONS');
    expect((await alice.get(`/v1/domains/${id}/dnssec/rollover`)).status).toBe(405);
    expect((await client(server.base).get(`/v1/domains/${id}/dnssec`)).status).toBe(401);
  });

  it('deletes the keys with their domain', async () => {
    const { id } = await newDomain();
    await alice.put(`/v1/domains/${id}/dnssec`, { enabled: true });
    expect(await server.services.store.dnssecKeys(id)).toHaveLength(1);
    expect((await alice.del(`/v1/domains/${id}`)).status).toBe(204);
    expect(await server.services.store.dnssecKeys(id)).toEqual([]);
    expect(await server.services.store.dnssecZone(id)).toBeUndefined();
  });
});

describe('keys at rest and the key-encryption key', () => {
  /** The sealed_key column as the database holds it. */
  async function rawSealed(url: string): Promise<string[]> {
    const path = sqlitePath(url);
    if (path !== null) {
      const db = new (betterSqlite3())(path, { readonly: true });
      try {
        return (db.prepare('select sealed_key from dnssec_keys order by id').all() as { sealed_key: string }[]).map((r) => r.sealed_key);
      } finally {
        db.close();
      }
    }
    const parsed = parsePostgresUrl(url);
    const c = new pg.Client({ connectionString: parsed.connectionString });
    await c.connect();
    try {
      return (await c.query(`select sealed_key from "${parsed.schema}".dnssec_keys order by id`)).rows.map((r) => r.sealed_key as string);
    } finally {
      await c.end();
    }
  }

  const config = (db: string, more: Partial<Config> = {}): Config => ({
    http: { host: '127.0.0.1', port: 0 },
    dns: null,
    db,
    nameservers: ['ns1.zonehost.test'],
    logLevel: 'silent',
    rateLimits: { perAddress: 0, perKey: 0 },
    ...FAST,
    ...more,
  });

  it('keeps keys across a restart, sealed at rest, opened only with the same key-encryption key', async () => {
    const { url, cleanup } = freshDatabase();
    const kek = withKek();
    try {
      let node = await startServer(config(url, kek));
      await node.services.accounts.createUser('carol', 'correct horse battery staple');
      const { key } = await node.services.accounts.issueKey('carol', 'correct horse battery staple', { label: 'test' });
      let carol = client(`http://127.0.0.1:${node.httpAddress!.port}`, key);
      const id = (await carol.post('/v1/domains', { domain: 'restart.example', soa: 'hostmaster@restart.example' })).body.id;
      const on = await carol.put(`/v1/domains/${id}/dnssec`, { enabled: true });
      expect(on.status, on.text).toBe(200);
      const first = (await node.services.zones.signing(id))!;
      await node.close();

      const sealed = await rawSealed(url);
      expect(sealed).toHaveLength(1);
      expect(sealed[0]).toMatch(/^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
      expect(sealed[0]).not.toMatch(/PRIVATE|BEGIN/);
      expect(Buffer.from((sealed[0] as string).split(':')[3] as string, 'base64').toString('latin1')).not.toMatch(/PRIVATE|BEGIN/);

      const path = sqlitePath(url);
      if (path !== null) {
        // The embedded set-up's default: PATH.kek beside the database, made on first start, owner-only.
        const file = `${path}.kek`;
        expect(existsSync(file)).toBe(true);
        expect(statSync(file).mode & 0o777).toBe(0o600);
        expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
      }

      node = await startServer(config(url, kek));
      carol = client(`http://127.0.0.1:${node.httpAddress!.port}`, key);
      const after = await carol.get(`/v1/domains/${id}/dnssec`);
      expect(after.body).toEqual(on.body);
      const second = (await node.services.zones.signing(id))!;
      expect(second.keys.map((k) => k.keyTag)).toEqual(first.keys.map((k) => k.keyTag));
      checkSigning(second);
      await node.close();

      // Another KEK does not open them: the zone's signing fails loudly instead of serving other keys.
      node = await startServer(config(url, { keyEncryptionKeyFile: kekFile('other') }));
      await expect(node.services.zones.signing(id)).rejects.toThrow(/key-encryption key/);
      // A KEK file that is not 32 bytes stops the start.
      writeFileSync(join(dir, 'short'), 'c2hvcnQ=\n');
      await node.close();
      await expect(startServer(config(url, { keyEncryptionKeyFile: join(dir, 'short') }))).rejects.toThrow(/32 bytes/);
      await expect(startServer(config(url, { keyEncryptionKeyFile: join(dir, 'missing') }))).rejects.toThrow(/cannot read/);
      if (path !== null) {
        // A database restored without its KEK file: no new key is made in its place, the start stops and says why.
        rmSync(`${path}.kek`);
        await expect(startServer(config(url))).rejects.toThrow(/DNSSEC keys.*\.kek is missing/);
        expect(existsSync(`${path}.kek`)).toBe(false);
      }
    } finally {
      await cleanup();
    }
  });

  it.runIf(backend === 'postgres')('on PostgreSQL without a key-encryption key, refuses to turn DNSSEC on and says what is missing', async () => {
    const { url, cleanup } = freshDatabase();
    try {
      const node = await startServer(config(url));
      try {
        await node.services.accounts.createUser('dave', 'correct horse battery staple');
        const { key } = await node.services.accounts.issueKey('dave', 'correct horse battery staple', { label: 'test' });
        const dave = client(`http://127.0.0.1:${node.httpAddress!.port}`, key);
        const id = (await dave.post('/v1/domains', { domain: 'nokek.example', soa: 'hostmaster@nokek.example' })).body.id;
        const r = await dave.put(`/v1/domains/${id}/dnssec`, { enabled: true });
        expect(problemFields(r, 409)).toEqual(['enabled']);
        expect(r.body.detail).toMatch(/--key-encryption-key-file/);
        expect((await dave.get(`/v1/domains/${id}/dnssec`)).body.status).toBe('off');
      } finally {
        await node.close();
      }
    } finally {
      await cleanup();
    }
  });
});
