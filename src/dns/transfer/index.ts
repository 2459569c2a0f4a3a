/**
 * Zone transfers and NOTIFY. The DNS server hands AXFR/IXFR queries to handleTransfer and NOTIFY
 * messages to handleNotify; startTransfers runs the NOTIFY sender and the zone-mirror puller of a node.
 */
import type { Logger } from 'pino';
import type { Services, ZoneSource } from '../../services/index.js';
import { MirrorPuller } from './mirror.js';
import { NotifySender, type NotifyTarget } from './notify.js';

import { pullZone } from './pull.js';

export { handleTransfer, type TransferRequest } from './outgoing.js';

/**
 * Imports by AXFR (services/zonefiles.ts's ZoneSource): the mirrors' AXFR client, the DNSSEC records a
 * signed primary sends dropped. server.ts gives it to Services.
 */
export const axfrZoneSource: ZoneSource = {
  pull: (server, port, zone, tsig, limits) => pullZone(server, port, zone, tsig, { ...limits, dropDnssec: true, listRefused: true }, () => Math.floor(Date.now() / 1000)),
};
export { handleNotify, type NotifyTarget } from './notify.js';

export interface TransferOptions {
  /** The configured name servers (SOA MNAME and apex NS of master zones). */
  nameservers: readonly string[];
  log: Logger;
  /** Whether this node sends NOTIFY and pulls mirrors (only the cluster leader should); default always. */
  shouldAct?: () => boolean;
  /** First retry of a mirror without a copy (FIRST_RETRY_MS in mirror.ts unless given). */
  mirrorFirstRetryMs?: number;
}

/** The DNS server hands it each NOTIFY it accepts for a zone mirror (NotifyTarget): the puller acts on it. */
export interface RunningTransfers extends NotifyTarget {
  close(): Promise<void>;
}

export async function startTransfers(services: Services, opts: TransferOptions): Promise<RunningTransfers> {
  const shouldAct = opts.shouldAct ?? (() => true);
  const sender = new NotifySender(services, { nameservers: opts.nameservers, log: opts.log, shouldAct });
  const puller = new MirrorPuller(services, { log: opts.log, shouldAct, firstRetryMs: opts.mirrorFirstRetryMs });
  sender.start();
  await puller.start();
  return {
    notified: (domain) => puller.notified(domain),
    async close() {
      await puller.stop();
      await sender.stop();
    },
  };
}
