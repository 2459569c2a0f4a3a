/**
 * A closed-loop HTTP load generator: N connections, each sending its next request when the previous
 * answer has arrived. Written here rather than taken from autocannon because autocannon mis-measures a
 * server that closes every connection after one response, as PowerDNS's web server does: it keeps
 * writing to the closed socket (ECONNRESET) and times the lost requests from their first attempt, which
 * inflated PowerDNS's p50 to about a second. Node's keep-alive agent reconnects only when the server
 * asks for it, so both kinds of server are measured alike.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface LoadRequest {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  /** Called once per request, so each can differ (e.g. a new record name). */
  body?: () => string;
  /**
   * Follow `Link: <…>; rel="next"` to the last page (interface B's cursor pages): the whole listing is
   * one operation, timed and checked as one.
   */
  followNext?: boolean;
}

export interface Measure {
  /** Successful operations (responses, or whole listings when following pages) per second. */
  rps: number;
  /** Latency percentiles over every response, in milliseconds. */
  p50: number;
  p99: number;
  /** Responses the check rejected, plus requests that got no response at all. */
  failed: number;
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  /** Whether a response is a success as the client sees it. */
  ok(status: number, body: string): boolean;
}

interface Response {
  status: number;
  body: string;
  next: string | null;
}

/** The target of a `Link: <…>; rel="next"` header. */
export const NEXT_LINK = /<([^>]+)>\s*;\s*rel="?next"?/;

function send(agent: http.Agent, base: URL, req: LoadRequest): Promise<Response> {
  const body = req.body?.();
  return new Promise((resolve, reject) => {
    const r = http.request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method: req.method,
        path: req.path,
        headers: body === undefined ? req.headers : { ...req.headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        const link = res.headers.link;
        const next = req.followNext && typeof link === 'string' ? (NEXT_LINK.exec(link)?.[1] ?? null) : null;
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), next }));
        res.on('error', reject);
      },
    );
    r.on('error', reject);
    r.end(body);
  });
}

const percentile = (sorted: number[], p: number) => (sorted.length ? (sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number) : 0);

export async function load(url: string, req: LoadRequest, opts: LoadOptions): Promise<Measure> {
  const base = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.connections });
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const start = performance.now();
  const deadline = start + opts.seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: opts.connections }, async () => {
        while (performance.now() < deadline) {
          const t0 = performance.now();
          try {
            let res = await send(agent, base, req);
            let good = opts.ok(res.status, res.body);
            while (good && res.next) {
              res = await send(agent, base, { ...req, path: res.next, method: 'GET' });
              good = opts.ok(res.status, res.body);
            }
            latencies.push(performance.now() - t0);
            if (good) ok++;
            else failed++;
          } catch {
            failed++;
          }
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return { rps: ok / elapsed, p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)), failed };
}
