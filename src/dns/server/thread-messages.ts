/**
 * What the main thread and a DNS worker thread (threads.ts, thread-worker.ts) say to each other: types, and how
 * messages' bytes travel. Nothing else, so the worker loads nothing of the main thread's side.
 */
import type { RrlTable } from './rrl.js';
import type { CookieSecret } from '../../model/cookie-secret.js';
import type { Chosen } from '../zone/result.js';
import type { AnswerOptionsSetup, CookieCounts } from './answer-options.js';

/** What a worker's cache entry keeps of the zone that answered, for metrics and a mirror's expiry. */
export interface ThreadZone {
  id: number;
  name: string;
  expiresAt: number | null;
}

/**
 * Worker -> main: a message to answer (with the random numbers its cache's weighted picks took for it: steer.ts
 * Draws); the queries a worker answered from its cache, by zone, the answers its rate limiter dropped and slipped
 * and the cookies of those queries since it last said; a network whose answers it began to limit (to be logged).
 */
export type FromWorker =
  | { kind: 'ask'; id: number; raw: Uint8Array; address: string; port: number; draws: readonly number[] | null }
  | { kind: 'counts'; counts: [id: number, name: string, n: number][]; dropped: number; slipped: number; cookies: CookieCounts }
  | { kind: 'limited'; network: string }
  | { kind: 'listening' }
  | { kind: 'failed'; message: string };

/**
 * Main -> worker, once the main thread has sent the answers to an `ask`: the one the worker may cache, and under
 * what; for a steered answer, the variant it is (each steered set's steering, as the worker chooses by it too).
 */
export interface Answered {
  id: number;
  cache: { response: Uint8Array; zone: ThreadZone | null; staleAt: number; cls: number; choices: Chosen[] | null } | null;
}

/** Main -> worker: the cookie secrets from now on (a rollover). */
export interface NewSecrets {
  kind: 'secrets';
  secrets: CookieSecret[];
}

export type ToWorker = Answered | NewSecrets;

export interface WorkerSetup {
  host: string;
  port: number;
  /** Datagrams per system call (udp.ts); 0 takes the dgram path. */
  batch: number;
  /** Int32Array over a SharedArrayBuffer: [0] is the change counter. */
  generation: SharedArrayBuffer;
  /** The response rate limiter's shared table (rrl.ts); null when RRL is off. */
  rrl: RrlTable | null;
  /** The cookie secrets and NSID, so the worker's answers carry what the main thread's do. */
  options: AnswerOptionsSetup;
}

/**
 * `bytes` in an ArrayBuffer of their own, as a message carries them: postMessage copies a view's whole buffer,
 * and a Buffer of a few dozen octets is a view of Node.js's 8 KiB pool (a query and its answer crossed as 16 KiB).
 */
export const ownBytes = (bytes: Uint8Array): Uint8Array => (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length ? bytes : new Uint8Array(bytes));
