/**
 * dns-lexicon (Debian python3-lexicon) with its `linode4` provider (Linode's API v4; lexicon's `linode` is the
 * v3 one in this version) through its own command line, against the v4 door: the provider hard-codes
 * https://api.linode.com/v4/, so the wrapper (zonehost_endpoint.py) sets its endpoint and nothing else. It finds
 * the domain by X-Filter, reads records page by page, and sends `{}` bodies on GET and DELETE; every step is
 * checked through the v4 door.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, createDomain, type Client } from '../v4/support.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { py } from './support.js';
import { peers } from '../support/peers.js';

// Debian's client, run by /usr/bin/python3.
const needsClient = peers('python3 lexicon');

let server: TestServer;
let key: string;
let otherKey: string;
let api: Client;
beforeAll(async () => {
  server = await startTestServer();
  key = (await server.user('alice')).key;
  otherKey = (await server.user('bob')).key;
  api = client(server.base, key);
});
afterAll(() => server.close());

const lexicon = (k: string, action: string, zone: string, type: string, ...opts: string[]) =>
  py('lexicon_cli.py', ['linode4', action, zone, type, ...opts, '--auth-token', k, '--output', 'JSON'], `${server.base}/api/`, `${server.base}/v4/`);
const lexiconOk = async (...a: Parameters<typeof lexicon>) => {
  const r = await lexicon(...a);
  if (r.code !== 0) throw new Error(`lexicon exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.json;
};
const records = async (id: number) => (await api.get(`/v4/domains/${id}/records`)).body.data as any[];

// Each step starts a python process (lexicon's command line alone takes seconds on a loaded machine).
needsClient.describe('dns-lexicon (linode4 provider, API v4)', { timeout: 180_000 }, () => {
  it('finds the domain by filter and creates, lists, updates and deletes a TXT record', async () => {
    const { id } = await createDomain(api, 'example.com');
    await createDomain(api, 'example.edu');

    expect(await lexiconOk(key, 'list', 'example.com', 'TXT')).toEqual([]);
    expect(await lexiconOk(key, 'create', 'example.com', 'TXT', '--name', '_acme-challenge', '--content', 'Token-ABC_123')).toBe(true);
    let stored = await records(id);
    expect(stored.map((r) => [r.type, r.name, r.target])).toEqual([['TXT', '_acme-challenge', 'Token-ABC_123']]);
    const rid = stored[0].id;

    // A second create of the same value is a no-op (lexicon lists first).
    expect(await lexiconOk(key, 'create', 'example.com', 'TXT', '--name', '_acme-challenge.example.com.', '--content', 'Token-ABC_123')).toBe(true);
    expect(await records(id)).toHaveLength(1);

    expect(await lexiconOk(key, 'list', 'example.com', 'TXT', '--name', '_acme-challenge')).toEqual([
      { id: rid, type: 'TXT', name: '_acme-challenge.example.com', ttl: 0, content: 'Token-ABC_123' },
    ]);

    // lexicon's update sends `"type": null` when it has none: the type stays.
    expect(await lexiconOk(key, 'update', 'example.com', 'TXT', '--identifier', String(rid), '--name', '_acme-challenge', '--content', 'changed value')).toBe(true);
    stored = await records(id);
    expect(stored.map((r) => [r.id, r.type, r.name, r.target])).toEqual([[rid, 'TXT', '_acme-challenge', 'changed value']]);

    expect(await lexiconOk(key, 'delete', 'example.com', 'TXT', '--name', '_acme-challenge', '--content', 'changed value')).toBe(true);
    expect(await records(id)).toEqual([]);
  });

  it('lists a zone of more than one page whole', async () => {
    // A name under a public suffix: lexicon splits the domain off with tldextract.
    const { id } = await createDomain(api, 'example.net');
    for (let i = 0; i < 120; i++) expect((await api.post(`/v4/domains/${id}/records`, { type: 'TXT', name: 'many', target: `v${i}` })).status).toBe(200);
    const listed = await lexiconOk(key, 'list', 'example.net', 'TXT', '--name', 'many');
    expect(listed).toHaveLength(120);
  });

  it("fails cleanly with a wrong key, and for another account's domain, changing nothing", async () => {
    const { id } = await createDomain(api, 'example.org');
    const wrong = await lexicon('x'.repeat(64), 'create', 'example.org', 'TXT', '--name', 'n', '--content', 'v');
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('401');
    const foreign = await lexicon(otherKey, 'create', 'example.org', 'TXT', '--name', 'n', '--content', 'v');
    expect(foreign.code).not.toBe(0);
    expect(foreign.stderr).toContain('Domain not found');
    expect(await records(id)).toEqual([]);
  });
});
