/** Helpers shared by interface B's routes: the caller, typed routes, method lists, cursor pages, ETags. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import { createHash } from 'node:crypto';
import type { StoredDomain } from '../../model/domain.js';
import type { Actor, Services } from '../../services/index.js';
import type { DomainFilter } from '../../services/domains.js';
import { HttpProblem } from './problem.js';
import { DEFAULT_PAGE } from './shared-schemas.js';

export interface RouteContext {
  services: Services;
  /** The authenticated caller of a request (set by the plugin's auth hook). */
  actor(req: FastifyRequest): Actor;
  /**
   * The caller's domains `filter` lets through (DomainService.list): read with the caller's key where the route
   * told the auth hook its filter (FastifyContextConfig.listsDomains), one round trip instead of two.
   */
  listDomains(req: FastifyRequest, filter: DomainFilter): Promise<StoredDomain[]>;
  /** On a public route: the caller of the API key the request carries, undefined when it carries none (AuthError for a bad one). */
  keyActor(req: FastifyRequest): Promise<Actor | undefined>;
}

/** One resource's routes: a plugin of its own, registered under /v1 (see plugin.ts). */
export type ResourceRoutes = (ctx: RouteContext) => FastifyPluginAsync;

/** The app as a route sees it: params, query and body typed by the route's TypeBox schemas. */
export type TypedApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;
export const typed = (app: FastifyInstance): TypedApp => app.withTypeProvider<TypeBoxTypeProvider>();

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Answers the methods a path does not implement with 405 and `Allow`, and OPTIONS with 204 and `Allow`.
 * Call it after registering the implemented methods of `url`.
 */
export function allowOnly(app: FastifyInstance, url: string, allowed: (typeof METHODS)[number][]): void {
  // HEAD of a GET route is Fastify's own route.
  const methods: string[] = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'];
  const allow = methods.join(', ');
  // Every other method the server routes (see buildApp), so TRACE or PROPFIND get 405 too.
  const others = app.supportedMethods.filter((m) => !methods.includes(m));
  app.route({
    method: 'OPTIONS',
    url,
    schema: { hide: true },
    config: { public: true },
    handler: async (_req, reply) => reply.header('allow', allow).code(204).send(),
  });
  if (others.length === 0) return;
  app.route({
    method: others,
    url,
    schema: { hide: true },
    handler: async (req) => {
      throw new HttpProblem(405, `${req.method} is not allowed here; use ${allow}.`, [], { allow });
    },
  });
}

/** A function that registers one route, given what the collection's routes share. */
type AddRoute<Kit> = (app: FastifyInstance, kit: Kit) => void;

/** The routes of a collection and of its items. */
export interface CollectionRoutes<Kit> {
  list: AddRoute<Kit>;
  create: AddRoute<Kit>;
  read: AddRoute<Kit>;
  /** PUT replaces an item, PATCH changes the fields given. */
  change: (app: FastifyInstance, kit: Kit, method: 'PUT' | 'PATCH') => void;
  remove: AddRoute<Kit>;
}

/** Registers a collection's routes (GET and POST at `list`; GET, PUT, PATCH and DELETE at `one`) and their method lists. */
export function collectionRoutes<Kit>(app: FastifyInstance, urls: { list: string; one: string }, kit: Kit, routes: CollectionRoutes<Kit>): void {
  routes.list(app, kit);
  routes.create(app, kit);
  routes.read(app, kit);
  routes.change(app, kit, 'PUT');
  routes.change(app, kit, 'PATCH');
  routes.remove(app, kit);
  allowOnly(app, urls.list, ['GET', 'POST']);
  allowOnly(app, urls.one, ['GET', 'PUT', 'PATCH', 'DELETE']);
}

/** What page() fetches for a query: one more row than asked. */
export const pageOf = (query: { limit?: number; after?: number }): { after?: number; limit: number } => ({
  ...(query.after === undefined ? {} : { after: query.after }),
  limit: (query.limit ?? DEFAULT_PAGE) + 1,
});

/**
 * One page of a list ordered by id: fetches one more row than asked to know whether a next page exists,
 * and then links to it with `Link: <...>; rel="next"` (the same URL with `after` set to the last id).
 */
export async function page<T extends { id: number }>(
  req: FastifyRequest,
  reply: FastifyReply,
  query: { limit?: number; after?: number },
  fetch: (p: { after?: number; limit: number }) => Promise<T[]>,
): Promise<T[]> {
  const limit = query.limit ?? DEFAULT_PAGE;
  const rows = await fetch(pageOf(query));
  if (rows.length <= limit) return rows;
  const items = rows.slice(0, limit);
  const url = new URL(req.url, 'http://x');
  url.searchParams.set('limit', String(limit));
  url.searchParams.set('after', String(items[items.length - 1]?.id));
  reply.header('link', `<${url.pathname}${url.search}>; rel="next"`);
  return items;
}

/** A strong entity tag of a representation. */
export function etagOf(representation: unknown): string {
  return `"${createHash('sha256').update(JSON.stringify(representation)).digest('base64url').slice(0, 27)}"`;
}

/** Throws 412 when the request carries If-Match and none of its tags is the current one (RFC 9110 13.1.1). */
export function checkIfMatch(req: FastifyRequest, current: string): void {
  const header = req.headers['if-match'];
  if (header === undefined) return;
  const tags = header.split(',').map((t) => t.trim());
  if (tags.includes('*') || tags.includes(current)) return;
  throw new HttpProblem(412, 'The resource has changed since you read it (If-Match does not match its ETag); read it again and retry.', [
    { field: null, reason: `The current ETag is ${current}.` },
  ]);
}

export const isoTime = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
