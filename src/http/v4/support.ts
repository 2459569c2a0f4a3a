/** What the v4 door's resources share: their context, ids from the path, times as Linode writes them. */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../model/errors.js';
import type { Timestamps } from '../../model/timestamps.js';
import type { Actor, Services } from '../../services/index.js';

export interface V4Context {
  services: Services;
  /** The caller of an authenticated request. */
  actor(req: FastifyRequest): Actor;
}

export type V4Routes = (ctx: V4Context) => FastifyPluginAsync;

/** Path ids are text: one that is not a whole number the service could hold is simply not found, as Linode answers. */
export const IdParam = Type.String({ maxLength: 32 });

export function idOf(text: string, what: 'domain' | 'record'): number {
  const id = /^[1-9][0-9]{0,15}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(id)) throw new NotFoundError(what);
  return id;
}

/** `2018-01-01T00:01:01`: UTC to the second, without zone or fraction (libcloud parses exactly this). */
export const linodeTime = (ms: number): string => new Date(ms).toISOString().slice(0, 19);

/** `created` and `updated` of an object, from the times the store kept (now, should an object have none). */
export function timesOf(times: ReadonlyMap<number, Timestamps>, id: number): { created: string; updated: string } {
  const t = times.get(id);
  const now = Date.now();
  return { created: linodeTime(t?.created ?? now), updated: linodeTime(t?.updated ?? now) };
}
