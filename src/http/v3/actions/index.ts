/** The action table: every api_action we implement, which is also what api.spec publishes. */
import { DEFAULT_KEY_HOURS, MAX_KEY_HOURS } from '../../../services/accounts.js';
import type { ParamSpec } from '../args.js';
import { domainActions } from './domain.js';
import { resourceActions } from './resource.js';
import { param, type Action } from './types.js';

export type { Action, ActionContext } from './types.js';

const apiKeyAction: Action = {
  name: 'user.getapikey',
  description:
    'Authenticates a user against their username and password, and returns a new API key, which can be used until it expires.  The number of active keys is limited to 20.  Batch requests will be rejected if they include this API action.',
  params: [
    param('username', 'string', true),
    param('password', 'string', true),
    param('token', 'string', false, 'Required when two-factor authentication is enabled: the code of the authenticator app, or a recovery code.'),
    param('expires', 'numeric', false, `Number of hours the key will remain valid, between 0 and ${MAX_KEY_HOURS}. 0 means no expiration. Defaults to ${DEFAULT_KEY_HOURS}.`, DEFAULT_KEY_HOURS),
    param('label', 'string', false, 'An optional label for this key.', ''),
  ],
  throws: 'AUTHFAIL,NEEDTOKEN,KEYLIMIT',
  auth: false,
  batchable: false,
  async run({ args, services, remoteAddr }) {
    const [username, password, token, expires, label] = this.params as [ParamSpec, ParamSpec, ParamSpec, ParamSpec, ParamSpec];
    const otp = args.str(token);
    const issued = await services.accounts.issueKey(args.str(username), args.str(password), {
      expiresHours: args.int(expires),
      label: args.str(label),
      remoteAddr,
      iface: 'v3',
      ...(otp ? { otp } : {}),
    });
    return { USERNAME: issued.username, API_KEY: issued.key };
  },
};

const echoAction: Action = {
  name: 'test.echo',
  description: 'Echos back parameters that were passed in.',
  params: [],
  throws: '',
  auth: true,
  batchable: true,
  async run({ args }) {
    // The real API upper-cases the echoed names (the shared spec says "unchanged"; the recordings win).
    const data: Record<string, string> = {};
    for (const [key, value] of args.values) if (!key.startsWith('api_')) data[(args.names.get(key) ?? key).toUpperCase()] = value;
    return data;
  },
};

const specAction: Action = {
  name: 'api.spec',
  description: 'Returns a data structure of the entire API, including the methods, parameters and the parameter types.  This method does not require authorization.',
  params: [],
  throws: '',
  auth: false,
  batchable: true,
  async run() {
    return API_SPEC;
  },
};

export const ACTIONS: ReadonlyMap<string, Action> = new Map(
  [apiKeyAction, echoAction, specAction, ...domainActions, ...resourceActions].map((a) => [a.name, a]),
);

/** Other spellings clients use, mapped to the canonical action (whose name is echoed in ACTION). */
const ALIASES: ReadonlyMap<string, string> = new Map([['domain.resources.list', 'domain.resource.list']]);

export function findAction(name: string): Action | undefined {
  const key = name.trim().toLowerCase();
  return ACTIONS.get(ALIASES.get(key) ?? key);
}

/** Classes are the action names without their last part ("domain.resource" of "domain.resource.list"). */
export const hasClass = (name: string): boolean => {
  const cls = name.trim().toLowerCase().split('.').slice(0, -1).join('.');
  return cls !== '' && [...ACTIONS.keys()].some((a) => a.startsWith(`${cls}.`));
};

/** api.spec in the real shape: VERSION, METHODS{DESCRIPTION, PARAMETERS{NAME, DESCRIPTION, [default], TYPE, REQUIRED}, THROWS}. */
const API_SPEC = {
  VERSION: 3.3,
  METHODS: Object.fromEntries(
    [...ACTIONS.values()].map((a) => [
      a.name,
      {
        DESCRIPTION: a.description,
        PARAMETERS: Object.fromEntries(
          a.params.map((p) => [
            p.name,
            { NAME: p.name, DESCRIPTION: p.description, ...(p.default === undefined ? {} : { default: p.default }), TYPE: p.type, REQUIRED: p.required },
          ]),
        ),
        THROWS: a.throws,
      },
    ]),
  ),
};
