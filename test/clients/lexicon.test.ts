/**
 * dns-lexicon (Debian python3-lexicon, linode provider = API v3) through its own command line, against
 * interface A at /api/; every step is checked through interface A itself.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { domain, records } from '../v3/support.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { py } from './support.js';
import { peers } from '../support/peers.js';

// Debian's client, run by /usr/bin/python3.
const needsClient = peers('python3 lexicon');

let server: TestServer;
let key: string;
let otherKey: string;
let endpoint: string;
beforeAll(async () => {
  server = await startTestServer();
  key = (await server.user('alice')).key;
  otherKey = (await server.user('bob')).key;
  endpoint = `${server.base}/api/`;
});
afterAll(() => server.close());

const lexicon = (k: string, action: string, zone: string, type: string, ...opts: string[]) =>
  py('lexicon_cli.py', ['linode', action, zone, type, ...opts, '--auth-token', k, '--output', 'JSON'], endpoint);
const lexiconOk = async (...a: Parameters<typeof lexicon>) => {
  const r = await lexicon(...a);
  if (r.code !== 0) throw new Error(`lexicon exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.json;
};

// Each step starts a python process (lexicon's command line alone takes seconds on a loaded machine).
needsClient.describe('dns-lexicon (linode provider, API v3)', { timeout: 180_000 }, () => {
  it('finds the domain through domain.list and creates, lists, updates and deletes a TXT record', async () => {
    const id = await domain(server.base, key, 'example.com');
    await domain(server.base, key, 'example.edu');

    expect(await lexiconOk(key, 'list', 'example.com', 'TXT')).toEqual([]);

    expect(await lexiconOk(key, 'create', 'example.com', 'TXT', '--name', '_acme-challenge', '--content', 'Token-ABC_123')).toBe(true);
    let stored = await records(server.base, key, id);
    expect(stored.map((r) => [r.TYPE, r.NAME, r.TARGET])).toEqual([['TXT', '_acme-challenge', 'Token-ABC_123']]);
    const rid = stored[0].RESOURCEID;

    // A fully qualified --name works too: lexicon relativizes it. A second create of the same value is a no-op.
    expect(await lexiconOk(key, 'create', 'example.com', 'TXT', '--name', '_acme-challenge.example.com.', '--content', 'Token-ABC_123')).toBe(true);
    expect(await records(server.base, key, id)).toHaveLength(1);

    const listed = await lexiconOk(key, 'list', 'example.com', 'TXT', '--name', '_acme-challenge');
    expect(listed).toEqual([{ id: rid, type: 'TXT', name: '_acme-challenge.example.com', ttl: 0, content: 'Token-ABC_123' }]);

    expect(await lexiconOk(key, 'update', 'example.com', 'TXT', '--identifier', String(rid), '--name', '_acme-challenge', '--content', 'changed value')).toBe(true);
    stored = await records(server.base, key, id);
    expect(stored.map((r) => [r.RESOURCEID, r.TYPE, r.NAME, r.TARGET])).toEqual([[rid, 'TXT', '_acme-challenge', 'changed value']]);

    // Update without an identifier: lexicon looks the record up by type and name first.
    expect(await lexiconOk(key, 'update', 'example.com', 'TXT', '--name', '_acme-challenge', '--content', 'third')).toBe(true);
    expect((await records(server.base, key, id)).map((r) => r.TARGET)).toEqual(['third']);

    expect(await lexiconOk(key, 'delete', 'example.com', 'TXT', '--name', '_acme-challenge', '--content', 'third')).toBe(true);
    expect(await records(server.base, key, id)).toEqual([]);
  });

  it('deletes by identifier, and leaves records of other types and names alone', async () => {
    const id = await domain(server.base, key, 'example.net');
    await lexiconOk(key, 'create', 'example.net', 'TXT', '--name', 'keep', '--content', 'k');
    await lexiconOk(key, 'create', 'example.net', 'A', '--name', 'www', '--content', '192.0.2.7');
    await lexiconOk(key, 'create', 'example.net', 'TXT', '--name', 'gone', '--content', 'g');
    const gone = (await records(server.base, key, id)).find((r) => r.NAME === 'gone');
    await lexiconOk(key, 'delete', 'example.net', 'TXT', '--identifier', String(gone.RESOURCEID));
    expect((await records(server.base, key, id)).map((r) => [r.TYPE, r.NAME, r.TARGET])).toEqual([
      ['TXT', 'keep', 'k'],
      ['A', 'www', '192.0.2.7'],
    ]);
  });

  it("fails cleanly with a wrong key, and for another account's domain, changing nothing", async () => {
    const id = await domain(server.base, key, 'example.org');
    const wrong = await lexicon('x'.repeat(64), 'create', 'example.org', 'TXT', '--name', 'n', '--content', 'v');
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('Authentication failed');
    const foreign = await lexicon(otherKey, 'create', 'example.org', 'TXT', '--name', 'n', '--content', 'v');
    expect(foreign.code).not.toBe(0);
    expect(foreign.stderr).toContain('Domain not found');
    expect(await records(server.base, key, id)).toEqual([]);
  });
});
