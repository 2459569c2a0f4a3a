/**
 * DNS on several threads (`--dns-threads`). Worker threads bind the DNS port's UDP too (SO_REUSEPORT, Node.js
 * 22.12+ on Linux), so the kernel spreads clients over them and the main thread. A worker answers a question
 * it has answered before from its own cache of encoded answers, and hands everything else (first questions,
 * UPDATE, NOTIFY, TSIG) to the main thread, which holds the one copy of the zones: memory does not grow with
 * the number of threads. The main thread sends those answers itself, from its own socket on the same port (one
 * hop less), and tells the worker afterwards what it may cache. TCP (transfers, truncated answers) stays on the
 * main thread.
 *
 * Freshness: every zone change raises a counter in shared memory, synchronously with the change event, which a
 * write emits before it is acknowledged; a worker empties its cache whenever it sees the counter move, and
 * keeps an answer only if the counter did not move while the main thread made it. So the first query after
 * an acknowledged write, on any thread, is answered from the new data.
 */
import { Worker } from 'node:worker_threads';
import type { Socket as UdpSocket } from 'node:dgram';
import type { Logger } from 'pino';
import type { Services } from '../../services/index.js';
import type { DnsHandler } from './server.js';

/** What a worker's cache entry keeps of the zone that answered, for metrics and a mirror's expiry. */
export interface ThreadZone {
  id: number;
  name: string;
  expiresAt: number | null;
}

/** Worker -> main: a message to answer, or the queries a worker answered from its cache, by zone. */
export type FromWorker =
  | { kind: 'ask'; id: number; raw: Uint8Array; address: string; port: number }
  | { kind: 'counts'; counts: [id: number, name: string, n: number][] }
  | { kind: 'listening' }
  | { kind: 'failed'; message: string };

/** Main -> worker, once the main thread has sent the answers to an `ask`: the one the worker may cache, and under what. */
export interface Answered {
  id: number;
  cache: { response: Uint8Array; zone: ThreadZone | null; staleAt: number } | null;
}

export interface WorkerSetup {
  host: string;
  port: number;
  /** Int32Array over a SharedArrayBuffer: [0] is the change counter. */
  generation: SharedArrayBuffer;
}

/** Why this process cannot answer DNS on more than one thread, or null when it can. */
export function singleThreadReason(): string | null {
  if (process.platform !== 'linux') return `UDP port sharing (SO_REUSEPORT) is used on Linux only, not on ${process.platform}`;
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 12)) return `UDP port sharing (reusePort) needs Node.js 22.12 or later; this is ${process.versions.node}`;
  return null;
}

export interface DnsThreads {
  /** Threads answering UDP, the main one included. */
  count: number;
  /** The zones in memory changed (a load or rebuild installed): workers' cached answers are out of date. */
  changed(): void;
  close(): Promise<void>;
}

/**
 * Starts `threads - 1` workers on the UDP port the main thread has bound with reusePort (`socket`), and
 * resolves once each listens. `handler` answers what they hand over, sent from `socket`; `services.bus`
 * changes (and `changed()`) move the shared counter.
 */
export async function startDnsThreads(threads: number, socket: UdpSocket, handler: DnsHandler, services: Services, log: Logger): Promise<DnsThreads> {
  const { address: host, port } = socket.address();
  const generation = new SharedArrayBuffer(4);
  const counter = new Int32Array(generation);
  const bump = () => void Atomics.add(counter, 0, 1);
  const offBus = services.bus.on(bump);
  const workers: Worker[] = [];
  const setup: WorkerSetup = { host, port, generation };
  try {
    for (let i = 1; i < threads; i++) {
      const worker = new Worker(new URL('./thread-worker.js', import.meta.url), { workerData: setup });
      workers.push(worker);
      await new Promise<void>((resolve, reject) => {
        worker.on('error', reject);
        worker.on('exit', (code) => reject(new Error(`DNS worker thread exited with ${code}`)));
        worker.on('message', (m: FromWorker) => {
          if (m.kind === 'listening') resolve();
          else if (m.kind === 'failed') reject(new Error(m.message));
          else if (m.kind === 'counts') for (const [id, name, n] of m.counts) services.metrics.countQuery(id, name, n);
          else {
            handler.answerForThread(Buffer.from(m.raw), m.address).then(
              (a) => {
                for (const out of a.outs) socket.send(out, m.port, m.address, () => undefined);
                const first = a.outs[0];
                worker.postMessage({ id: m.id, cache: a.cache && first ? { ...a.cache, response: first } : null } satisfies Answered);
              },
              (e: unknown) => {
                log.warn({ err: (e as Error).message }, 'DNS answer for a worker thread failed');
                worker.postMessage({ id: m.id, cache: null } satisfies Answered);
              },
            );
          }
        });
      });
      worker.removeAllListeners('error').removeAllListeners('exit');
      worker.on('error', (e) => log.error({ err: e.message }, 'DNS worker thread failed'));
    }
  } catch (e) {
    offBus();
    await Promise.all(workers.map((w) => w.terminate()));
    throw e;
  }
  return {
    count: threads,
    changed: bump,
    async close() {
      offBus();
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
