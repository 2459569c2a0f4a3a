/** Interface A's reply: the {ERRORARRAY, ACTION, DATA} envelope, its error codes, and core-error mapping. */
import {
  AuthError,
  ConflictError,
  InvalidTypeError,
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
} from '../../model/errors.js';

export interface V3Error {
  ERRORCODE: number;
  ERRORMESSAGE: string;
}

export interface Envelope {
  ERRORARRAY: V3Error[];
  ACTION: string;
  DATA: unknown;
}

/** The codes we emit, with Linode's table texts where the real API used the table text. */
export const CODES = {
  badRequest: 1,
  noAction: 2,
  noClass: 3,
  auth: 4,
  notFound: 5,
  missing: 6,
  invalid: 7,
  validation: 8,
  noMethod: 9,
  batchTooLong: 10,
  batchInvalid: 11,
  denied: 13,
  rateLimited: 14,
  /** NEEDTOKEN: user.getapikey of a user with two-factor sign-in, without `token` (Linode's own CLI: docs/interface-a.md). */
  needToken: 44,
} as const;

/** An error that already is in interface A's terms. */
export class V3Failure extends Error {
  constructor(readonly errors: V3Error[]) {
    super(errors.map((e) => e.ERRORMESSAGE).join('; '));
  }
  static of(code: number, message: string): V3Failure {
    return new V3Failure([{ ERRORCODE: code, ERRORMESSAGE: message }]);
  }
}

export const ok = (action: string, data: unknown): Envelope => ({ ERRORARRAY: [], ACTION: action, DATA: data });

/** The JSON of frozen DATA: lists handed to many requests (http/shown-lists.ts), each written once. */
const writtenData = new WeakMap<object, string>();

/** An envelope, or a batch of them, as JSON: what JSON.stringify writes, a frozen DATA's part kept from its first time. */
export function envelopeJson(body: Envelope | Envelope[]): string {
  const data = Array.isArray(body) ? undefined : body.DATA;
  if (!data || typeof data !== 'object' || !Object.isFrozen(data)) return JSON.stringify(body);
  let text = writtenData.get(data);
  if (text === undefined) writtenData.set(data, (text = JSON.stringify(data)));
  const { ERRORARRAY, ACTION } = body as Envelope;
  // The keys in the order ok() and failed() give them, as JSON.stringify would write them.
  return `{"ERRORARRAY":${JSON.stringify(ERRORARRAY)},"ACTION":${JSON.stringify(ACTION)},"DATA":${text}}`;
}
export const failed = (action: string, errors: V3Error[]): Envelope => ({ ERRORARRAY: errors, ACTION: action, DATA: {} });

/** Maps any thrown value to the envelope's errors; unknown errors become code 1 and are logged by the caller. */
export function toV3Errors(e: unknown): V3Error[] | null {
  if (e instanceof V3Failure) return e.errors;
  if (e instanceof RateLimitedError) return [{ ERRORCODE: CODES.rateLimited, ERRORMESSAGE: e.message }];
  if (e instanceof MisconfiguredError) return [{ ERRORCODE: CODES.badRequest, ERRORMESSAGE: e.message }];
  if (e instanceof UnavailableError) {
    return [{ ERRORCODE: CODES.badRequest, ERRORMESSAGE: `Service temporarily unavailable: the database cannot be reached. Try again in ${e.retryAfterSeconds} seconds.` }];
  }
  // Linode's CLI asked for the code on 44 and gave up on 4 (a wrong token is a failed authentication, as here).
  if (e instanceof SecondFactorNeededError) {
    return e.factor === 'totp' ? [{ ERRORCODE: CODES.needToken, ERRORMESSAGE: 'Two-factor authentication token required' }] : [{ ERRORCODE: CODES.denied, ERRORMESSAGE: e.message }];
  }
  // 13 as for a suspension: the key is right, the account's require_2fa holds it back until its user has a factor.
  if (e instanceof SecondFactorSetupError) return [{ ERRORCODE: CODES.denied, ERRORMESSAGE: e.message }];
  if (e instanceof AuthError) return [{ ERRORCODE: CODES.auth, ERRORMESSAGE: 'Authentication failed' }];
  if (e instanceof NotFoundError) return [{ ERRORCODE: CODES.notFound, ERRORMESSAGE: 'Object not found' }];
  // Linode's table: 13 "Permission denied" (docs/interface-a.md); the message names the scope rule.
  if (e instanceof ScopeError) return [{ ERRORCODE: CODES.denied, ERRORMESSAGE: e.message }];
  // 13 too: the credentials are right, the operator's suspension denies them (docs/interface-a.md).
  if (e instanceof SuspendedError) return [{ ERRORCODE: CODES.denied, ERRORMESSAGE: e.message }];
  if (e instanceof InvalidTypeError) return e.problems.map((p) => ({ ERRORCODE: CODES.invalid, ERRORMESSAGE: p.message }));
  if (e instanceof ValidationError) return e.problems.map((p) => ({ ERRORCODE: CODES.validation, ERRORMESSAGE: p.message }));
  if (e instanceof ConflictError || e instanceof LimitError) return [{ ERRORCODE: CODES.validation, ERRORMESSAGE: e.message }];
  return null;
}
