/** Interface A: the single endpoint. Parses arguments, authenticates, runs the action, writes the envelope. */
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AuthError, RateLimitedError } from '../../model/errors.js';
import type { Actor, Services } from '../../services/index.js';
import { basicCredentials } from '../credentials.js';
import type { LimitedReply } from '../ratelimit.js';
import { findAction, hasClass } from './actions/index.js';
import { Args } from './args.js';
import { CODES, failed, ok, toV3Errors, type Envelope } from './envelope.js';

export const MAX_BATCH = 50;
const CONTENT_TYPE = 'application/json;charset=UTF-8';

interface Credentials {
  apiKey: string | undefined;
  basic: string[];
}

// The live API allowed any origin (its recorded responses carry the header): keys travel in arguments,
// never in cookies, so a page can only use a key it was given.
const send = (reply: FastifyReply, body: Envelope | Envelope[]) =>
  reply.type(CONTENT_TYPE).header('access-control-allow-origin', '*').send(JSON.stringify(body));

/** A rate-limited interface A request: code 14 in the envelope, with HTTP 429 (and Retry-After, set by the caller). */
export const v3LimitedReply: LimitedReply = (req, reply) => {
  const action = Args.from(req.query, req.body).raw('api_action') ?? '';
  return send(reply.code(429), failed(findAction(action)?.name ?? action, [{ ERRORCODE: CODES.rateLimited, ERRORMESSAGE: 'API rate limit exceeded' }]));
};

/** Whether a request target (path and query) is interface A's endpoint; the router ignores case and a trailing slash. */
export function isV3Target(target: string): boolean {
  return /^\/(?:api\/?)?(?:\?|$)/i.test(target);
}

/**
 * The raw HTTP response for a request Node's parser refused before routing (e.g. headers too large):
 * still an envelope with HTTP 200, because clients such as lexicon fail on any other status.
 */
