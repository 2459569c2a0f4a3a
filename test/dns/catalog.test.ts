/**
 * The catalog zone (RFC 9432) with real consumers: knotd (catalog-role: interpret), BIND named
 * (catalog-zones) and PowerDNS Authoritative (a consumer zone) provision their member zones from it.
 * A domain created, deactivated, reactivated, renamed or deleted through either interface reaches each of
 * them: it starts or stops serving the zone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCatalog } from '../../src/config.js';
import type { Actor } from '../../src/services/index.js';
import { memberLabel } from '../../src/model/catalog.js';
import { bindConsumer, knotConsumer, powerdnsConsumer, type Consumer } from '../support/consumers.js';
import { freePort } from '../multinode/nodes.js';
import { eventually, transfer } from '../support/knot.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { client, expectProblem } from '../v1/support.js';
import { data } from '../v3/support.js';
import { createDomain, kdig } from './support.js';
import { peers } from '../support/peers.js';

const needsKdig = peers('kdig');
/** The three consumers, started before all tests when installed (their answers are read with kdig). */
const needsConsumers = peers('knotd', 'knotc', 'named', 'pdns_server', 'pdnsutil', 'pdns gsqlite3 backend', 'kdig');

const CATALOG = 'catalog.zonehost.invalid';
const KNOT = '127.0.51.2';
/** named takes only addresses of an interface: 127.0.0.1 with a spare port. */
const BIND = '127.0.0.1';
const PDNS = '127.0.51.4';
const STRANGER = '127.0.51.9';
const FLEET_KEY = 'fleet.key';
const FLEET_SECRET = Buffer.alloc(32, 'fleet').toString('base64');

let server: TestServer;
let key: string;
const consumers: Consumer[] = [];

beforeAll(async () => {
  const bindPort = await freePort();
  server = await startTestServer({ catalog: parseCatalog(CATALOG, `${KNOT},${PDNS} ${BIND}@${bindPort}`, FLEET_KEY, 'fleet') });
  const user = await server.user('fleet');
  key = user.key;
  // The operator's key for the secondaries: it opens every zone although it names none.
  const actor: Actor = { accountId: user.accountId, userId: user.accountId, role: 'owner', username: 'fleet', keyLabel: 'test', iface: 'cli', remoteAddr: '' };
  await server.services.tsigKeys.create(actor, { name: FLEET_KEY, secret: FLEET_SECRET, domains: [], transfer: false });
  const port = server.dnsAddress?.port ?? 0;
  if (needsConsumers.reason !== null) return;
  // One at a time, so afterAll stops those started when a later one fails to start.
  consumers.push(await knotConsumer(KNOT, CATALOG, port));
  consumers.push(await bindConsumer(BIND, bindPort, CATALOG, port));
  consumers.push(await powerdnsConsumer(PDNS, CATALOG, port));
}, 60_000);

afterAll(async () => {
  for (const c of consumers) await c.stop();
  await server?.close();
});

/** Waits until every consumer serves (or no longer serves) `zone`; the failure names the ones that did not. */
async function everyConsumer(zone: string, serving: boolean): Promise<void> {
  const late: string[] = [];
  await Promise.all(
    consumers.map((c) =>
      eventually(`${c.name} ${serving ? 'serving' : 'no longer serving'} ${zone}`, async () => (await c.serves(zone)) === serving, 30_000).catch(() => late.push(c.name)),
    ),
  );
  expect(late, `consumers that did not follow (${zone} ${serving ? 'added' : 'removed'})`).toEqual([]);
}

