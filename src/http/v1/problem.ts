/** Interface B's errors: RFC 9457 problem documents, and the mapping of core and transport errors to them. */
import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import {
  AuthError,
  ConflictError,
  LimitError,
  MisconfiguredError,
  NotFoundError,
  RateLimitedError,
  ScopeError,
  SecondFactorNeededError,
  SecondFactorSetupError,
  SuspendedError,
  UnavailableError,
  ValidationError,
  type FieldProblem,
} from '../../model/errors.js';
import type { LimitedReply } from '../ratelimit.js';

export const PROBLEM_TYPE = 'application/problem+json';

export interface ProblemError {
  field: string | null;
  reason: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors: ProblemError[];
}

/** An HTTP-level failure raised by interface B's own code (412, 405, ...). */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    detail: string,
    readonly errors: ProblemError[] = [],
    readonly headers: Record<string, string | string[]> = {},
  ) {
    super(detail);
  }
}

export const CHALLENGE = ['Bearer realm="zonehost"', 'Basic realm="zonehost"'];

/**
 * Problem types a client acts on (RFC 9457 3.1.1): the sign-in needs a TOTP code, or a passkey; the key works
 * only to set up a second factor. Every other problem is about:blank, its status saying it all. The host is
 * reserved (.invalid): the types name, they are not pages to fetch.
 */
export const PROBLEM_TYPES = {
  otpRequired: 'https://zonehost.invalid/problems/otp-required',
  passkeyRequired: 'https://zonehost.invalid/problems/passkey-required',
  secondFactorSetupRequired: 'https://zonehost.invalid/problems/second-factor-setup-required',
} as const;

export function problem(status: number, detail: string, errors: ProblemError[] = [], type = 'about:blank'): ProblemBody {
  return {
    type,
    title: STATUS_CODES[status] ?? 'Error',
    status,
    detail,
    errors: errors.length > 0 ? errors : [{ field: null, reason: detail }],
  };
}

export function sendProblem(reply: FastifyReply, body: ProblemBody): FastifyReply {
  return reply.code(body.status).type(PROBLEM_TYPE).send(body);
}

/** `axfr/1` from ajv's `/axfr/1`; required and unknown properties name the property itself. */
function fieldOf(e: ErrorObject): string | null {
  const base = e.instancePath.split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required') base.push(String(e.params.missingProperty));
  if (e.keyword === 'additionalProperties') base.push(String(e.params.additionalProperty));
  return base.length > 0 ? base.join('.') : null;
}

const jsonType = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? 'number' : typeof v);
const accepts = (schema: { type?: string; const?: unknown }, v: unknown) => {
  const t = jsonType(v);
  if (schema.const !== undefined) return typeof schema.const === typeof v;
  return schema.type === t || (schema.type === 'integer' && t === 'number');
};

/**
 * Ajv's errors (allErrors, verbose) as problem entries. A failed anyOf is explained by the one branch
 * whose JSON type fits the value (an array given for `axfr` is checked as an array); when none or
 * several fit, by the schema's description.
 */
