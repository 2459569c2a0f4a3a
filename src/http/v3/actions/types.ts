import type { Actor, Services } from '../../../services/index.js';
import type { Args, ParamSpec } from '../args.js';

export interface ActionContext {
  args: Args;
  services: Services;
  /** The authenticated caller; present for every action with `auth: true`. */
  actor: Actor;
  remoteAddr: string;
}

/** One api_action: its api.spec entry and its implementation. */
export interface Action {
  name: string;
  description: string;
  params: ParamSpec[];
  /** api.spec THROWS, e.g. "NOTFOUND,VALIDATION". */
  throws: string;
  /** Whether an API key is needed. */
  auth: boolean;
  /** May run inside `batch`. */
  batchable: boolean;
  run(ctx: ActionContext): Promise<unknown>;
  /**
   * For these arguments, the action run for the caller of `key`, which it authenticates in the same read as
   * its own (one round trip to the database instead of two); absent or undefined: authenticated, then run.
   */
  withKey?(args: Args): ((key: string, ctx: Omit<ActionContext, 'actor'>) => Promise<unknown>) | undefined;
}

export const param = (name: string, type: ParamSpec['type'], required: boolean, description = '', dflt?: string | number): ParamSpec => ({
  name,
  type,
  required,
  description,
  ...(dflt === undefined ? {} : { default: dflt }),
});
