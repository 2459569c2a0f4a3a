/**
 * Roles on one PostgreSQL database: a DNS-only node (`serve --no-http`) serves what was written through
 * an API-only node (`serve --no-dns`) within one second, as dig sees it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { freshDatabase, v3 } from '../support/server.js';
import { parseDig, type DigAnswer } from '../dns/support.js';
import { addUser, freePort, startNode, stopNodes } from './nodes.js';
import { peers } from '../support/peers.js';

const needsDig = peers('dig');

const run = promisify(execFile);
const DATABASE_URL = process.env.DATABASE_URL;
if (!DATABASE_URL) console.log('propagation tests skipped: they need PostgreSQL; set DATABASE_URL (e.g. postgres://127.0.0.1:5432/test)');

const db = freshDatabase();
let api = '';
let dnsPort = 0;
let key = '';

async function dig(name: string, type: string): Promise<DigAnswer> {
  const { stdout } = await run('dig', ['-p', String(dnsPort), '@127.0.0.1', '+norec', '+time=2', '+tries=1', name, type], { timeout: 15_000 });
  return parseDig(stdout);
}

/**
 * Queries until `served` holds, and returns how long after `since` the query that first saw it was
 * sent (so the time dig itself takes does not count).
 */
async function servedAfter(since: number, name: string, type: string, served: (a: DigAnswer) => boolean): Promise<number> {
  for (;;) {
    const sent = performance.now();
    if (served(await dig(name, type))) return sent - since;
    if (performance.now() - since > 15_000) throw new Error(`${name} ${type} was not served as expected within 15 s`);
  }
}

beforeAll(async () => {
  if (!DATABASE_URL) return;
  await addUser(db.url, 'alice', 'pw');
  dnsPort = await freePort();
  const [apiNode] = await Promise.all([startNode(db.url, '--no-dns'), startNode(db.url, '--no-http', '--dns', `127.0.0.1:${dnsPort}`)]);
  api = apiNode.base;
  key = (await v3(api, { api_action: 'user.getapikey', username: 'alice', password: 'pw' })).DATA.API_KEY as string;
}, 60_000);

afterAll(async () => {
  await stopNodes();
  await db.cleanup();
});

describe.skipIf(!DATABASE_URL)('an API-only node and a DNS-only node', () => {
  needsDig.it('the DNS-only node serves each change made through the API-only node within one second', async () => {
    const call = async (args: Record<string, string | number>) => {
      const res = await v3(api, { api_key: key, ...args });
      expect(res.ERRORARRAY).toEqual([]);
      return res.DATA;
    };
    let since = performance.now();
    const domainId = (await call({ api_action: 'domain.create', Domain: 'prop.example', Type: 'master', SOA_Email: 'h@prop.example' })).DomainID as number;
    const delays = [await servedAfter(since, 'prop.example', 'SOA', (a) => a.status === 'NOERROR' && a.answer.length === 1)];

    for (let i = 1; i <= 5; i++) {
      since = performance.now();
      const id = (await call({ api_action: 'domain.resource.create', DomainID: domainId, Type: 'A', Name: `h${i}`, Target: `192.0.2.${i}` })).ResourceID as number;
      delays.push(await servedAfter(since, `h${i}.prop.example`, 'A', (a) => a.answer.some((r) => r.data === `192.0.2.${i}`)));

      since = performance.now();
      await call({ api_action: 'domain.resource.update', DomainID: domainId, ResourceID: id, Target: `198.51.100.${i}` });
      delays.push(await servedAfter(since, `h${i}.prop.example`, 'A', (a) => a.answer.length === 1 && a.answer[0]?.data === `198.51.100.${i}`));
    }

    since = performance.now();
    await call({ api_action: 'domain.delete', DomainID: domainId });
    delays.push(await servedAfter(since, 'prop.example', 'SOA', (a) => a.status !== 'NOERROR'));

    // A change that reached the DNS node only through the periodic reconciliation (every 5 s) would miss this.
    for (const [i, ms] of delays.entries()) expect(ms, `change ${i} served after ${Math.round(ms)} ms`).toBeLessThan(1000);
  }, 120_000);

  needsDig.it('a DNS-only node started later serves the zones written before it started', async () => {
    const domainId = (await v3(api, { api_action: 'domain.create', api_key: key, Domain: 'early.example', Type: 'master', SOA_Email: 'h@early.example' })).DATA.DomainID as number;
    await v3(api, { api_action: 'domain.resource.create', api_key: key, DomainID: domainId, Type: 'TXT', Name: 'note', Target: 'written before start' });
    const port = await freePort();
    await startNode(db.url, '--no-http', '--dns', `127.0.0.1:${port}`);
    const { stdout } = await run('dig', ['-p', String(port), '@127.0.0.1', '+norec', '+time=2', '+tries=1', 'note.early.example', 'TXT'], { timeout: 15_000 });
    expect(parseDig(stdout).answer.map((r) => r.data)).toEqual(['"written before start"']);
  }, 60_000);
});
