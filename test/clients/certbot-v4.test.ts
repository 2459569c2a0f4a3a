/**
 * certbot's dns-linode plugin (Debian python3-certbot-dns-linode) with `dns_linode_version = 4` in its
 * credentials: its authenticator adds and removes the _acme-challenge TXT record through lexicon's linode4
 * provider, pointed at the v4 door by the wrapper (zonehost_endpoint.py; the plugin has no option for it).
 * No ACME server is involved; the effect is checked through the v4 door.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { client, createDomain, createRecord, type Client } from '../v4/support.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { py } from './support.js';
import { peers } from '../support/peers.js';

const needsClient = peers('python3 certbot_dns_linode');

let server: TestServer;
let key: string;
let otherKey: string;
let api: Client;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  key = (await server.user('alice')).key;
  otherKey = (await server.user('bob')).key;
  api = client(server.base, key);
  dir = mkdtempSync(join(tmpdir(), 'zonehost-certbot-v4-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

/** A certbot credentials file for API v4, as a user would write it. */
function credentials(name: string, apiKey: string): string {
  const path = join(dir, `${name}.ini`);
  writeFileSync(path, `dns_linode_key = ${apiKey}\ndns_linode_version = 4\n`);
  chmodSync(path, 0o600);
  return path;
}

const certbot = (creds: string, step: 'perform' | 'cleanup', dom: string, validation: string) =>
  py('certbot_linode.py', [creds, step, dom, `_acme-challenge.${dom}`, validation], `${server.base}/api/`, `${server.base}/v4/`);

const VALIDATION = 'Xy9_-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab';
const records = async (id: number) => (await api.get(`/v4/domains/${id}/records`)).body.data as any[];

needsClient.describe('certbot dns-linode authenticator (API v4)', { timeout: 180_000 }, () => {
  it('adds the _acme-challenge TXT record in the closest parent zone on perform and removes it on cleanup', async () => {
    const { id } = await createDomain(api, 'certbot4.example');
    const keep = await createRecord(api, id, { type: 'TXT', name: '_acme-challenge.www', target: 'another order' });
    const creds = credentials('alice', key);

    const performed = await certbot(creds, 'perform', 'www.certbot4.example', VALIDATION);
    expect(performed.code, performed.stdout + performed.stderr).toBe(0);
    expect(performed.json).toEqual({ api_version: 4 });
    const added = (await records(id)).filter((r) => r.id !== keep.id);
    expect(added.map((r) => [r.type, r.name, r.target])).toEqual([['TXT', '_acme-challenge.www', VALIDATION]]);

    const cleaned = await certbot(creds, 'cleanup', 'www.certbot4.example', VALIDATION);
    expect(cleaned.code, cleaned.stdout + cleaned.stderr).toBe(0);
    expect((await records(id)).map((r) => [r.id, r.target])).toEqual([[keep.id, 'another order']]);
  });

  it("fails with a certbot error, changing nothing, for another account's zone", async () => {
    const { id } = await createDomain(api, 'private-certbot4.example');
    const foreign = await certbot(credentials('bob', otherKey), 'perform', 'private-certbot4.example', VALIDATION);
    expect(foreign.code).toBe(3);
    expect(foreign.json.error).toContain('Unable to determine zone identifier for private-certbot4.example');
    expect(await records(id)).toEqual([]);
  });
});
