/**
 * The PowerDNS door's one error mapping: every failure answers `{"error": "…"}` with the status PowerDNS uses
 * for it — 400 for a body that is not JSON, 401 for a missing or wrong key, 404 for an unknown zone or object,
 * 409 for a zone that exists already, 422 for everything PowerDNS calls an ApiException (input it refuses) —
 * plus what only zonehost has: 403 for a key's scope or a suspended account, 429 and 503 with Retry-After.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import {
  AuthError,
  ConflictError,
  LimitError,
  MisconfiguredError,
  NotFoundError,
  RateLimitedError,
  ScopeError,
  SuspendedError,
  UnavailableError,
  ValidationError,
} from '../../model/errors.js';
import { PresentationError } from '../../model/records/index.js';
import { ChangesRejected } from '../../services/bulk-changes.js';
import type { LimitedReply } from '../ratelimit.js';

/** A refusal the door itself decides (PowerDNS's own checks of its input): status and message. */
export class PdnsError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** 422: what PowerDNS answers for input it refuses (its ApiException). */
export const unprocessable = (message: string): PdnsError => new PdnsError(422, message);

export interface PdnsFailure {
  status: number;
  error: string;
  headers?: Record<string, string>;
}

/** A core error (or the door's own) as PowerDNS would answer it; null for anything unexpected. */
export function failureOf(err: unknown): PdnsFailure | null {
  if (err instanceof PdnsError) return { status: err.status, error: err.message };
  if (err instanceof AuthError) return { status: 401, error: 'Unauthorized' };
  if (err instanceof NotFoundError) return { status: 404, error: 'Not Found' };
  if (err instanceof ChangesRejected || err instanceof ValidationError || err instanceof PresentationError || err instanceof LimitError) {
    return { status: 422, error: err.message };
  }
  // A zone rule against what the zone holds (a CNAME beside other data, say): PowerDNS refuses such input with 422.
  if (err instanceof ConflictError) return { status: 422, error: err.message };
  if (err instanceof ScopeError || err instanceof SuspendedError) return { status: 403, error: err.message };
  if (err instanceof RateLimitedError) return { status: 429, error: 'Too many requests', headers: { 'retry-after': String(err.retryAfterSeconds) } };
  if (err instanceof MisconfiguredError) return { status: 503, error: err.message };
  if (err instanceof UnavailableError) {
    return { status: 503, error: 'The database cannot be reached; try again shortly.', headers: { 'retry-after': String(err.retryAfterSeconds) } };
  }
  return null;
}

/** Fastify's own refusals (unreadable or oversized bodies, the route's schema) in PowerDNS's words. */
export function transportFailure(err: FastifyError): PdnsFailure | null {
  if (err.validation) return { status: 422, error: schemaMessage(err) };
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return { status: 413, error: 'Request Entity Too Large' };
  if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') return { status: 400, error: 'Unable to parse JSON' };
  const status = err.statusCode ?? 500;
  return status >= 400 && status < 500 ? { status, error: err.message } : null;
}

/** The first schema problem, as PowerDNS names a JSON key of the wrong type: `Key 'ttl' is not an Integer`. */
function schemaMessage(err: FastifyError): string {
  const first = err.validation?.[0];
  const key = (first?.instancePath ?? '').split('/').filter(Boolean).at(-1) ?? String((first?.params as { missingProperty?: string } | undefined)?.missingProperty ?? '');
  const expected = (first?.params as { type?: string } | undefined)?.type;
  if (first?.keyword === 'required') return `Key '${key}' not present or not a valid value`;
  if (expected) return `Key '${key}' is not ${/^[aeiou]/.test(expected) ? 'an' : 'a'} ${expected === 'integer' ? 'Integer' : expected === 'string' ? 'String' : expected === 'boolean' ? 'Boolean' : expected === 'array' ? 'Array' : expected === 'object' ? 'Object' : expected}`;
  return key ? `Key '${key}' is not valid: ${first?.message ?? ''}`.trim() : `The request body is not valid: ${first?.message ?? ''}`.trim();
}

export function sendFailure(reply: FastifyReply, f: PdnsFailure): FastifyReply {
  for (const [name, value] of Object.entries(f.headers ?? {})) reply.header(name, value);
  return reply.code(f.status).type('application/json').send(JSON.stringify({ error: f.error }));
}

/** Every error in the door: mapped, or logged and answered as a 500 that says nothing was changed. */
export function answerError(err: FastifyError, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const f = failureOf(err) ?? transportFailure(err);
  if (f) return sendFailure(reply, f);
  req.log.error({ err }, 'PowerDNS door request failed');
  return sendFailure(reply, { status: 500, error: 'The request could not be completed.' });
}

/** A rate-limited request to the door: 429 in its shape (Retry-After set by the caller). */
export const pdnsLimitedReply: LimitedReply = (_req, reply) => sendFailure(reply, { status: 429, error: 'Too many requests' });
