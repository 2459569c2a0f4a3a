/** /v1/keys (API keys: create with the password, list, revoke) and /v1/events (the account's audit trail). */
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../../model/errors.js';
import type { ApiKeyRow } from '../../../model/account.js';
import type { StoredJournalEntry } from '../../../model/journal.js';
import { PageQuery, problemResponse, success } from '../shared-schemas.js';
import { allowOnly, etagOf, isoTime, page, typed, type ResourceRoutes, type RouteContext } from '../support.js';
import { ApiKey, Event, EventQuery, KeyCreate, KeyParams, NewApiKey } from './schemas.js';

export const v1Key = (k: ApiKeyRow): Static<typeof ApiKey> => ({
  id: k.id,
  label: k.label,
  created: new Date(k.createdAt).toISOString(),
  expires: isoTime(k.expiresAt),
  prefix: k.prefix,
  scope: k.scope,
  member_id: k.userId,
});

const v1Event = (c: StoredJournalEntry): Static<typeof Event> => ({
  id: c.id,
  at: new Date(c.at).toISOString(),
  domain_id: c.domainId,
  action: c.action,
  object_id: c.objectId,
  serial: c.serial,
  key_label: c.keyLabel,
  key_id: c.keyId,
  member: c.username,
  member_id: c.userId,
  interface: c.iface,
  remote_addr: c.remoteAddr,
  before: c.before,
  after: c.after,
});

export const accountRoutes: ResourceRoutes = (ctx) => async (app) => {
  createApiKey(app, ctx);
  listApiKeys(app, ctx);
  readApiKey(app, ctx);
  revokeApiKey(app, ctx);
  listEvents(app, ctx);
  allowOnly(app, '/keys', ['GET', 'POST']);
  allowOnly(app, '/keys/:id', ['GET', 'DELETE']);
  allowOnly(app, '/events', ['GET']);
};

function createApiKey(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).post(
    '/keys',
    {
      config: { public: true },
      schema: {
        tags: ['keys'],
        summary: 'Create an API key',
        description:
          'Takes the account\'s user name and password (no key needed) and answers 201 with the new key, shown only this once. Keys work on both interfaces. An optional `scope` limits the key (docs/interface-b.md, "API keys"). An API key of the same account sent in Authorization caps the new key: its scope (taken when none is given) may not be widened (403) and it expires no later than that key. A user with two-factor sign-in on also sends `otp` (a code or a recovery code; not needed with a key in Authorization): without it the answer is 401 of type .../otp-required (docs/interface-b.md). Wrong credentials or codes answer 401; repeated failures for a user or from an address answer 429 with Retry-After.',
        security: [],
        body: KeyCreate,
        response: { 201: success(NewApiKey, 'The new key (shown only this once)', ['Location']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const { username, password, label, expires, scope, otp, session } = req.body;
      const creator = await ctx.keyActor(req);
      const issued = await ctx.services.accounts.issueKey(username, password, {
        ...(label === undefined ? {} : { label }),
        ...(expires === undefined ? {} : { expiresHours: expires }),
        ...(scope === undefined ? {} : { scope }),
        ...(creator ? { creator } : {}),
        ...(otp === undefined ? {} : { otp }),
        ...(session === undefined ? {} : { session }),
        remoteAddr: req.ip,
        iface: 'v1',
      });
      return reply
        .code(201)
        .header('location', `/v1/keys/${issued.id}`)
        .send({ ...v1Key(issued), key: issued.key });
    },
  );
}

function listApiKeys(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).get(
    '/keys',
    {
      schema: {
        tags: ['keys'],
        summary: "List the account's API keys",
        description: 'Active (unexpired) keys, ordered by id. Only a short prefix of each key is shown; the server does not keep the keys themselves.',
        querystring: PageQuery,
        response: { 200: success(Type.Array(ApiKey), 'A page of keys', ['Link']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      // At most a few dozen keys per account: paged in memory.
      const keys = await ctx.services.accounts.listKeys(actor);
      const rows = await page(req, reply, req.query, async (pg) => keys.filter((k) => k.id > (pg.after ?? 0)).slice(0, pg.limit));
      return rows.map(v1Key);
    },
  );
}

function readApiKey(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).get(
    '/keys/:id',
    {
      schema: { tags: ['keys'], summary: 'Read one API key', params: KeyParams, response: { 200: success(ApiKey, 'The key (without the key itself)', ['ETag']), default: problemResponse } },
    },
    async (req, reply) => {
      const key = (await ctx.services.accounts.listKeys(ctx.actor(req))).find((k) => k.id === req.params.id);
      if (!key) throw new NotFoundError('key');
      const body = v1Key(key);
      return reply.header('etag', etagOf(body)).send(body);
    },
  );
}

function revokeApiKey(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).delete(
    '/keys/:id',
    {
      // Revoking only takes power away: open also to a user held by require_2fa (signing out of the panel).
      config: { factorSetup: true },
      schema: {
        tags: ['keys'],
        summary: 'Revoke an API key',
        description: 'The key stops working at once, on both interfaces (also when it is the key of this request). Answers 204.',
        params: KeyParams,
        response: { 204: Type.Null({ description: 'Revoked' }), default: problemResponse },
      },
    },
    async (req, reply) => {
      if (!(await ctx.services.accounts.revokeKey(ctx.actor(req), req.params.id))) throw new NotFoundError('key');
      return reply.code(204).send(null);
    },
  );
}

function listEvents(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).get(
    '/events',
    {
      schema: {
        tags: ['events'],
        summary: "The account's audit trail",
        description:
          'Every change the account made through any interface, oldest first: who (member, key label, interface, client address), when, and the object before and after; changes to the account itself (members, API keys, TSIG keys) have domain_id 0. Filter by domain id; the history of a deleted domain stays readable.',
        querystring: EventQuery,
        response: { 200: success(Type.Array(Event), 'A page of changes, oldest first', ['Link']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      const { domain, ...p } = req.query;
      const rows = await page(req, reply, p, (pg) => ctx.services.audit.list(actor, { ...pg, ...(domain === undefined ? {} : { domainId: domain }) }));
      return rows.map(v1Event);
    },
  );
}
