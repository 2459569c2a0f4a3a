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
import type { Logger } from 'pino';
import type { Services } from '../../services/index.js';
import type { CookieSecret } from '../../model/cookie-secret.js';
import type { AnswerOptions, CookieSeen } from './answer-options.js';
import { sharedAnswer, type DnsHandler } from './handler.js';
import type { RateLimiter } from './rrl.js';
import type { Chosen } from '../zone/result.js';
import { ownBytes, type Answered, type FromWorker, type NewSecrets, type WorkerSetup } from './thread-messages.js';
import type { UdpEndpoint } from './udp-socket.js';
import { senderOf, udpPathReason } from './udp.js';

/**
 * Why this process cannot answer DNS on more than one thread with `batch` datagrams per call (udp.ts), or null
 * when it can: the batched path sets SO_REUSEPORT itself, dgram's needs Node.js 22.12+.
 */
export function singleThreadReason(batch: number): string | null {
  if (process.platform !== 'linux') return `UDP port sharing (SO_REUSEPORT) is used on Linux only, not on ${process.platform}`;
  const dgram = udpPathReason(batch);
  if (dgram === null) return null;
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 12)) {
    return `UDP goes through dgram (${dgram}), whose port sharing (reusePort) needs Node.js 22.12 or later, and this is ${process.versions.node}: build the native module (npm run build:native) or run zonehost on Node.js 24 to answer on every core`;
  }
  return null;
}

export interface DnsThreads {
  /** Threads answering UDP, the main one included. */
  count: number;
  /** The zones in memory changed (a load or rebuild installed): workers' cached answers are out of date. */
  changed(): void;
  /** New cookie secrets, for every worker. */
  setSecrets(secrets: CookieSecret[]): void;
  close(): Promise<void>;
}

/** What the main thread does for its workers: answer what they hand over (rate-limited), count what they answered. */
interface ForWorkers {
  socket: UdpEndpoint;
  handler: DnsHandler;
  limiter: RateLimiter | null;
  /** The main thread's answer options, whose cookie counts /metrics reads. */
  options: AnswerOptions;
  services: Services;
  log: Logger;
}

/**
 * Starts `threads - 1` workers on the UDP port the main thread has bound with reusePort (`socket`), and
 * resolves once each listens (`udp`: where, its batch size, the rate limiter's table). `handler` answers what
 * they hand over, sent from `socket` through `limiter` (over the same table); `services.bus` changes (and
 * `changed()`) move the shared counter.
 */
export async function startDnsThreads(threads: number, udp: Omit<WorkerSetup, 'generation'>, socket: UdpEndpoint, handler: DnsHandler, limiter: RateLimiter | null, options: AnswerOptions, services: Services, log: Logger): Promise<DnsThreads> {
  const generation = new SharedArrayBuffer(4);
  const counter = new Int32Array(generation);
  const bump = () => void Atomics.add(counter, 0, 1);
  const offBus = services.bus.on(bump);
  const workers: Worker[] = [];
  const setup: WorkerSetup = { ...udp, generation };
  const main: ForWorkers = { socket, handler, limiter, options, services, log };
  try {
    for (let i = 1; i < threads; i++) {
      const worker = new Worker(new URL('./thread-worker.js', import.meta.url), { workerData: setup });
      workers.push(worker);
      await serveWorker(worker, main);
    }
  } catch (e) {
    offBus();
    await Promise.all(workers.map((w) => w.terminate()));
    throw e;
  }
  return {
    count: threads,
    changed: bump,
    setSecrets(secrets) {
      for (const w of workers) w.postMessage({ kind: 'secrets', secrets } satisfies NewSecrets);
    },
    async close() {
      offBus();
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

/** Serves a worker's messages from now on; resolves once it listens, rejects when it cannot. */
async function serveWorker(worker: Worker, main: ForWorkers): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    worker.on('error', reject);
    worker.on('exit', (code) => reject(new Error(`DNS worker thread exited with ${code}`)));
    worker.on('message', (m: FromWorker) => {
      if (m.kind === 'listening') resolve();
      else if (m.kind === 'failed') reject(new Error(m.message));
      else if (m.kind === 'counts') countForWorker(m, main);
      else if (m.kind === 'limited') main.limiter?.onLimited(m.network);
      else answerForWorker(worker, m, main);
    });
  });
  worker.removeAllListeners('error').removeAllListeners('exit');
  worker.on('error', (e) => main.log.error({ err: e.message }, 'DNS worker thread failed'));
}

/** A worker's report: queries answered from its cache and their cookies, answers its rate limiter dropped and slipped. */
function countForWorker(m: Extract<FromWorker, { kind: 'counts' }>, { services, limiter, options }: ForWorkers): void {
  for (const [id, name, n] of m.counts) services.metrics.countQuery(id, name, n);
  for (const k of Object.keys(m.cookies) as CookieSeen[]) options.cookieCounts[k] += m.cookies[k];
  if (!limiter) return;
  limiter.dropped += m.dropped;
  limiter.slipped += m.slipped;
}

/** A steered answer's choices as a worker is sent them: each set's steering without the variants made of it (zone RRsets). */
const transferable = (choices: Chosen[] | null): Chosen[] | null => choices && choices.map(({ steering: { items, one }, key }) => ({ steering: { items, one }, key }));

/**
 * Answers a message a worker handed over, sent from the main thread's socket through the rate limiter, then
 * tells the worker what it may cache: for a plain query the answer, the zone that gave it, until when, its class,
 * the variant it is.
 */
function answerForWorker(worker: Worker, m: Extract<FromWorker, { kind: 'ask' }>, { socket, handler, limiter, log }: ForWorkers): void {
  // A view: the message's bytes are its own (ownBytes).
  const raw = Buffer.from(m.raw.buffer, m.raw.byteOffset, m.raw.byteLength);
  const quick = handler.quickAnswer(raw, 'udp', m.address, m.draws);
  const answered = quick ? Promise.resolve({ outs: [quick.response], cls: quick.cls, verifiedClient: quick.validServerCookie }) : handler.answers(raw, m.address, 'udp');
  answered.then(
    (a) => {
      const outs = limiter ? limiter.outgoingAll(a.outs, a.cls, senderOf(m.address), a.verifiedClient) : a.outs;
      for (const out of outs) socket.send(out, m);
      const z = quick?.zone;
      const cache = quick ? { response: ownBytes(sharedAnswer(quick)), zone: z ? { id: z.id, name: z.name, expiresAt: z.expiresAt } : null, staleAt: quick.staleAt, cls: quick.cls, choices: transferable(quick.choices) } : null;
      worker.postMessage({ id: m.id, cache } satisfies Answered);
    },
    (e: unknown) => {
      log.warn({ err: (e as Error).message }, 'DNS answer for a worker thread failed');
      worker.postMessage({ id: m.id, cache: null } satisfies Answered);
    },
  );
}
