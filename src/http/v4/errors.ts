/**
 * The v4 door's errors, as Linode's API v4 answers them: `{"errors": [{"reason", "field"}]}` (`field` only
 * when one input is at fault) with 400, 401, 403 or 404; the core's typed errors and Fastify's are mapped
 * here, in one place.
 */
import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyReply } from 'fastify';
import { AuthError, ConflictError, LimitError, MisconfiguredError, NotFoundError, RateLimitedError, ScopeError, SuspendedError, UnavailableError, ValidationError } from '../../model/errors.js';
import { ChangesRejected } from '../../services/bulk-changes.js';
import type { LimitedReply } from '../ratelimit.js';

export interface V4Error {
  reason: string;
  field?: string;
}

/** An answer in the door's terms, raised by its own code (a bad X-Filter, a field Linode refuses). */
export class V4Failure extends Error {
  constructor(
    readonly status: number,
    readonly errors: V4Error[],
    readonly headers: Record<string, string> = {},
  ) {
    super(errors.map((e) => e.reason).join(' '));
  }

  static of(status: number, reason: string, field?: string): V4Failure {
    return new V4Failure(status, [field === undefined ? { reason } : { reason, field }]);
  }
}

// A core error's field names as the resource at hand names them: interface B's mechanism, shared.
export { FieldMapped, mapFields, type FieldMap } from '../v1/problem.js';
import { FieldMapped, type FieldMap } from '../v1/problem.js';

const entry = (reason: string, field: string | null | undefined): V4Error => (field ? { reason, field } : { reason });

/** The v4 answer for a core error, or null for an error that is not one (logged and answered as a failure). */
export function v4Failure(err: unknown, map: FieldMap = (f) => f): V4Failure | null {
  if (err instanceof FieldMapped) return v4Failure(err.inner, err.map);
  if (err instanceof V4Failure) return err;
  if (err instanceof AuthError) return V4Failure.of(401, 'Invalid Token');
  if (err instanceof SuspendedError) return V4Failure.of(403, err.message);
  // Linode's reason is "Unauthorized"; ours names the scope rule that refused.
  if (err instanceof ScopeError) return V4Failure.of(403, err.message);
  if (err instanceof NotFoundError) return V4Failure.of(404, 'Not found');
  if (err instanceof ValidationError) return new V4Failure(400, err.problems.map((p) => entry(p.message, map(p.field))));
  if (err instanceof ConflictError) return new V4Failure(400, [entry(err.message, err.field && map(err.field))]);
  if (err instanceof LimitError) return V4Failure.of(400, err.message);
  if (err instanceof ChangesRejected) return new V4Failure(400, err.problems.map((p) => entry(p.message, p.field && map(p.field))));
  if (err instanceof RateLimitedError) return new V4Failure(429, [{ reason: 'Too Many Requests' }], { 'retry-after': String(err.retryAfterSeconds) });
  if (err instanceof MisconfiguredError) return V4Failure.of(503, err.message);
  if (err instanceof UnavailableError) {
    return new V4Failure(503, [{ reason: `The service's database cannot be reached; try again in ${err.retryAfterSeconds} seconds.` }], { 'retry-after': String(err.retryAfterSeconds) });
  }
  return null;
}

/** `ttl_sec` from ajv's `/ttl_sec`; a missing property names itself. */
function fieldOf(e: ErrorObject): string | undefined {
  const path = e.instancePath.split('/').filter(Boolean);
  if (e.keyword === 'required') path.push(String(e.params.missingProperty));
  return path.length > 0 ? path.join('.') : undefined;
}

/** Schema failures and transport errors raised by Fastify (bad JSON, a body too large, a wrong media type). */
export function fastifyFailure(err: FastifyError): V4Failure | null {
  if (err.validation) {
    const where = err.validationContext;
    return new V4Failure(
      400,
      (err.validation as ErrorObject[]).map((e) => {
        const field = fieldOf(e);
        if (e.keyword === 'required') return entry('This field is required.', field);
        if (!field && where === 'body') return { reason: 'The request body must be a JSON object.' };
        const reason = e.keyword === 'enum' ? `Must be one of ${(e.params.allowedValues as unknown[]).join(', ')}.` : `Must ${(e.message ?? 'be valid').replace(/^must /, '')}.`;
        return entry(reason, field);
      }),
    );
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return V4Failure.of(413, 'The request body is too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return V4Failure.of(415, 'Send the request body as JSON (Content-Type: application/json).');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return V4Failure.of(400, 'The Content-Length does not match the body.');
  }
  if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return V4Failure.of(400, 'The request body is not valid JSON.');
  const status = err.statusCode ?? 500;
  return status >= 400 && status < 500 ? V4Failure.of(status, err.message) : null;
}

export function sendFailure(reply: FastifyReply, f: V4Failure): FastifyReply {
  for (const [name, value] of Object.entries(f.headers)) reply.header(name, value);
  return reply.code(f.status).type('application/json').send({ errors: f.errors });
}

/** A rate-limited v4 request: 429 as Linode answers it (Retry-After set by the caller). */
export const v4LimitedReply: LimitedReply = (_req, reply) => sendFailure(reply, V4Failure.of(429, 'Too Many Requests'));