export function schemaErrors(errors: ErrorObject[], context: string): ProblemError[] {
  const out: ProblemError[] = [];
  const anyOfs = errors.filter((e) => e.keyword === 'anyOf');
  // The innermost anyOf around an error decides whether it is kept.
  const insideAnyOf = (e: ErrorObject) =>
    anyOfs.filter((a) => a !== e && e.schemaPath.startsWith(`${a.schemaPath}/`)).sort((a, b) => b.schemaPath.length - a.schemaPath.length)[0];
  for (const e of errors) {
    const outer = insideAnyOf(e);
    if (outer) {
      const branches = ((outer.schema as unknown[]) ?? []) as { type?: string; const?: unknown }[];
      const fitting = branches.map((b, i) => (accepts(b, outer.data) ? i : -1)).filter((i) => i >= 0);
      // Keep this error only if it belongs to the single branch that fits the value.
      if (fitting.length !== 1 || !e.schemaPath.startsWith(`${outer.schemaPath}/${fitting[0]}/`)) continue;
    }
    if (e.keyword === 'anyOf') {
      const branches = (e.schema as { type?: string; const?: unknown }[]) ?? [];
      if (branches.filter((b) => accepts(b, e.data)).length === 1) continue;
      const description = (e.parentSchema as { description?: string } | undefined)?.description;
      out.push({ field: fieldOf(e), reason: description ? `must be ${description}` : (e.message ?? 'is not valid') });
      continue;
    }
    const field = fieldOf(e);
    let reason = e.message ?? 'is not valid';
    if (e.keyword === 'additionalProperties') reason = 'is not a known field';
    if (e.keyword === 'required') reason = 'is required';
    if (e.keyword === 'enum' || e.keyword === 'const') reason = `must be ${JSON.stringify(e.keyword === 'const' ? e.params.allowedValue : e.params.allowedValues)}`;
    if (field === null && context === 'body' && e.keyword === 'type') reason = 'the body must be a JSON object';
    out.push({ field, reason });
  }
  // One entry per distinct problem (several branches may report the same thing).
  return out.filter((p, i) => out.findIndex((q) => q.field === p.field && q.reason === p.reason) === i);
}

/** Maps the core's field names to interface B's for the resource at hand. */
export type FieldMap = (field: string) => string;

/** The outcome of a body that broke its schema (routes with attachValidation). */
export interface BodyFailure {
  problems: ProblemError[];
  /** The top-level fields of the body that passed the schema. */
  accepted: Record<string, unknown>;
  rejected: Set<string>;
}

/**
 * For routes registered with attachValidation: null when the body matched its schema, otherwise its
 * schema problems and the part of it that passed. Failures of the path or query string are thrown as usual.
 */
export function bodyFailure(req: FastifyRequest): BodyFailure | null {
  const err = req.validationError as FastifyError | undefined;
  if (!err) return null;
  const body = req.body;
  if (err.validationContext !== 'body' || !body || typeof body !== 'object' || Array.isArray(body)) throw err;
  const problems = schemaErrors(err.validation as ErrorObject[], 'body');
  const rejected = new Set(problems.map((p) => (p.field ?? '').split('.')[0] as string));
  const accepted = Object.fromEntries(Object.entries(body).filter(([k]) => !rejected.has(k)));
  return { problems, accepted, rejected };
}

/**
 * Answers a body that broke its schema with every problem found: the schema's, plus the model's rules
 * on the fields that passed the schema and were sent. The rules are only meaningful when every
 * required field passed (otherwise they would judge stand-in values), so then they are skipped.
 */
export function rejectBody(f: BodyFailure, rules: () => FieldProblem[], map: FieldMap, required: readonly string[]): never {
  const judged = required.every((r) => !f.rejected.has(r));
  const more = judged ? rules().map((p) => ({ field: map(p.field), reason: p.message })).filter((p) => p.field in f.accepted) : [];
  const all = [...f.problems, ...more.filter((p, i) => more.findIndex((q) => q.field === p.field && q.reason === p.reason) === i)];
  throw new HttpProblem(400, 'The request is not valid.', all);
}

/** A core error raised where its field names must be translated (see mapFields). */
export class FieldMapped extends Error {
  constructor(
    readonly inner: unknown,
    readonly map: FieldMap,
  ) {
    super(inner instanceof Error ? inner.message : String(inner));
  }
}

/** For `.catch()`: rethrows a core error with the field map of the resource at hand. */
export const mapFields =
  (map: FieldMap) =>
  (e: unknown): never => {
    throw new FieldMapped(e, map);
  };

/** How a 404 names what it did not find, where the core's name is not already the word. */
const NOUNS: Partial<Record<NotFoundError['what'], string>> = { mirror: 'zone mirror', tsigkey: 'TSIG key', healthcheck: 'health check' };

