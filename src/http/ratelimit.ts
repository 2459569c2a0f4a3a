/**
 * Request-rate limits, per client address and per presented API key, on every HTTP door. Each door answers in
 * its own format: interface A an envelope with code 14, interface B a 429 problem, the PowerDNS door
 * `{"error"}`; all with HTTP 429 and Retry-After.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { basicCredentials, bearerCredential } from './credentials.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route is not counted (DNS over HTTPS: it answers what DNS answers anyone). */
    unlimited?: boolean;
  }
}

export interface RateLimits {
  /** Requests per minute from one client address; 0 turns the limit off. */
  perAddress: number;
  /** Requests per minute with one API key; 0 turns the limit off. */
  perKey: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { perAddress: 1200, perKey: 600 };

/** How a rate-limited request is answered; each interface registers its own. */
export type LimitedReply = (req: FastifyRequest, reply: FastifyReply, retryAfterSeconds: number) => FastifyReply;

/** The API key a request presents, whatever the interface; not checked here, only counted. */
function presentedKey(req: FastifyRequest): string | undefined {
  const fromArgs = (source: unknown) => {
    if (!source || typeof source !== 'object') return undefined;
    const entry = Object.entries(source as Record<string, unknown>).find(([k]) => k.toLowerCase() === 'api_key');
    return typeof entry?.[1] === 'string' && entry[1] !== '' ? entry[1] : undefined;
  };
  // X-API-Key: the PowerDNS door's header.
  const header = req.headers['x-api-key'];
  return bearerCredential(req) ?? (typeof header === 'string' && header !== '' ? header : undefined) ?? fromArgs(req.query) ?? fromArgs(req.body) ?? basicCredentials(req)[0];
}

export function installRateLimits(app: FastifyInstance, limits: RateLimits, answer: (req: FastifyRequest) => LimitedReply): void {
  const byAddress = limits.perAddress > 0 ? new RateLimiterMemory({ keyPrefix: 'a', points: limits.perAddress, duration: 60 }) : null;
  const byKey = limits.perKey > 0 ? new RateLimiterMemory({ keyPrefix: 'k', points: limits.perKey, duration: 60 }) : null;
  if (!byAddress && !byKey) return;

  app.addHook('preHandler', async (req, reply) => {
    if (req.url === '/healthz' || req.routeOptions.config?.unlimited) return;
    const key = presentedKey(req);
    try {
      await byAddress?.consume(req.ip);
      if (key) await byKey?.consume(createHash('sha256').update(key).digest('hex'));
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      const retryAfter = Math.max(1, Math.ceil(e.msBeforeNext / 1000));
      return answer(req)(req, reply.header('Retry-After', String(retryAfter)), retryAfter);
    }
  });
}