export function v3ClientErrorResponse(target: string): string {
  const query = new URLSearchParams(target.includes('?') ? target.slice(target.indexOf('?') + 1) : '');
  const action = [...query].find(([name]) => name.toLowerCase() === 'api_action')?.[1] ?? '';
  const body = JSON.stringify(failed(findAction(action)?.name ?? action, [{ ERRORCODE: CODES.badRequest, ERRORMESSAGE: 'Bad request: the request could not be read (the URL or headers may be too large).' }]));
  return `HTTP/1.1 200 OK\r\nContent-Type: ${CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

export function v3Routes(services: Services): FastifyPluginAsync {
  return async (app) => {
    await app.register(formbody);
    await app.register(multipart, { attachFieldsToBody: 'keyValues', limits: { fileSize: 1024 * 1024, files: 10 } });
    // The multipart parser reads the socket itself, past Fastify's body limit, and would hold any number of
    // 1 MiB fields in memory before authentication: so a multipart body must declare its length, within
    // the limit (Node then reads no more than that). Real clients (curl -F, requests, fetch) declare it.
    app.addHook('onRequest', async (req) => {
      if (!req.headers['content-type']?.toLowerCase().startsWith('multipart/')) return;
      const length = Number(req.headers['content-length'] ?? NaN);
      if (!(length <= app.initialConfig.bodyLimit!)) {
        throw Object.assign(new Error('multipart body without a length within the limit'), { statusCode: Number.isNaN(length) ? 411 : 413 });
      }
    });
    // Lexicon sends GET with a JSON body "{}"; v3 never reads JSON bodies, and other bodies are ignored too.
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('*', (_req, payload, done) => {
      payload.resume();
      payload.on('end', () => done(null, undefined));
      payload.on('error', (err) => done(err, undefined));
    });

    async function authenticate(creds: Credentials, remoteAddr: string): Promise<Actor> {
      const candidates = [creds.apiKey, ...creds.basic].filter((k): k is string => !!k);
      for (const key of candidates) {
        try {
          return await services.accounts.authenticate(key, 'v3', remoteAddr);
        } catch (e) {
          if (!(e instanceof AuthError)) throw e;
        }
      }
      throw new AuthError();
    }

    /** Runs one action; `args` are its arguments (for a batch item, the item's own). Sets `state.retryAfter` when throttled. */
    async function runOne(req: FastifyRequest, args: Args, creds: Credentials, inBatch: boolean, state: { retryAfter?: number }): Promise<Envelope | Envelope[]> {
      const requested = args.raw('api_action') ?? '';
      if (requested.trim() === '') return failed('', [{ ERRORCODE: CODES.noAction, ERRORMESSAGE: 'No action was requested' }]);
      if (!inBatch && requested.trim().toLowerCase() === 'batch') return runBatch(req, args, creds, state);
      const action = findAction(requested);
      if (!action) {
        return hasClass(requested)
          ? failed(requested, [{ ERRORCODE: CODES.noMethod, ERRORMESSAGE: 'Method Not Implemented' }])
          : failed(requested, [{ ERRORCODE: CODES.noClass, ERRORMESSAGE: 'The requested class does not exist' }]);
      }
      try {
        const actor = action.auth ? await authenticate(creds, req.ip) : (undefined as unknown as Actor);
        return ok(action.name, await action.run({ args, services, actor, remoteAddr: req.ip }));
      } catch (e) {
        if (e instanceof RateLimitedError) state.retryAfter = e.retryAfterSeconds;
        const errors = toV3Errors(e);
        if (errors) return failed(action.name, errors);
        req.log.error({ err: e, action: action.name }, 'interface A action failed');
        return failed(action.name, [{ ERRORCODE: CODES.badRequest, ERRORMESSAGE: 'The request could not be completed; nothing was changed.' }]);
      }
    }

    async function runBatch(req: FastifyRequest, args: Args, creds: Credentials, state: { retryAfter?: number }): Promise<Envelope | Envelope[]> {
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
        return name === 'batch' || (findAction(name)?.batchable === false);
      });
      if (refused) {
        return failed('batch', [{ ERRORCODE: CODES.denied, ERRORMESSAGE: `Batch requests may not include ${refused.raw('api_action')?.trim()}.` }]);
      }
      const out: Envelope[] = [];
      for (const itemArgs of parsed) {
        // An item may carry its own api_key; otherwise the outer request's credentials apply.
        const itemCreds = { apiKey: itemArgs.raw('api_key') || creds.apiKey, basic: creds.basic };
        out.push((await runOne(req, itemArgs, itemCreds, true, state)) as Envelope);
      }
      return out;
    }

    const handler = async (req: FastifyRequest, reply: FastifyReply) => {
      const args = Args.from(req.query, req.method === 'GET' ? undefined : req.body);
      const creds = { apiKey: args.raw('api_key'), basic: basicCredentials(req) };
      const state: { retryAfter?: number } = {};
      const body = await runOne(req, args, creds, false, state);
      // A throttled sign-in answers like any rate limit: HTTP 429 with Retry-After (a batch keeps 200).
      if (state.retryAfter !== undefined && !Array.isArray(body)) reply.code(429).header('Retry-After', String(state.retryAfter));
      return send(reply, body);
    };
    // No automatic HEAD route: it would run the action (a HEAD could create a domain) and drop the answer.
    app.get('/', { exposeHeadRoute: false }, handler);
    app.post('/', handler);
    // Only GET and POST carry calls; other methods (HEAD too) still get an envelope, never a bare 404.
    app.route({
      method: app.supportedMethods.filter((m) => m !== 'GET' && m !== 'POST'),
      url: '/',
      handler: async (req, reply) => {
        const action = Args.from(req.query).raw('api_action') ?? '';
        return send(reply, failed(findAction(action)?.name ?? action, [{ ERRORCODE: CODES.badRequest, ERRORMESSAGE: `Bad request: use GET or POST, not ${req.method}.` }]));
      },
    });

    // Transport-level failures (unreadable body, body too large) still answer in the envelope.
    app.setErrorHandler((err, req, reply) => {
      const action = Args.from(req.query).raw('api_action') ?? '';
      req.log.info({ err }, 'interface A request rejected');
      const status = (err as { statusCode?: number }).statusCode;
      const message =
        status === 413
          ? 'Bad request: the request body is too large.'
          : status === 411
            ? 'Bad request: a multipart body needs a Content-Length header.'
            : 'Bad request: the request body could not be read.';
      // A body refused before it was read is not read at all: the connection cannot carry another request.
      if (status === 411 || status === 413) reply.header('connection', 'close');
      return send(reply.code(200), failed(findAction(action)?.name ?? action, [{ ERRORCODE: CODES.badRequest, ERRORMESSAGE: message }]));
    });
  };
}