export function problemFor(err: unknown, fieldMap: FieldMap = (f) => f): { body: ProblemBody; headers: Record<string, string | string[]> } | null {
  if (err instanceof FieldMapped) return problemFor(err.inner, err.map);
  const entries = (ps: FieldProblem[]) => ps.map((p) => ({ field: fieldMap(p.field), reason: p.message }));
  if (err instanceof HttpProblem) return { body: problem(err.status, err.message, err.errors), headers: err.headers };
  if (err instanceof RateLimitedError) {
    return { body: problem(429, 'Too many requests; try again later.'), headers: { 'retry-after': String(err.retryAfterSeconds) } };
  }
  if (err instanceof MisconfiguredError) return { body: problem(503, err.message), headers: {} };
  if (err instanceof UnavailableError) {
    return {
      body: problem(503, `The service's database cannot be reached right now; try again in ${err.retryAfterSeconds} seconds. A change that got this answer may not have been made: check before repeating it.`),
      headers: { 'retry-after': String(err.retryAfterSeconds) },
    };
  }
  if (err instanceof SecondFactorNeededError) {
    const type = err.factor === 'totp' ? PROBLEM_TYPES.otpRequired : PROBLEM_TYPES.passkeyRequired;
    return { body: problem(401, err.message, [{ field: err.factor === 'totp' ? 'otp' : null, reason: err.message }], type), headers: { 'www-authenticate': CHALLENGE } };
  }
  if (err instanceof SecondFactorSetupError) return { body: problem(403, err.message, [], PROBLEM_TYPES.secondFactorSetupRequired), headers: {} };
  if (err instanceof AuthError) return { body: problem(401, 'Authentication failed: send a valid API key as a Bearer token or as the Basic password.'), headers: { 'www-authenticate': CHALLENGE } };
  if (err instanceof NotFoundError) return { body: problem(404, `No such ${NOUNS[err.what] ?? err.what}.`), headers: {} };
  if (err instanceof ValidationError) return { body: problem(400, 'The request is not valid.', entries(err.problems)), headers: {} };
  if (err instanceof ConflictError) {
    return { body: problem(409, err.message, err.field === null ? undefined : entries([{ field: err.field, message: err.message }])), headers: {} };
  }
  // A count limit is about the account's data, not about a field of the request.
  if (err instanceof LimitError) return { body: problem(409, err.message), headers: {} };
  // The error's field names the scope rule that refused (scope.read_only, scope.records.names, ...).
  // The credentials are right; the account may not act until the operator resumes it.
  if (err instanceof SuspendedError) return { body: problem(403, err.message), headers: {} };
  if (err instanceof ScopeError) return { body: problem(403, err.message, [{ field: `scope.${err.rule}`, reason: err.message }]), headers: {} };
  return null;
}

/** Transport and schema errors raised by Fastify itself. */
export function fastifyProblem(err: FastifyError): ProblemBody | null {
  if (err.validation) {
    const where = err.validationContext ?? 'body';
    const what = where === 'body' ? 'body' : where === 'querystring' ? 'query string' : 'path';
    return problem(400, `The request ${what} does not match its schema.`, schemaErrors(err.validation as ErrorObject[], where));
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem(413, 'The request body is too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return err.statusCode === 415 ? problem(415, 'Send the body as application/json.') : problem(400, err.message);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return problem(400, 'The body is empty; send a JSON object.');
  }
  if (err instanceof SyntaxError || err.code === 'FST_ERR_CTP_INVALID_JSON_BODY') return problem(400, 'The body is not valid JSON.');
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return problem(status, err.message);
  return null;
}

/** A rate-limited interface B request: a 429 problem (Retry-After is set by the caller). */
export const v1LimitedReply: LimitedReply = (_req: FastifyRequest, reply, retryAfter) =>
  sendProblem(reply, problem(429, `Too many requests; try again in ${retryAfter} seconds.`));
