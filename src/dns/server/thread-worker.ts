/**
 * A DNS worker thread (threads.ts): one more UDP socket on the DNS port, answering repeated questions from its
 * own cache (through the response rate limiter, whose table all threads share) and handing everything else to
 * the main thread. It imports only the wire-level modules (query parsing, the response cache, the options of
 * answers, the limiter) and the choice of steered variants (dns/zone/steer.ts), never the zones or the
 * services: a steered answer comes with the steering of its sets, by which the worker chooses for its clients.
 * Answers carry the client's ECS option, cookie and NSID as the main thread's do, appended to what the cache keeps.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { TCP_MAX } from '../wire/message.js';
import { parseQuery, plainQuery, type Query } from '../wire/query.js';
import { Draws } from '../zone/steer.js';
import { AnswerOptions, type CookieSeen } from './answer-options.js';
import { ResponseCache } from './response-cache.js';
import { answerLimit } from './response.js';
import { RateLimiter } from './rrl.js';
import { ownBytes, type FromWorker, type ThreadZone, type ToWorker, type WorkerSetup } from './thread-messages.js';
import { listenUdp } from './udp.js';

/** Query counts are sent to the main thread this often (its metrics lag the queries by at most this). */
const COUNTS_MS = 100;
/** Messages handed to the main thread and not answered yet, at most; beyond it new ones are dropped (UDP). */
const MAX_ASKED = 10_000;

const port = parentPort;
if (!port) throw new Error('thread-worker.ts runs as a worker thread of the DNS server');
const setup = workerData as WorkerSetup;
const generation = new Int32Array(setup.generation);
const cache = new ResponseCache<ThreadZone>();
const options = new AnswerOptions(setup.options);
/** The random numbers the cache's weighted picks took for the query `now` parsed last, handed on with it by `later`. */
const draws = new Draws();
let seen = Atomics.load(generation, 0);
const counts = new Map<number, { name: string; n: number }>();
const asked = new Map<number, { q: Query | null; limit: number; generation: number }>();
let nextId = 0;
/** The query `now` parsed last, for `later` (udp.ts calls it at once on the same message when `now` misses). */
let missed: Query | null = null;

const send = (m: FromWorker) => port.postMessage(m);
// The main thread logs the networks this thread begins to limit.
const limiter = setup.rrl ? new RateLimiter(setup.rrl, (network) => send({ kind: 'limited', network })) : null;

function count(zone: ThreadZone): void {
  const c = counts.get(zone.id);
  if (c) c.n++;
  else counts.set(zone.id, { name: zone.name, n: 1 });
}

const cookies = options.cookieCounts;
const cookieKinds = Object.keys(cookies) as CookieSeen[];

const flush = setInterval(() => {
  const dropped = limiter?.dropped ?? 0;
  const slipped = limiter?.slipped ?? 0;
  if (counts.size === 0 && dropped === 0 && slipped === 0 && cookieKinds.every((k) => cookies[k] === 0)) return;
  send({ kind: 'counts', counts: [...counts].map(([id, c]) => [id, c.name, c.n]), dropped, slipped, cookies });
  counts.clear();
  if (limiter) limiter.dropped = limiter.slipped = 0;
  for (const k of cookieKinds) cookies[k] = 0;
}, COUNTS_MS);
flush.unref();

/** A plain query this worker may answer from its cache (the main thread decides what is cacheable). */
function plain(raw: Buffer): Query | null {
  try {
    return plainQuery(parseQuery(raw));
  } catch {
    return null;
  }
}

// The main thread has sent the answer itself; what comes back is only for the cache. Or: new cookie secrets.
port.on('message', (m: ToWorker) => {
  if ('kind' in m) return options.setSecrets(m.secrets);
  const a = asked.get(m.id);
  if (!a) return;
  asked.delete(m.id);
  // Kept only if no change happened while the main thread answered: otherwise it may be out of date already.
  if (a.q && m.cache && Atomics.load(generation, 0) === a.generation) {
    const r = m.cache.response;
    cache.put(a.q, Buffer.from(r.buffer, r.byteOffset, r.byteLength), a.limit, m.cache);
  }
});

listenUdp(
  { host: setup.host, port: setup.port, reusePort: true, batch: setup.batch },
  {
    now(msg, from) {
      const g = Atomics.load(generation, 0);
      if (g !== seen) {
        cache.clear();
        seen = g;
      }
      const q = plain(msg);
      missed = q;
      draws.reset();
      if (!q) return null;
      let hit;
      try {
        const extras = options.forQuery(q, msg, from, Date.now);
        hit = cache.get(q, msg, answerLimit(q, 'udp', extras ? extras.options.length : 0), from.receivedAt, extras, from, draws);
        // A miss is counted by the main thread, which answers it.
        if (hit) options.counted(extras);
      } catch {
        // `now` must not throw (the dgram path would take the thread down): the main thread answers instead.
        return null;
      }
      if (!hit) return null;
      if (hit.zone) count(hit.zone);
      if (!limiter) return hit.response;
      return limiter.outgoing(hit.response, hit.cls, from, hit.validServerCookie) ?? 'drop';
    },
    // Called right after `now` missed on the same message: `missed` is its parsed query.
    later(msg, from) {
      if (asked.size >= MAX_ASKED) return;
      const q = missed;
      const id = nextId++;
      // The main thread caches under the same limit: the client's room less its own options.
      asked.set(id, { q, limit: q ? answerLimit(q, 'udp', options.room(q)) : TCP_MAX, generation: seen });
      send({ kind: 'ask', id, raw: ownBytes(msg), address: from.address, port: from.port, draws: q && draws.all.length > 0 ? draws.all : null });
    },
  },
).then(
  () => send({ kind: 'listening' }),
  (e: unknown) => send({ kind: 'failed', message: `DNS worker thread cannot bind UDP ${setup.host}:${setup.port}: ${(e as Error).message}` }),
);
