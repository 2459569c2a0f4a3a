/**
 * DNSSEC on several nodes of one PostgreSQL database, sharing one key-encryption key file: a zone signed
 * through one node's API validates, with delv anchored on its DS, from either node's DNS server.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { delv } from '../support/dnssec.js';
import { freshDatabase, v3 } from '../support/server.js';
import { addUser, freePort, startNode, stopNodes, waitFor } from './nodes.js';
import { peers } from '../support/peers.js';

const needsDelv = peers('delv');

const DATABASE_URL = process.env.DATABASE_URL;
if (!DATABASE_URL) console.log('multi-node DNSSEC tests skipped: they need PostgreSQL; set DATABASE_URL (e.g. postgres://127.0.0.1:5432/test)');

const ZONE = 'nodes-signed.example';
const db = freshDatabase();
const dir = mkdtempSync(join(tmpdir(), 'zonehost-nodes-kek-'));
const ports: number[] = [];
let api = '';
let key = '';

beforeAll(async () => {
  if (!DATABASE_URL) return;
  const kek = join(dir, 'kek');
  writeFileSync(kek, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  await addUser(db.url, 'signer', 'pw');
  ports.push(await freePort(), await freePort());
  const nodes = await Promise.all(ports.map((p) => startNode(db.url, '--dns', `127.0.0.1:${p}`, '--key-encryption-key-file', kek)));
  api = (nodes[0] as { base: string }).base;
  key = (await v3(api, { api_action: 'user.getapikey', username: 'signer', password: 'pw' })).DATA.API_KEY as string;
}, 60_000);

afterAll(async () => {
  await stopNodes();
  await db.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!DATABASE_URL)('two nodes', () => {
  needsDelv.it('sign with the same keys: either node\'s answers validate', async () => {
    const call = (args: Record<string, string | number>) => v3(api, { api_key: key, ...args });
    const id = (await call({ api_action: 'domain.create', Domain: ZONE, Type: 'master', SOA_Email: `h@${ZONE}` })).DATA.DomainID as number;
    await call({ api_action: 'domain.resource.create', DomainID: id, Type: 'A', Name: 'www', Target: '192.0.2.1' });
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    expect((await fetch(`${api}/v1/domains/${id}/dnssec`, { method: 'PUT', headers, body: JSON.stringify({ enabled: true }) })).status).toBeLessThan(300);
    const body = (await (await fetch(`${api}/v1/domains/${id}/dnssec`, { headers })).json()) as { keys: { ds: string[] }[] };
    const ds = body.keys.flatMap((k) => k.ds);
    expect(ds).toHaveLength(1);
    for (const port of ports) {
      const at = { host: '127.0.0.1', port };
      await waitFor(`node on ${port} to serve the zone signed`, async () => /fully validated/.test(await delv(ZONE, ds, at, `www.${ZONE}`, 'A')));
      expect(await delv(ZONE, ds, at, `nothere.${ZONE}`, 'A')).toMatch(/negative response, fully validated/);
    }
  });
});
