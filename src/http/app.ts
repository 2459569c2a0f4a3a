/** The HTTP side: one Fastify app serving interface A at / and /api/, interface B at /v1/, the PowerDNS door at /api/v1/, the Linode API v4 door at /v4/. */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { METHODS, type ServerOptions } from 'node:http';
import type { TlsFiles } from '../config.js';
import { tlsServerOptions } from '../tls.js';
import type { Services } from '../services/index.js';
import { DEFAULT_RATE_LIMITS, installRateLimits, type RateLimits } from './ratelimit.js';
import type { Socket } from 'node:net';
import { MAX_TXT_BYTES } from '../model/records/txt.js';
import { isV3Target, v3ClientErrorResponse, v3LimitedReply, v3Routes } from './v3/plugin.js';
import { isV1Path, v1Routes } from './v1/plugin.js';
import { v4LimitedReply } from './v4/errors.js';
import { isV4Path, v4Routes } from './v4/plugin.js';
import { answerDiscovery, isDiscovery, isPdnsPath, pdnsRoutes } from './pdns/plugin.js';
import { pdnsLimitedReply } from './pdns/errors.js';
import { problem, v1LimitedReply } from './v1/problem.js';
import { redactTarget, requestLogSerializers } from './log.js';
import { installMetrics } from './metrics.js';
import { registerPanel } from './panel.js';
import { dnsQueryRoutes, type DnsQuery } from './dns-query.js';

/** How long stopping waits for the requests under way before it closes every connection. */
const CLOSE_GRACE_MS = 5000;

export interface HttpOptions {
  logger: FastifyBaseLogger;
  /** Largest request body accepted, in bytes. */
  bodyLimit?: number;
  /** Serve HTTPS with this certificate and key. */
  tls?: TlsFiles | null;
  rateLimits?: RateLimits;
  /** Addresses/CIDRs of reverse proxies whose X-Forwarded-For is believed (it decides the client address). */
  trustProxy?: string[];
  /** Answers DNS over HTTPS at /dns-query (the node's DNS server); none without. */
  dnsQuery?: DnsQuery;
}

/**
 * HTTPS speaks HTTP/2 and HTTP/1.1 (by ALPN): DNS over HTTPS clients want HTTP/2 (RFC 8484 5.2; kdig +https
 * speaks nothing else), API clients and browsers may take either. The HTTP/1.1 side keeps the plain server's
 * header limit (set on the server: Node's HTTP/2 server reads it there for HTTP/1.1), HTTP/2 gets the same.
 */