describe('catalog zone served', () => {
  needsKdig.it('lists active domains under zones with the version property, and only the secondaries may transfer it', async () => {
    const id = await createDomain(server.base, key, 'listed.test', { lpm_displayGroup: 'blue' });
    const axfr = await transfer(server, KNOT, CATALOG, 'AXFR');
    expect(axfr.status).toBe('NOERROR');
    expect(axfr.records).toContain(`version.${CATALOG}. TXT "2"`);
    expect(axfr.records).toContain(`${CATALOG}. NS invalid.`);
    expect(axfr.records).toContain(`${memberLabel(id, 'listed.test')}.zones.${CATALOG}. PTR listed.test.`);
    expect(axfr.records).toContain(`group.${memberLabel(id, 'listed.test')}.zones.${CATALOG}. TXT "blue"`);
    expect((await transfer(server, STRANGER, CATALOG, 'AXFR')).status).toBe('REFUSED');
    // The secondaries may transfer every member zone without being in its own axfr list.
    expect((await transfer(server, PDNS, 'listed.test', 'AXFR')).status).toBe('NOERROR');
    expect((await transfer(server, STRANGER, 'listed.test', 'AXFR')).status).toBe('REFUSED');
  });

  needsKdig.it('the secondaries\' TSIG key opens the catalog and every member zone from any address', async () => {
    await createDomain(server.base, key, 'keyed.test');
    const tsig = ['-y', `hmac-sha256:${FLEET_KEY}:${FLEET_SECRET}`];
    expect((await transfer(server, STRANGER, CATALOG, 'AXFR', ...tsig)).records).toContain(`version.${CATALOG}. TXT "2"`);
    expect((await transfer(server, STRANGER, 'keyed.test', 'AXFR', ...tsig)).status).toBe('NOERROR');
    const other = ['-y', `hmac-sha256:${FLEET_KEY}:${Buffer.alloc(32, 'wrong').toString('base64')}`];
    expect((await transfer(server, STRANGER, 'keyed.test', 'AXFR', ...other)).status).not.toBe('NOERROR');
  });

  needsKdig.it('a key of that name made by another account opens nothing', async () => {
    const fleet = await server.services.accounts.authenticate(key, 'v1', '127.0.0.1');
    const own = (await server.services.tsigKeys.list(fleet)).find((k) => k.name === FLEET_KEY);
    await server.services.tsigKeys.delete(fleet, own!.id);
    const mallory = await server.user('mallory');
    const actor: Actor = { accountId: mallory.accountId, userId: mallory.accountId, role: 'owner', username: 'mallory', keyLabel: 'test', iface: 'cli', remoteAddr: '' };
    const taken = await server.services.tsigKeys.create(actor, { name: FLEET_KEY, secret: FLEET_SECRET, domains: [], transfer: true });
    try {
      const tsig = ['-y', `hmac-sha256:${FLEET_KEY}:${FLEET_SECRET}`];
      expect((await transfer(server, STRANGER, CATALOG, 'AXFR', ...tsig)).status).toBe('REFUSED');
      expect((await transfer(server, STRANGER, 'keyed.test', 'AXFR', ...tsig)).status).toBe('REFUSED');
    } finally {
      await server.services.tsigKeys.delete(actor, taken.key.id);
      await server.services.tsigKeys.create(fleet, { name: FLEET_KEY, secret: FLEET_SECRET, domains: [], transfer: false });
    }
  });

  needsKdig.it('raises its serial with every membership change, and answers queries like any zone', async () => {
    const serial = async () => Number((await kdig(server, CATALOG, 'SOA')).answer[0]?.data.split(' ')[2]);
    const before = await serial();
    await createDomain(server.base, key, 'serial.test');
    expect(await serial()).toBeGreaterThan(before);
  });

  it('refuses a domain named like the catalog or inside it', async () => {
    const api = client(server.base, key);
    for (const name of [CATALOG, `x.${CATALOG}`]) expectProblem(await api.post('/v1/domains', { domain: name, soa: 'h@example.com' }), 409);
  });
});

needsConsumers.describe('consumers follow the catalog', () => {
  it('a domain created through interface A is served by every consumer', async () => {
    await createDomain(server.base, key, 'alpha.test');
    await everyConsumer('alpha.test', true);
  });

  it('deactivated, it stops; reactivated, it is served again (interface B)', async () => {
    const api = client(server.base, key);
    const created = await api.post('/v1/domains', { domain: 'beta.test', soa: 'h@beta.test' });
    expect(created.status, created.text).toBe(201);
    const path = created.headers.get('location') as string;
    await everyConsumer('beta.test', true);
    expect((await api.patch(path, { status: 'inactive' })).status).toBe(200);
    await everyConsumer('beta.test', false);
    expect((await api.patch(path, { status: 'active' })).status).toBe(200);
    await everyConsumer('beta.test', true);
  });

  it('renamed, the old name stops and the new one is served', async () => {
    const id = await createDomain(server.base, key, 'gamma.test');
    await everyConsumer('gamma.test', true);
    await data(server.base, { api_action: 'domain.update', api_key: key, DomainID: id, Domain: 'delta.test' });
    await everyConsumer('delta.test', true);
    await everyConsumer('gamma.test', false);
  }, 70_000);

  it('deleted, it is no longer served', async () => {
    const id = await createDomain(server.base, key, 'epsilon.test');
    await everyConsumer('epsilon.test', true);
    await data(server.base, { api_action: 'domain.delete', api_key: key, DomainID: id });
    await everyConsumer('epsilon.test', false);
  });
});
