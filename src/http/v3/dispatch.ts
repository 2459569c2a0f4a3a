/**
 * Interface A's dispatch: one call's `api_action` to its action (or to the batch of calls it carries),
 * authenticated when the action needs a key, its outcome as an envelope.
 */
import type { FastifyRequest } from 'fastify';
import { AuthError, RateLimitedError } from '../../model/errors.js';
import type { Actor, Services } from '../../services/index.js';
import { findAction, hasClass, type Action } from './actions/index.js';
import { Args } from './args.js';
import { CODES, failed, ok, toV3Errors, type Envelope } from './envelope.js';

export const MAX_BATCH = 50;

/** The keys a call carries: `api_key`, and the passwords of HTTP Basic. */
export interface Credentials {
  apiKey: string | undefined;
  basic: string[];
}

/** What one request's calls share (a batch's items too). */
export interface Call {
  services: Services;
  req: FastifyRequest;
  /** Set when an action was throttled: the answer then carries HTTP 429 and Retry-After. */
  retryAfter?: number;
}

/** The action's own name when the server knows it, else the name as asked (an envelope's ACTION). */
export const actionName = (requested: string): string => findAction(requested)?.name ?? requested;

/** What `use` gives for the first key the call carries that authenticates (use throws AuthError for one that does not). */
async function withFirstKey<T>(creds: Credentials, use: (key: string) => Promise<T>): Promise<T> {
  const candidates = [creds.apiKey, ...creds.basic].filter((k): k is string => !!k);
  for (const key of candidates) {
    try {
      return await use(key);
    } catch (e) {
      if (!(e instanceof AuthError)) throw e;
    }
  }
  throw new AuthError();
}

/** Runs one call; `args` are its arguments (for a batch item, the item's own). */
export async function runCall(call: Call, args: Args, creds: Credentials, inBatch: boolean): Promise<Envelope | Envelope[]> {
  const requested = args.raw('api_action') ?? '';
  if (requested.trim() === '') return failed('', [{ ERRORCODE: CODES.noAction, ERRORMESSAGE: 'No action was requested' }]);
  if (!inBatch && requested.trim().toLowerCase() === 'batch') return runBatch(call, args, creds);
  const action = findAction(requested);
  if (!action) {
    return hasClass(requested)
      ? failed(requested, [{ ERRORCODE: CODES.noMethod, ERRORMESSAGE: 'Method Not Implemented' }])
      : failed(requested, [{ ERRORCODE: CODES.noClass, ERRORMESSAGE: 'The requested class does not exist' }]);
  }
  return runAction(call, action, args, creds);
}

/** The action's result, or its failure in interface A's codes (an unexpected one is logged and answered as code 1). */
async function runAction(call: Call, action: Action, args: Args, creds: Credentials): Promise<Envelope> {
  const { services, req } = call;
  try {
    const byKey = action.auth ? action.withKey?.(args) : undefined;
    if (byKey) return ok(action.name, await withFirstKey(creds, (key) => byKey(key, { args, services, remoteAddr: req.ip })));
    const actor = action.auth ? await withFirstKey(creds, (key) => services.accounts.authenticate(key, 'v3', req.ip)) : (undefined as unknown as Actor);
    return ok(action.name, await action.run({ args, services, actor, remoteAddr: req.ip }));
  } catch (e) {
    if (e instanceof RateLimitedError) call.retryAfter = e.retryAfterSeconds;
    const errors = toV3Errors(e);
    if (errors) return failed(action.name, errors);
    req.log.error({ err: e, action: action.name }, 'interface A action failed');
    return failed(action.name, [{ ERRORCODE: CODES.badRequest, ERRORMESSAGE: 'The request could not be completed; nothing was changed.' }]);
  }
}

/** The calls of `api_requestArray`, or the envelope refusing the batch. */
function batchItems(args: Args): Args[] | Envelope {
  let items: unknown;
  try {
    items = JSON.parse(args.raw('api_requestArray') ?? '');
  } catch {
    items = undefined;
  }
  if (!Array.isArray(items) || !items.every((i) => i && typeof i === 'object' && !Array.isArray(i))) {
    return failed('batch', [{ ERRORCODE: CODES.batchInvalid, ERRORMESSAGE: "RequestArray isn't valid JSON or WDDX" }]);
  }
  if (items.length > MAX_BATCH) {
    return failed('batch', [{ ERRORCODE: CODES.batchTooLong, ERRORMESSAGE: `Too many batched requests; at most ${MAX_BATCH} are allowed.` }]);
  }
  const parsed = items.map((i) => Args.from(i));
  const refused = parsed.find((a) => {
    const name = (a.raw('api_action') ?? '').trim().toLowerCase();
    return name === 'batch' || findAction(name)?.batchable === false;
  });
  if (refused) {
    return failed('batch', [{ ERRORCODE: CODES.denied, ERRORMESSAGE: `Batch requests may not include ${refused.raw('api_action')?.trim()}.` }]);
  }
  return parsed;
}

/** `batch`: its calls one after another, one envelope each. */
async function runBatch(call: Call, args: Args, creds: Credentials): Promise<Envelope | Envelope[]> {
  const items = batchItems(args);
  if (!Array.isArray(items)) return items;
  const out: Envelope[] = [];
  for (const itemArgs of items) {
    // An item may carry its own api_key; otherwise the outer request's credentials apply.
    const itemCreds = { apiKey: itemArgs.raw('api_key') || creds.apiKey, basic: creds.basic };
    out.push((await runCall(call, itemArgs, itemCreds, true)) as Envelope);
  }
  return out;
}
