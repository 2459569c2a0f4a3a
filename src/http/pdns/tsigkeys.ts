/**
 * /api/v1/servers/localhost/tsigkeys onto our TSIG keys (services/tsig-keys.ts). A key's id is its name with the
 * trailing dot, as PowerDNS's. Our secrets are shown once, when a key is made: the key made by POST answers
 * with it, a key read later with `key` empty; a secret never changes (a new secret is a new key). A key made
 * here acts on no zone until its zones and rights are given on interface B (PowerDNS ties keys to zones in
 * its metadata, which this door does not have).
 */
import type { FastifyInstance } from 'fastify';
import { ConflictError, NotFoundError } from '../../model/errors.js';
import { normalizeKeyName, type StoredTsigKey, type TsigAlgorithm } from '../../model/tsig-key.js';
import type { Actor } from '../../services/index.js';
import { typed, type PdnsContext } from './context.js';
import { PdnsError, unprocessable } from './errors.js';
import { zoneIdOf } from './names.js';
import { serverPath } from './representation.js';
import { TsigKeyBody, TsigParams } from './schemas.js';

const KEYS = serverPath('/tsigkeys');
const KEY = `${KEYS}/:tsigkey_id`;
/** More than an account may hold (Limits.tsigKeysPerAccount): one page is every key. */
const ALL = { limit: 10_000 };

const tsigkey = (k: StoredTsigKey, secret = '') => ({ algorithm: k.algorithm, id: zoneIdOf(k.name), key: secret, name: k.name, type: 'TSIGKey' });

/** The actor's key an id names (its name with or without the dot, `=XX` escapes decoded). */
async function keyById(ctx: PdnsContext, actor: Actor, id: string): Promise<StoredTsigKey> {
  const name = normalizeKeyName(id.replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))));
  const key = (await ctx.services.tsigKeys.list(actor, ALL)).find((k) => k.name === name);
  if (!key) throw new NotFoundError('tsigkey');
  return key;
}

/** PowerDNS's algorithm names (`hmac-sha256`, with or without the trailing dot, any case). */
const algorithmOf = (raw: string | undefined): TsigAlgorithm | undefined => (raw === undefined ? undefined : (normalizeKeyName(raw) as TsigAlgorithm));

export function tsigKeyRoutes(ctx: PdnsContext) {
  return async (app: FastifyInstance) => {
    typed(app).get(KEYS, async (req) => (await ctx.services.tsigKeys.list(ctx.actor(req), ALL)).map((k) => tsigkey(k)));
    typed(app).get(KEY, { schema: { params: TsigParams } }, async (req) => tsigkey(await keyById(ctx, ctx.actor(req), req.params.tsigkey_id)));
    typed(app).post(KEYS, { schema: { body: TsigKeyBody } }, async (req, reply) => {
      const { name, algorithm, key } = req.body;
      if (name === undefined || name === '') throw unprocessable('No name given for the TSIG key');
      const algo = algorithmOf(algorithm);
      try {
        const { key: made } = await ctx.services.tsigKeys.create(ctx.actor(req), { name, ...(algo ? { algorithm: algo } : {}), ...(key ? { secret: key } : {}) });
        return reply.code(201).send(tsigkey(made, made.secret));
      } catch (e) {
        // A name taken is PowerDNS's 409 (key names are unique in the whole service, as in one PowerDNS server).
        if (e instanceof ConflictError && e.field === 'name') throw new PdnsError(409, `A TSIG key with the name '${name}' already exists`);
        throw e;
      }
    });
    typed(app).put(KEY, { schema: { params: TsigParams, body: TsigKeyBody } }, async (req) => {
      const actor = ctx.actor(req);
      const current = await keyById(ctx, actor, req.params.tsigkey_id);
      if (req.body.key !== undefined && req.body.key !== '') throw unprocessable('A TSIG key\'s secret never changes here: make a new key (and delete this one) instead');
      const algo = algorithmOf(req.body.algorithm);
      const updated = await ctx.services.tsigKeys.update(actor, current.id, { ...(req.body.name ? { name: req.body.name } : {}), ...(algo ? { algorithm: algo } : {}) });
      return tsigkey(updated);
    });
    typed(app).delete(KEY, { schema: { params: TsigParams } }, async (req, reply) => {
      const actor = ctx.actor(req);
      await ctx.services.tsigKeys.delete(actor, (await keyById(ctx, actor, req.params.tsigkey_id)).id);
      return reply.code(204).send();
    });
  };
}