function httpsOptions(tls: TlsFiles) {
  return { ...tlsServerOptions(tls), allowHTTP1: true, settings: { maxHeaderListSize: MAX_HEADER_SIZE } };
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Interface A clients (lexicon) send everything in the query string: room for the longest TXT value percent-encoded. */
export const MAX_HEADER_SIZE = 3 * MAX_TXT_BYTES + 64 * 1024;

/**
 * Requests Node's parser refuses before routing (headers too large, malformed, timed out). Interface A
 * answers them with its envelope and HTTP 200; other paths get Fastify's usual JSON error. Node only
 * hands over the packet that failed, so for headers larger than one read (64 KiB) the request line,
 * and with it the path, is unknown: then interface A's stricter contract (never a non-200) wins.
 */
function clientError(err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // A TLS handshake that failed or timed out (the HTTP/2 server passes these on too): nothing to answer in HTTP.
  if (/^ERR_(TLS|SSL)_/.test(err.code ?? '')) return void socket.destroy();
  const packet = Buffer.isBuffer(err.rawPacket) ? err.rawPacket.subarray(0, 8192).toString('latin1') : '';
  const target = /^[A-Z]+ (\/\S*)/.exec(packet)?.[1];
  let response: string;
  if (target === undefined || isV3Target(target)) response = v3ClientErrorResponse(target ?? '');
  else {
    const [status, text] = err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large'] : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout'] : [400, 'Bad Request'];
    // Interface B answers in problem+json even here (an unknown method, say), the v4 door in Linode's errors, the PowerDNS door in its `{"error"}`.
    const unreadable = 'The request could not be read (unknown method, malformed request line or headers too large).';
    const [type, body] = isV1Path(target)
      ? ['application/problem+json', JSON.stringify(problem(status, unreadable))]
      : isV4Path(target)
        ? ['application/json', JSON.stringify({ errors: [{ reason: unreadable }] })]
        : isPdnsPath(target)
          ? ['application/json', JSON.stringify({ error: text })]
          : ['application/json', JSON.stringify({ error: text, message: 'Client Error', statusCode: status })];
    response = `HTTP/1.1 ${status} ${text}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
  }
  if (socket.writable) socket.end(response);
  else socket.destroy();
}

/**
 * Closes every connection of the app's server: an HTTP/1.1 server does it itself; Node's HTTP/2 server (before
 * Node.js 24) cannot, so its connections, HTTP/2 sessions and HTTP/1.1 alike, are kept track of here.
 */
function closeAllConnections(app: FastifyInstance): () => void {
  const server = app.server as unknown as { closeAllConnections?: () => void; on(event: 'connection', listener: (s: Socket) => void): void };
  if (typeof server.closeAllConnections === 'function') return () => server.closeAllConnections?.();
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return () => {
    for (const socket of sockets) socket.destroy();
  };
}

export async function buildApp(services: Services, opts: HttpOptions): Promise<FastifyInstance> {
  const app = Fastify({
    // Typed as the plain server's options: the routes see one FastifyInstance, whichever server carries them.
    ...((opts.tls ? { http2: true, https: httpsOptions(opts.tls) } : { http: { maxHeaderSize: MAX_HEADER_SIZE } }) as { http?: ServerOptions }),
    clientErrorHandler: clientError,
    loggerInstance: opts.logger.child({}, { serializers: requestLogSerializers }),
    ...(opts.trustProxy?.length ? { trustProxy: opts.trustProxy } : {}),
    bodyLimit: opts.bodyLimit ?? DEFAULT_BODY_LIMIT,
    // Interface A is case-insensitive about parameter names, not paths, but /API/ should still work.
    routerOptions: { caseSensitive: false, ignoreTrailingSlash: true },
    return503OnClosing: true,
    // Compiling every route's schemas takes a second or two; on a busy machine Fastify's 10 s default can pass.
    pluginTimeout: 120_000,
  }) as unknown as FastifyInstance;

  // Every method Node parses reaches a route, so each interface answers it in its own format (interface A's
  // envelope, interface B's 405) instead of a bare 404. CONNECT never reaches a request handler.
  for (const method of METHODS) if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) app.addHttpMethod(method);

  if (opts.tls) {
    // What Fastify sets on an HTTP/1.1 server and Node's HTTP/2 server reads for its HTTP/1.1 connections.
    Object.assign(app.server, { maxHeaderSize: MAX_HEADER_SIZE, keepAliveTimeout: app.initialConfig.keepAliveTimeout });
    app.addHook('onSend', async (_req, reply) => {
      reply.header('Strict-Transport-Security', 'max-age=31536000');
    });
  }

  // Stopping waits for the requests under way, but not for ever: after CLOSE_GRACE_MS every connection is
  // closed, so that a client holding one open (an upload the server stopped reading after a 413, say) cannot
  // keep the node from stopping.
  let forceClose: NodeJS.Timeout | undefined;
  const closeAll = closeAllConnections(app);
  app.addHook('preClose', async () => {
    forceClose = setTimeout(closeAll, CLOSE_GRACE_MS);
    forceClose.unref();
  });
  app.addHook('onClose', async () => clearTimeout(forceClose));

  installRateLimits(app, opts.rateLimits ?? DEFAULT_RATE_LIMITS, (req) => (isV1Path(req.url) ? v1LimitedReply : isV4Path(req.url) ? v4LimitedReply : isPdnsPath(req.url) ? pdnsLimitedReply : v3LimitedReply));
  // Before the routes are registered, so that every route's answers are counted.
  installMetrics(app, services.metrics);

  // Fastify's own 404 answer, but with the URL redacted in the log and without its query in the body (the
  // default logs, and echoes, the key a GET client sent).
  app.setNotFoundHandler((req, reply) => {
    req.log.info(`Route ${req.method}:${redactTarget(req.url)} not found`);
    return reply.code(404).send({ message: `Route ${req.method}:${req.url.split('?')[0]} not found`, error: 'Not Found', statusCode: 404 });
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.register(v3Routes(services), { prefix: '/' });
  // GET /api is also where PowerDNS clients ask for the API's versions (the PowerDNS door, at /api/v1).
  await app.register(v3Routes(services, { matches: isDiscovery, answer: answerDiscovery }), { prefix: '/api' });
  await app.register(pdnsRoutes(services));
  // Interface B at /v1 and its documentation page at /docs.
  await app.register(v1Routes(services));
  // The Linode API v4 door at /v4.
  await app.register(v4Routes(services));
  // DNS over HTTPS, when the node serves DNS.
  if (opts.dnsQuery) await app.register(dnsQueryRoutes(opts.dnsQuery));
  // The control panel at /manager/ (a client of interface B).
  await registerPanel(app);
  return app;
}
