/**
 * Zone transfers and NOTIFY. The DNS server hands AXFR/IXFR queries to handleTransfer and NOTIFY
 * messages to handleNotify; startTransfers runs the NOTIFY sender and the zone-mirror puller of a node.
 */
import type { Logger } from 'pino';
import type { Services } from '../../services/index.js';
import { MirrorPuller } from './mirror.js';
import { NotifySender, registerPuller } from './notify.js';

export { handleTransfer, type TransferRequest } from './outgoing.js';
export { handleNotify } from './notify.js';

export interface TransferOptions {
  /** The configured name servers (SOA MNAME and apex NS of master zones). */
  nameservers: readonly string[];
  log: Logger;
  /** Whether this node sends NOTIFY and pulls mirrors (only the cluster leader should); default always. */
  shouldAct?: () => boolean;
  /** First retry of a mirror without a copy (FIRST_RETRY_MS in mirror.ts unless given). */
  mirrorFirstRetryMs?: number;
}

export interface RunningTransfers {
  close(): Promise<void>;
}

export async function startTransfers(services: Services, opts: TransferOptions): Promise<RunningTransfers> {
  const shouldAct = opts.shouldAct ?? (() => true);
  const sender = new NotifySender(services, { nameservers: opts.nameservers, log: opts.log, shouldAct });
  const puller = new MirrorPuller(services, { log: opts.log, shouldAct, firstRetryMs: opts.mirrorFirstRetryMs });
  sender.start();
  registerPuller(services, puller);
  await puller.start();
  return {
    async close() {
      registerPuller(services, null);
      await puller.stop();
      await sender.stop();
    },
  };
}
