/**
 * Two nodes on one PostgreSQL database: only the leader sends NOTIFY (it hears the other node's changes
 * through the cluster feed) and pulls zone mirrors (a master's NOTIFY to another node is passed on to it),
 * and the survivor takes over when the leader stops. Needs PostgreSQL.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startPrimary } from '../support/knot.js';
import { freshDatabase, startTestServer, type TestServer } from '../support/server.js';
import { data } from '../v3/support.js';
import { createDomain, createRecord } from './support.js';
import { peers } from '../support/peers.js';

const needsKnotdKnotc = peers('knotd', 'knotc');

const DATABASE_URL = process.env.DATABASE_URL;
if (!DATABASE_URL) console.log('NOTIFY leadership tests skipped: they need PostgreSQL; set DATABASE_URL');

const SECONDARY = '127.0.31.7';
const PRIMARY = '127.0.31.6';
const MIRRORED = 'leadmirror.test';
const mirrorZone = (serial: number) => `$ORIGIN ${MIRRORED}.
$TTL 3600
@   SOA ns.${MIRRORED}. admin.${MIRRORED}. ${serial} 3600 600 86400 300
@   NS  ns.${MIRRORED}.
ns  A   192.0.2.53
`;
const db = freshDatabase();
let nodes: TestServer[] = [];
let secondary: UdpSocket;
/** Serials announced by the NOTIFYs received so far. */
const received: number[] = [];

beforeAll(async () => {
  if (!DATABASE_URL) return;
  secondary = createSocket('udp4');
  secondary.on('message', (msg, from) => {
    const q = dnsPacket.decode(msg);
    received.push((q.answers?.[0] as { data: { serial: number } }).data.serial);
    secondary.send(dnsPacket.encode({ type: 'response', id: q.id ?? 0, flags: (4 << 11) | 0x0400, questions: q.questions ?? [] }), from.port, from.address);
  });
  await new Promise<void>((r) => secondary.bind(53, SECONDARY, () => r()));
  // One after the other, so the second finds the schema migrated.
  nodes.push(await startTestServer({ db: db.url }));
  nodes.push(await startTestServer({ db: db.url }));
});

afterAll(async () => {
  for (const n of nodes) await n.close();
  secondary?.close();
  await db.cleanup();
});

describe.skipIf(!DATABASE_URL)('NOTIFY in a cluster', () => {
  needsKnotdKnotc.it("from a zone mirror's master to a node that is not the leader makes the leader pull at once", async () => {
    await eventually('a leader', async () => nodes.some((n) => n.leadership.isLeader()));
    const leader = nodes.find((n) => n.leadership.isLeader()) as TestServer;
    const other = nodes.find((n) => n !== leader) as TestServer;
    // The primary announces its changes to the node that is not the leader only.
    const knot = await startPrimary(PRIMARY, MIRRORED, mirrorZone(1), other.dnsAddress?.port);
    try {
      const { key } = await other.user('mirrors');
      const id = (await data(other.base, { api_action: 'domain.create', api_key: key, Domain: MIRRORED, Type: 'slave', master_ips: PRIMARY })).DomainID as number;
      await eventually(`the first transfer\n${knot.log()}`, async () => (await leader.services.mirrors.stateOf(id)).serial === 1);
      knot.writeFile(`${MIRRORED}.zone`, mirrorZone(2));
      await knot.knotc('zone-reload', MIRRORED);
      // The SOA refresh is an hour, and the follower never pulls: only the passed-on NOTIFY makes the leader pull now.
      await eventually(`the pull after the NOTIFY\n${knot.log()}`, async () => (await leader.services.mirrors.stateOf(id)).serial === 2, 10_000);
    } finally {
      await knot.stop();
    }
  });

  it('is sent once, by the leader, for a change made on another node; the survivor takes over', async () => {
    await eventually('a leader', async () => nodes.some((n) => n.leadership.isLeader()));
    const leader = nodes.find((n) => n.leadership.isLeader()) as TestServer;
    const other = nodes.find((n) => n !== leader) as TestServer;
    expect(other.leadership.isLeader()).toBe(false);

    const { key } = await other.user('cluster');
    const id = await createDomain(other.base, key, 'cluster.test', { axfr_ips: SECONDARY });
    const serial = (await other.services.store.domainById(id))?.serial;
    await eventually('the NOTIFY', async () => received.includes(serial as number));
    // Both nodes hear the change; if the other one sent too, its NOTIFY would arrive at about the same time.
    await new Promise((r) => setTimeout(r, 1500));
    expect(received.filter((s) => s === serial)).toHaveLength(1);

    await leader.close();
    nodes = nodes.filter((n) => n !== leader);
    await eventually('the survivor leading', async () => other.leadership.isLeader(), 20_000);
    await createRecord(other.base, key, id, { Type: 'A', Name: 'www', Target: '192.0.2.1' });
    const next = (await other.services.store.domainById(id))?.serial as number;
    await eventually('the NOTIFY from the new leader', async () => received.includes(next));
  });
});
