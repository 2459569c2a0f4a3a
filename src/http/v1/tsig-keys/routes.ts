/** /v1/tsigkeys: the account's TSIG keys for DNS UPDATE and signed transfers (the secret is shown once). */
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { checkTsigKey, DEFAULT_TSIG_ALGORITHM, type StoredTsigKey, type TsigKeyData } from '../../../model/tsig-key.js';
import type { Precondition } from '../../../services/zone-writer.js';
import { bodyFailure, rejectBody } from '../problem.js';
import { PageQuery, problemResponse, success } from '../shared-schemas.js';
import { allowOnly, checkIfMatch, etagOf, page, typed, type ResourceRoutes, type RouteContext } from '../support.js';
import { NewTsigKey, TsigKey, TsigKeyCreate, TsigKeyParams, TsigKeyPatch } from './schemas.js';

type KeyBody = Static<typeof TsigKeyPatch> & { secret?: string };

/** A key as interface B shows it: the name absolute with its dot, no secret. */
const v1TsigKey = (k: StoredTsigKey): Static<typeof TsigKey> => ({
  id: k.id,
  name: `${k.name}.`,
  algorithm: k.algorithm,
  domains: k.domains,
  update: k.update,
  transfer: k.transfer,
  created: new Date(k.createdAt).toISOString(),
  member_id: k.userId,
});

/** The core's fields set by a body (the secret apart: it is given on creation only). */
function keyInput(body: KeyBody): Partial<TsigKeyData> {
  const out: Partial<TsigKeyData> = {};
  if (body.name !== undefined) out.name = body.name;
  if (body.algorithm !== undefined) out.algorithm = body.algorithm;
  if (body.domains !== undefined) out.domains = body.domains;
  if (body.update !== undefined) out.update = body.update;
  if (body.transfer !== undefined) out.transfer = body.transfer;
  return out;
}

/** The model's problems of what a body proposes, laid over the current key or the defaults (for rejectBody). */
function rules(body: Record<string, unknown>, current?: StoredTsigKey) {
  const base: TsigKeyData = current ?? { name: '', algorithm: DEFAULT_TSIG_ALGORITHM, domains: [], update: false, transfer: false };
  const secret = typeof body.secret === 'string' ? { secret: body.secret } : {};
  return () => checkTsigKey({ ...base, ...keyInput(body as KeyBody), ...secret }).list;
}

const same = (f: string) => f;

/** If-Match, checked inside the write on the key as it is then. */
const ifMatch =
  (req: FastifyRequest): Precondition<StoredTsigKey> =>
  (current) =>
    checkIfMatch(req, etagOf(v1TsigKey(current)));

export const tsigKeyRoutes: ResourceRoutes = (ctx) => async (app) => {
  listTsigKeys(app, ctx);
  createTsigKey(app, ctx);
  readTsigKey(app, ctx);
  changeTsigKey(app, ctx);
  deleteTsigKey(app, ctx);
  allowOnly(app, '/tsigkeys', ['GET', 'POST']);
  allowOnly(app, '/tsigkeys/:id', ['GET', 'PATCH', 'DELETE']);
};

function listTsigKeys(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).get(
    '/tsigkeys',
    {
      schema: {
        tags: ['tsigkeys'],
        summary: "List the account's TSIG keys",
        description: 'Ordered by id, one page at a time; secrets are never shown.',
        querystring: PageQuery,
        response: { 200: success(Type.Array(TsigKey), 'A page of TSIG keys', ['Link']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      const rows = await page(req, reply, req.query, (pg) => ctx.services.tsigKeys.list(actor, pg));
      return rows.map(v1TsigKey);
    },
  );
}

function createTsigKey(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).post(
    '/tsigkeys',
    {
      attachValidation: true,
      schema: {
        tags: ['tsigkeys'],
        summary: 'Create a TSIG key',
        description:
          'Answers 201 with the key and its secret, shown only this once (given in the request, or 32 random bytes when left out). 409 when the name is taken, by any account: a DNS message names its key by the name alone.',
        body: TsigKeyCreate,
        response: { 201: success(NewTsigKey, 'The new key with its secret (shown only this once)', ['Location', 'ETag']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      const failure = bodyFailure(req);
      if (failure) rejectBody(failure, rules(failure.accepted), same, TsigKeyCreate.required ?? []);
      const body = req.body as Static<typeof TsigKeyCreate>;
      const { key } = await ctx.services.tsigKeys.create(actor, { ...keyInput(body), name: body.name, ...(body.secret === undefined ? {} : { secret: body.secret }) });
      const shown = v1TsigKey(key);
      return reply
        .code(201)
        .header('location', `/v1/tsigkeys/${key.id}`)
        .header('etag', etagOf(shown))
        .send({ ...shown, secret: key.secret });
    },
  );
}

function readTsigKey(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).get(
    '/tsigkeys/:id',
    {
      schema: {
        tags: ['tsigkeys'],
        summary: 'Read a TSIG key',
        description: 'Without its secret. Carries an ETag for If-Match on later changes.',
        params: TsigKeyParams,
        response: { 200: success(TsigKey, 'The key (without its secret)', ['ETag']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const body = v1TsigKey(await ctx.services.tsigKeys.get(ctx.actor(req), req.params.id));
      return reply.header('etag', etagOf(body)).send(body);
    },
  );
}

function changeTsigKey(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).patch(
    '/tsigkeys/:id',
    {
      attachValidation: true,
      schema: {
        tags: ['tsigkeys'],
        summary: 'Change some fields of a TSIG key',
        description:
          'Name, algorithm, domains, update scope and transfer may change; the secret may not (create a new key, then delete this one). Takes effect on the next DNS message. With If-Match, answers 412 when the key changed since it was read.',
        params: TsigKeyParams,
        body: TsigKeyPatch,
        response: { 200: success(TsigKey, 'The key', ['ETag']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const actor = ctx.actor(req);
      const failure = bodyFailure(req);
      if (failure) rejectBody(failure, rules(failure.accepted, await ctx.services.tsigKeys.get(actor, req.params.id)), same, []);
      const key = await ctx.services.tsigKeys.update(actor, req.params.id, keyInput(req.body as KeyBody), ifMatch(req));
      const body = v1TsigKey(key);
      return reply.header('etag', etagOf(body)).send(body);
    },
  );
}

function deleteTsigKey(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).delete(
    '/tsigkeys/:id',
    {
      schema: {
        tags: ['tsigkeys'],
        summary: 'Delete (revoke) a TSIG key',
        description: 'The next DNS message signed with the key is refused. Answers 204; with If-Match, 412 when the key changed since it was read.',
        params: TsigKeyParams,
        response: { 204: Type.Null({ description: 'Deleted' }), default: problemResponse },
      },
    },
    async (req, reply) => {
      await ctx.services.tsigKeys.delete(ctx.actor(req), req.params.id, ifMatch(req));
      return reply.code(204).send(null);
    },
  );
}
