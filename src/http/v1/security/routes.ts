/**
 * A user's own security (/v1/me/totp, /v1/me/password, /v1/me/passkeys), the account's require_2fa
 * (/v1/account), and signing in with a passkey (/v1/sign-in/passkey). The /v1/me/totp and /v1/me/passkeys
 * routes are `factorSetup`: open to a user whose account requires a second factor they do not have yet.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NotFoundError } from '../../../model/errors.js';
import type { Passkey as PasskeyRow } from '../../../model/second-factor.js';
import type { RequestSite } from '../../../services/index.js';
import { v1Key } from '../account/routes.js';
import { problemResponse, success } from '../shared-schemas.js';
import { allowOnly, isoTime, typed, type ResourceRoutes, type RouteContext } from '../support.js';
import {
  AccountSettings,
  AccountSettingsPatch,
  CodeBody,
  Passkey,
  PasskeyCreate,
  PasskeyParams,
  PasskeySession,
  PasskeySignIn,
  PasswordChange,
  PasswordChanged,
  RecoveryCodes,
  TotpSetup,
  TotpStatus,
  WebAuthnOptions,
} from './schemas.js';

const SETUP = { factorSetup: true } as const;
const none = Type.Null({ description: 'Done' });

/** The host name and origin the request reached the panel under (the passkeys' relying party, unless fixed). */
const siteOf = (req: FastifyRequest): RequestSite => ({ hostname: req.hostname, origin: `${req.protocol}://${req.host}` });

const v1Passkey = (p: PasskeyRow): Static<typeof Passkey> => ({ id: p.id, name: p.name, created: new Date(p.createdAt).toISOString(), last_used: isoTime(p.lastUsedAt) });

export const securityRoutes: ResourceRoutes = (ctx) => async (app) => {
  totpRoutes(app, ctx);
  passwordRoute(app, ctx);
  passkeyRoutes(app, ctx);
  accountRoutes(app, ctx);
  passkeySignIn(app, ctx);
  allowOnly(app, '/me/totp', ['GET', 'POST', 'DELETE']);
  allowOnly(app, '/me/totp/confirm', ['POST']);
  allowOnly(app, '/me/password', ['PUT']);
  allowOnly(app, '/me/passkeys', ['GET', 'POST']);
  allowOnly(app, '/me/passkeys/options', ['POST']);
  allowOnly(app, '/me/passkeys/:id', ['DELETE']);
  allowOnly(app, '/account', ['GET', 'PATCH']);
  allowOnly(app, '/sign-in/passkey/options', ['POST']);
  allowOnly(app, '/sign-in/passkey', ['POST']);
};

function totpRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const tags = ['security'];
  typed(app).get(
    '/me/totp',
    { config: SETUP, schema: { tags, summary: 'Whether two-factor sign-in (TOTP) is on', response: { 200: success(TotpStatus, 'TOTP state'), default: problemResponse } } },
    async (req) => {
      const s = await ctx.services.factors.totpStatus(ctx.actor(req));
      return { enabled: s.enabled, recovery_codes_left: s.recoveryCodesLeft };
    },
  );
  typed(app).post(
    '/me/totp',
    {
      config: { ...SETUP, bodyOptional: true },
      schema: {
        tags,
        summary: 'Start setting up TOTP',
        description: 'Answers a new secret and its otpauth:// URI for an authenticator app; TOTP is on once POST /v1/me/totp/confirm gets a code of it. 409 while TOTP is on.',
        response: { 200: success(TotpSetup, 'The secret, shown until confirmed'), default: problemResponse },
      },
    },
    async (req) => ctx.services.factors.startTotp(ctx.actor(req)),
  );
  typed(app).post(
    '/me/totp/confirm',
    {
      config: SETUP,
      schema: {
        tags,
        summary: 'Turn TOTP on',
        description: 'With a code of the new secret. Answers ten recovery codes, shown only this once. A wrong code is a 400 on `code`, and counts against the sign-in throttle.',
        body: CodeBody,
        response: { 200: success(RecoveryCodes, 'TOTP is on'), default: problemResponse },
      },
    },
    async (req) => ({ recovery_codes: await ctx.services.factors.confirmTotp(ctx.actor(req), req.body.code) }),
  );
  typed(app).delete(
    '/me/totp',
    {
      config: SETUP,
      schema: { tags, summary: 'Turn TOTP off', description: 'With a current code or a recovery code; the recovery codes go too. Answers 204.', body: CodeBody, response: { 204: none, default: problemResponse } },
    },
    async (req, reply) => {
      await ctx.services.factors.disableTotp(ctx.actor(req), req.body.code);
      return reply.code(204).send(null);
    },
  );
}

