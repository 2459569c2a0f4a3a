/**
 * Interface A: the single endpoint. Parses the arguments (query and form fields, bodies.ts), runs the call
 * (dispatch.ts) and writes its envelope (envelope.ts); every answer, a transport failure too, is an envelope.
 */
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../services/index.js';
import { basicCredentials } from '../credentials.js';
import type { LimitedReply } from '../ratelimit.js';
import { Args } from './args.js';
import { acceptFormBodies } from './bodies.js';
import { actionName, runCall, type Call } from './dispatch.js';
import { CODES, envelopeJson, failed, type Envelope } from './envelope.js';

const CONTENT_TYPE = 'application/json;charset=UTF-8';

// The live API allowed any origin (its recorded responses carry the header): keys travel in arguments,
// never in cookies, so a page can only use a key it was given.
const send = (reply: FastifyReply, body: Envelope | Envelope[]) =>
  reply.type(CONTENT_TYPE).header('access-control-allow-origin', '*').send(envelopeJson(body));

/** The envelope of a request refused before its action ran: code 1 (or `code`), named by the action asked for. */
const refusal = (requested: string, message: string, code: number = CODES.badRequest): Envelope =>
  failed(actionName(requested), [{ ERRORCODE: code, ERRORMESSAGE: message }]);

/** The action a request's query asks for (bodies are not read when the request is refused). */
const queriedAction = (req: FastifyRequest): string => Args.from(req.query).raw('api_action') ?? '';

/** A rate-limited interface A request: code 14 in the envelope, with HTTP 429 (and Retry-After, set by the caller). */
export const v3LimitedReply: LimitedReply = (req, reply) => {
  const action = Args.from(req.query, req.body).raw('api_action') ?? '';
  return send(reply.code(429), refusal(action, 'API rate limit exceeded', CODES.rateLimited));
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
  const body = JSON.stringify(refusal(action, 'Bad request: the request could not be read (the URL or headers may be too large).'));
  return `HTTP/1.1 200 OK\r\nContent-Type: ${CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** A call by GET or POST: its arguments and credentials, the call run, its envelope sent. */
async function answerCall(services: Services, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const args = Args.from(req.query, req.method === 'GET' ? undefined : req.body);
  const creds = { apiKey: args.raw('api_key'), basic: basicCredentials(req) };
  const call: Call = { services, req };
  const body = await runCall(call, args, creds, false);
  // A throttled sign-in answers like any rate limit: HTTP 429 with Retry-After (a batch keeps 200).
  if (call.retryAfter !== undefined && !Array.isArray(body)) reply.code(429).header('Retry-After', String(call.retryAfter));
  return send(reply, body);
}

/** Transport-level failures (unreadable body, body too large) still answer in the envelope. */
function answerTransportFailure(err: FastifyError, req: FastifyRequest, reply: FastifyReply): FastifyReply {
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
  return send(reply.code(200), refusal(queriedAction(req), message));
}

/**
 * Another door's answer to some requests at the same path (the PowerDNS door's version list at GET /api, which
 * interface A's endpoint shares): `matches` picks them out, `answer` answers them.
 */
export interface SharedPath {
  matches(req: FastifyRequest): boolean;
  answer(reply: FastifyReply): FastifyReply;
}

function routeCalls(app: FastifyInstance, services: Services, shared: SharedPath | null): void {
  const handler = (req: FastifyRequest, reply: FastifyReply) => (shared?.matches(req) ? shared.answer(reply) : answerCall(services, req, reply));
  // No automatic HEAD route: it would run the action (a HEAD could create a domain) and drop the answer.
  app.get('/', { exposeHeadRoute: false }, handler);
  app.post('/', handler);
  // Only GET and POST carry calls; other methods (HEAD too) still get an envelope, never a bare 404.
  app.route({
    method: app.supportedMethods.filter((m) => m !== 'GET' && m !== 'POST'),
    url: '/',
    handler: async (req, reply) => send(reply, refusal(queriedAction(req), `Bad request: use GET or POST, not ${req.method}.`)),
  });
}

export function v3Routes(services: Services, shared: SharedPath | null = null): FastifyPluginAsync {
  return async (app) => {
    await acceptFormBodies(app);
    routeCalls(app, services, shared);
    app.setErrorHandler(answerTransportFailure);
  };
}
