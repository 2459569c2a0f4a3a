/** /v1/healthchecks: the account's health checks, which records' steering follows (docs/interface-b.md). */
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkHealthCheck, withDefaults, type HealthCheckData, type StoredHealthCheck } from '../../../model/health-check.js';
import type { Precondition } from '../../../services/zone-writer.js';
import { bodyFailure, rejectBody } from '../problem.js';
import { PageQuery, problemResponse, success } from '../shared-schemas.js';
import { allowOnly, checkIfMatch, etagOf, isoTime, page, typed, type ResourceRoutes, type RouteContext } from '../support.js';
import { HealthCheck, HealthCheckCreate, HealthCheckParams, HealthCheckPatch } from './schemas.js';

/** A check as interface B shows it. */
const v1HealthCheck = (c: StoredHealthCheck): Static<typeof HealthCheck> => ({
  id: c.id,
  type: c.type,
  address: c.address,
  port: c.port,
  path: c.path,
  host: c.host,
  interval: c.interval,
  timeout: c.timeout,
  fall: c.fall,
  rise: c.rise,
  status: c.status,
  changed: isoTime(c.changedAt),
  created: new Date(c.createdAt).toISOString(),
});

const same = (f: string) => f;

/** The model's problems of what a body proposes, laid over the current check or the defaults (for rejectBody). */
const rules = (body: Record<string, unknown>, current?: StoredHealthCheck) => () => checkHealthCheck(withDefaults({ ...current, ...(body as Partial<HealthCheckData>) })).list;

const ifMatch =
  (req: FastifyRequest): Precondition<StoredHealthCheck> =>
  (current) =>
    checkIfMatch(req, etagOf(v1HealthCheck(current)));

export const healthCheckRoutes: ResourceRoutes = (ctx) => async (app) => {
  listChecks(app, ctx);
  createCheck(app, ctx);
  readCheck(app, ctx);
  changeCheck(app, ctx);
  deleteCheck(app, ctx);
  allowOnly(app, '/healthchecks', ['GET', 'POST']);
  allowOnly(app, '/healthchecks/:id', ['GET', 'PATCH', 'DELETE']);
};

function listChecks(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).get(
    '/healthchecks',
    {
      schema: {
        tags: ['healthchecks'],
        summary: "List the account's health checks",
        description: 'Ordered by id, one page at a time, each with its status.',
        querystring: PageQuery,
        response: { 200: success(Type.Array(HealthCheck), 'A page of health checks', ['Link']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      const rows = await page(req, reply, req.query, (pg) => ctx.services.healthChecks.list(actor, pg));
      return rows.map(v1HealthCheck);
    },
  );
}

function createCheck(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).post(
    '/healthchecks',
    {
      attachValidation: true,
      schema: {
        tags: ['healthchecks'],
        summary: 'Create a health check',
        description:
          'Answers 201 with the check, status "unknown" until its first probes. The address must be public unless the operator allows its network (--healthcheck-allow): 400 otherwise. Records name it in their `steering`.',
        body: HealthCheckCreate,
        response: { 201: success(HealthCheck, 'The new health check', ['Location', 'ETag']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const failure = bodyFailure(req);
      if (failure) rejectBody(failure, rules(failure.accepted), same, HealthCheckCreate.required ?? []);
      const check = await ctx.services.healthChecks.create(ctx.actor(req), req.body as Partial<HealthCheckData>);
      const body = v1HealthCheck(check);
      return reply.code(201).header('location', `/v1/healthchecks/${check.id}`).header('etag', etagOf(body)).send(body);
    },
  );
}

function readCheck(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).get(
    '/healthchecks/:id',
    {
      schema: {
        tags: ['healthchecks'],
        summary: 'Read a health check and its status',
        params: HealthCheckParams,
        response: { 200: success(HealthCheck, 'The health check', ['ETag']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const body = v1HealthCheck(await ctx.services.healthChecks.get(ctx.actor(req), req.params.id));
      return reply.header('etag', etagOf(body)).send(body);
    },
  );
}

function changeCheck(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).patch(
    '/healthchecks/:id',
    {
      attachValidation: true,
      schema: {
        tags: ['healthchecks'],
        summary: 'Change some fields of a health check',
        description: 'The next probe uses the new fields. With If-Match, answers 412 when the check changed since it was read.',
        params: HealthCheckParams,
        body: HealthCheckPatch,
        response: { 200: success(HealthCheck, 'The health check', ['ETag']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      const failure = bodyFailure(req);
      if (failure) rejectBody(failure, rules(failure.accepted, await ctx.services.healthChecks.get(actor, req.params.id)), same, []);
      const check = await ctx.services.healthChecks.update(actor, req.params.id, req.body as Partial<HealthCheckData>, ifMatch(req));
      const body = v1HealthCheck(check);
      return reply.header('etag', etagOf(body)).send(body);
    },
  );
}

function deleteCheck(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).delete(
    '/healthchecks/:id',
    {
      schema: {
        tags: ['healthchecks'],
        summary: 'Delete a health check',
        description: 'Answers 204; 409 while a record\'s steering names it. With If-Match, 412 when the check changed since it was read.',
        params: HealthCheckParams,
        response: { 204: Type.Null({ description: 'Deleted' }), default: problemResponse },
      },
    },
    async (req, reply) => {
      await ctx.services.healthChecks.delete(ctx.actor(req), req.params.id, ifMatch(req));
      return reply.code(204).send(null);
    },
  );
}