function passwordRoute(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).put(
    '/me/password',
    {
      schema: {
        tags: ['security'],
        summary: 'Change your password',
        description: 'Takes the current password and the new one. Signs out your other panel sessions (keys made by signing in to the panel); labelled API keys keep working. A wrong current password is a 400 on `current`.',
        body: PasswordChange,
        response: { 200: success(PasswordChanged, 'Changed'), default: problemResponse },
      },
    },
    async (req) => ({ sessions_revoked: await ctx.services.passwords.change(ctx.actor(req), req.body.current, req.body.new) }),
  );
}

function passkeyRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const tags = ['security'];
  typed(app).get(
    '/me/passkeys',
    { config: SETUP, schema: { tags, summary: 'Your passkeys', response: { 200: success(Type.Array(Passkey), 'Passkeys, oldest first'), default: problemResponse } } },
    async (req) => (await ctx.services.passkeys.list(ctx.actor(req))).map(v1Passkey),
  );
  typed(app).post(
    '/me/passkeys/options',
    {
      config: { ...SETUP, bodyOptional: true },
      schema: {
        tags,
        summary: 'Start registering a passkey',
        description: "Options for the browser's navigator.credentials.create() (@simplewebauthn/browser's startRegistration); answer within five minutes with POST /v1/me/passkeys.",
        response: { 200: success(WebAuthnOptions, 'Registration options'), default: problemResponse },
      },
    },
    async (req) => ctx.services.passkeys.registrationOptions(ctx.actor(req), siteOf(req)),
  );
  typed(app).post(
    '/me/passkeys',
    {
      config: SETUP,
      schema: { tags, summary: 'Register a passkey', description: "The browser's answer to the options, and a name.", body: PasskeyCreate, response: { 201: success(Passkey, 'The passkey', ['Location']), default: problemResponse } },
    },
    async (req, reply) => {
      const { response, name } = req.body;
      const p = await ctx.services.passkeys.register(ctx.actor(req), siteOf(req), response as never, name);
      return reply.code(201).header('location', `/v1/me/passkeys/${p.id}`).send(v1Passkey(p));
    },
  );
  typed(app).delete(
    '/me/passkeys/:id',
    { config: SETUP, schema: { tags, summary: 'Remove a passkey', params: PasskeyParams, response: { 204: none, default: problemResponse } } },
    async (req, reply) => {
      if (!(await ctx.services.passkeys.remove(ctx.actor(req), req.params.id))) throw new NotFoundError('passkey');
      return reply.code(204).send(null);
    },
  );
}

function accountRoutes(app: FastifyInstance, ctx: RouteContext): void {
  const tags = ['security'];
  const settings = async (req: FastifyRequest) => ({ require_2fa: (await ctx.services.factors.accountSettings(ctx.actor(req))).requireTwoFactor });
  typed(app).get('/account', { schema: { tags, summary: "The account's security settings", response: { 200: success(AccountSettings, 'Settings'), default: problemResponse } } }, settings);
  typed(app).patch(
    '/account',
    {
      schema: {
        tags,
        summary: "Change the account's security settings",
        description: '`require_2fa`: members without a second factor may then only set one up; their keys answer 403 elsewhere. Whoever turns it on must have a second factor (409 otherwise).',
        body: AccountSettingsPatch,
        response: { 200: success(AccountSettings, 'Settings'), default: problemResponse },
      },
    },
    async (req) => {
      if (req.body.require_2fa !== undefined) await ctx.services.factors.setRequireTwoFactor(ctx.actor(req), req.body.require_2fa);
      return settings(req);
    },
  );
}

function passkeySignIn(app: FastifyInstance, ctx: RouteContext): void {
  const tags = ['keys'];
  typed(app).post(
    '/sign-in/passkey/options',
    {
      config: { public: true, bodyOptional: true },
      schema: {
        tags,
        summary: 'Start signing in with a passkey',
        description: "Options for navigator.credentials.get() (@simplewebauthn/browser's startAuthentication); no key needed. Answer within five minutes.",
        security: [],
        response: { 200: success(WebAuthnOptions, 'Authentication options'), default: problemResponse },
      },
    },
    async (req) => ctx.services.passkeys.signInOptions(siteOf(req)),
  );
  typed(app).post(
    '/sign-in/passkey',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'Sign in with a passkey',
        description: 'Instead of a user name, password and code: answers 201 with a new key (a panel session, shown only this once). A passkey not registered here, or an answer that does not verify, answers 401; repeated failures are throttled (429) as wrong passwords are.',
        security: [],
        body: PasskeySignIn,
        response: { 201: success(PasskeySession, 'The new key (shown only this once)', ['Location']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const { response, label, expires } = req.body;
      const terms = { ...(label === undefined ? {} : { label }), ...(expires === undefined ? {} : { expiresHours: expires }), remoteAddr: req.ip };
      const issued = await ctx.services.passkeys.signIn(siteOf(req), response as never, terms);
      return reply.code(201).header('location', `/v1/keys/${issued.id}`).send({ ...v1Key(issued), key: issued.key, username: issued.username });
    },
  );
}
