/**
 * certbot's dns-linode plugin (Debian python3-certbot-dns-linode): its authenticator adds and removes the
 * _acme-challenge TXT record through lexicon and API v3 (chosen because our keys never look like v4 tokens).
 * No ACME server is involved; the effect is checked through interface A.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { domain, records, resource } from '../v3/support.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { py } from './support.js';
import { peers } from '../support/peers.js';

// Debian's client, run by /usr/bin/python3.
const needsClient = peers('python3 certbot_dns_linode');

let server: TestServer;
let key: string;
let otherKey: string;
let endpoint: string;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  key = (await server.user('alice')).key;
  otherKey = (await server.user('bob')).key;
  endpoint = `${server.base}/api/`;
  dir = mkdtempSync(join(tmpdir(), 'zonehost-certbot-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

/** A certbot credentials file, as a user would write it for the plugin. */
function credentials(name: string, apiKey: string): string {
  const path = join(dir, `${name}.ini`);
  writeFileSync(path, `dns_linode_key = ${apiKey}\n`);
  chmodSync(path, 0o600);
  return path;
}

const certbot = (creds: string, step: 'perform' | 'cleanup', dom: string, validation: string) =>
  py('certbot_linode.py', [creds, step, dom, `_acme-challenge.${dom}`, validation], endpoint);

// A dns-01 validation value: base64url, case-sensitive.
const VALIDATION = 'Xy9_-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab';

// Each step starts a python process (lexicon's command line alone takes seconds on a loaded machine).
needsClient.describe('certbot dns-linode authenticator', { timeout: 180_000 }, () => {
  it('adds the _acme-challenge TXT record in the closest parent zone on perform and removes it on cleanup, with API v3', async () => {
    const id = await domain(server.base, key, 'certbot.example');
    const keep = await resource(server.base, key, id, { Type: 'TXT', Name: '_acme-challenge.www', Target: 'another order' });
    const creds = credentials('alice', key);

    const performed = await certbot(creds, 'perform', 'www.certbot.example', VALIDATION);
    expect(performed.code, performed.stdout + performed.stderr).toBe(0);
    // The plugin took our key for a v3 key (a 64-character lower-case hex key would have sent it to API v4).
    expect(performed.json).toEqual({ api_version: 3 });
    const added = (await records(server.base, key, id)).filter((r) => r.RESOURCEID !== keep);
    expect(added.map((r) => [r.TYPE, r.NAME, r.TARGET])).toEqual([['TXT', '_acme-challenge.www', VALIDATION]]);

    const cleaned = await certbot(creds, 'cleanup', 'www.certbot.example', VALIDATION);
    expect(cleaned.code, cleaned.stdout + cleaned.stderr).toBe(0);
    // Only the challenge record is gone; the other TXT value at the same name stays.
    expect((await records(server.base, key, id)).map((r) => [r.RESOURCEID, r.TARGET])).toEqual([[keep, 'another order']]);
  });

  it('works at the apex of a zone too', async () => {
    const id = await domain(server.base, key, 'apex-certbot.example');
    const creds = credentials('alice-apex', key);
    expect((await certbot(creds, 'perform', 'apex-certbot.example', VALIDATION)).code).toBe(0);
    expect((await records(server.base, key, id)).map((r) => [r.TYPE, r.NAME, r.TARGET])).toEqual([['TXT', '_acme-challenge', VALIDATION]]);
    expect((await certbot(creds, 'cleanup', 'apex-certbot.example', VALIDATION)).code).toBe(0);
    expect(await records(server.base, key, id)).toEqual([]);
  });

  it("fails with a certbot error, changing nothing, for another account's zone or a wrong key", async () => {
    const id = await domain(server.base, key, 'private-certbot.example');
    const foreign = await certbot(credentials('bob', otherKey), 'perform', 'private-certbot.example', VALIDATION);
    expect(foreign.code).toBe(3);
    expect(foreign.json.error).toContain('Unable to determine zone identifier for private-certbot.example');
    const wrong = await certbot(credentials('wrong', 'W'.repeat(64)), 'perform', 'private-certbot.example', VALIDATION);
    expect(wrong.code).toBe(3);
    expect(wrong.json.error).toContain('Authentication failed');
    expect(await records(server.base, key, id)).toEqual([]);
  });
});
