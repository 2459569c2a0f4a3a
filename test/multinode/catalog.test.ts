/**
 * The catalog zone on two DNS nodes of one PostgreSQL database: whichever node a secondary asks, it gets the
 * same catalog (members, labels, serial), and a domain created through one node's API moves both.
 */
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { freshDatabase, v3 } from '../support/server.js';
import { transfer } from '../support/knot.js';
import { addUser, freePort, startNode, stopNodes, waitFor } from './nodes.js';
import { peers } from '../support/peers.js';

const needsKdig = peers('kdig');

const DATABASE_URL = process.env.DATABASE_URL;
if (!DATABASE_URL) console.log('multi-node catalog tests skipped: they need PostgreSQL; set DATABASE_URL (e.g. postgres://127.0.0.1:5432/test)');

const CATALOG = 'catalog.zonehost.test';
/** The secondary the catalog allows: kdig binds it as its source address. */
const SECONDARY = '127.0.52.2';
const db = freshDatabase();
let api = '';
let key = '';
const dnsPorts: number[] = [];

/** The catalog as node `i` transfers it, sorted (its SOA's serial included). */
const catalogAt = async (i: number): Promise<string[]> => {
  const r = await transfer({ dnsAddress: { host: '127.0.0.1', port: dnsPorts[i] as number } }, SECONDARY, CATALOG, 'AXFR');
  expect(r.status).toBe('NOERROR');
  return [...new Set(r.records)].sort();
};

beforeAll(async () => {
  if (!DATABASE_URL) return;
  await addUser(db.url, 'alice', 'pw');
  dnsPorts.push(await freePort(), await freePort());
  const flags = (port: number) => ['--dns', `127.0.0.1:${port}`, '--catalog', CATALOG, '--catalog-axfr', `${SECONDARY}@${port}`];
  const [a] = await Promise.all([startNode(db.url, ...flags(dnsPorts[0] as number)), startNode(db.url, '--no-http', ...flags(dnsPorts[1] as number))]);
  api = a.base;
  key = (await v3(api, { api_action: 'user.getapikey', username: 'alice', password: 'pw' })).DATA.API_KEY as string;
}, 60_000);

afterAll(async () => {
  await stopNodes();
  await db.cleanup();
});

describe.skipIf(!DATABASE_URL)('the catalog on two nodes', () => {
  needsKdig.it('is the same on both, before and after a membership change made through one of them', async () => {
    await v3(api, { api_action: 'domain.create', api_key: key, Domain: 'first.test', Type: 'master', SOA_Email: 'h@first.test' });
    await waitFor('both nodes to list first.test', async () => (await catalogAt(1)).some((r) => r.endsWith(' PTR first.test.')));
    const before = await catalogAt(0);
    expect(await catalogAt(1)).toEqual(before);
    await v3(api, { api_action: 'domain.create', api_key: key, Domain: 'second.test', Type: 'master', SOA_Email: 'h@second.test' });
    await waitFor('both nodes to list second.test', async () => (await catalogAt(1)).some((r) => r.endsWith(' PTR second.test.')));
    const after = await catalogAt(0);
    expect(after).not.toEqual(before);
    expect(await catalogAt(1)).toEqual(after);
    const serial = (records: string[]) => Number(records.find((r) => r.includes(' SOA '))?.split(' ')[4]);
    expect(serial(after)).toBeGreaterThan(serial(before));
  }, 60_000);
});
