/** Schemas of /v1/keys (API keys) and /v1/events (the audit trail). */
import { Type } from '@sinclair/typebox';
import { MAX_SCOPE_DOMAINS } from '../../../model/key-scope.js';
import { MAX_SCOPE_ITEMS } from '../../../model/name-scope.js';
import { MAX_KEY_HOURS, MAX_LABEL } from '../../../services/accounts.js';
import { pageFields, scopeLists, timestamp } from '../shared-schemas.js';

/** An API key's scope (model/key-scope.ts); every field optional, an absent one does not restrict. */
export const KeyScope = Type.Object(
  {
    domains: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: MAX_SCOPE_DOMAINS, description: 'Ids of the only domains and zone mirrors the key sees; it cannot create domains' }),
    ),
    read_only: Type.Optional(Type.Boolean({ description: 'true: no writes at all' })),
    records: Type.Optional(
      Type.Object(scopeLists, {
        additionalProperties: false,
        description: 'Record writes only at these names and of these types; domain settings, DNSSEC, TSIG keys, mirrors and API keys are then off limits',
      }),
    ),
    subnets: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        minItems: 1,
        maxItems: MAX_SCOPE_ITEMS,
        description: 'Networks (CIDR, e.g. 192.0.2.0/24, 2001:db8::/32) the key works from; from anywhere else it fails as a wrong key does',
      }),
    ),
  },
  { additionalProperties: false, title: 'KeyScope' },
);

export const KeyCreate = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    label: Type.Optional(Type.String({ maxLength: MAX_LABEL, description: 'A name to recognise the key by; default ""' })),
    expires: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_KEY_HOURS, description: 'Hours until the key expires; 0 means never. Default 168 (one week).' })),
    otp: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'With two-factor sign-in on: the code the authenticator app shows, or a recovery code (each works once)' })),
    session: Type.Optional(Type.Boolean({ description: 'true: a panel sign-in, which changing the password signs out (labelled API keys stay); default false' })),
    scope: Type.Optional({
      ...KeyScope,
      description:
        'What the key may do; left out: everything the account may (or, with an API key in Authorization, that key\'s scope). It cannot be widened later.',
    }),
  },
  { additionalProperties: false, title: 'KeyCreate' },
);
const keyFields = {
  id: Type.Integer({ minimum: 1 }),
  label: Type.String(),
  created: Type.String({ format: 'date-time' }),
  expires: timestamp('When the key stops working; null for never'),
  prefix: Type.String({ description: 'The first characters of the key, to recognise it by' }),
  scope: KeyScope,
  member_id: Type.Integer({ minimum: 1, description: 'The member who made the key (GET /v1/members): it never does more than that member may at each request' }),
};
export const ApiKey = Type.Object(keyFields, { additionalProperties: false, title: 'ApiKey' });
export const NewApiKey = Type.Object(
  { ...keyFields, key: Type.String({ description: 'The key itself. It is shown only this once; the server keeps only a hash.' }) },
  { additionalProperties: false, title: 'NewApiKey' },
);

export const KeyParams = Type.Object({ id: Type.Integer({ minimum: 1, description: 'Key id' }) });

export const Event = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    at: Type.String({ format: 'date-time' }),
    domain_id: Type.Integer({ description: 'The domain changed (it may since have been deleted); 0 for a change to the account itself (a member, an API key, a TSIG key, a sign-in factor, a setting)' }),
    action: Type.String({
      description:
        'e.g. domain.create, record.update, member.create, member.update, member.delete, member.accept, key.create, key.revoke, tsigkey.create, totp.enable, totp.disable, passkey.create, passkey.delete, password.change, account.update (require_2fa), account.suspend, account.resume, account.limits (the operator\'s command line)',
    }),
    object_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The domain, record, member, key or passkey changed (for TOTP and a password: the member; for account.update: the account)' }),
    serial: Type.Integer({ description: 'The zone serial after the change (0 for a deletion of the domain)' }),
    key_label: Type.String({ description: 'Label of the API key used (for DNS UPDATE: the TSIG key\'s name)' }),
    key_id: Type.Union([Type.Integer(), Type.Null()], { description: 'Id of the API key used; null when no API key was (DNS UPDATE, the command line, the server itself)' }),
    member: Type.String({ description: 'The user name of the member behind the change (for DNS UPDATE: who made the TSIG key); "" for the server itself and the operator\'s command line' }),
    member_id: Type.Union([Type.Integer(), Type.Null()], { description: 'Id of that member; for the server itself (a timed DNSSEC step) and the command line, the account\'s first owner, on whose behalf they act' }),
    interface: Type.String({ description: 'v3 (interface A), v1 (interface B), v4 (the Linode API v4 door), cli, dns, or system (the server itself, e.g. a timed DNSSEC step)' }),
    remote_addr: Type.String({ description: 'Client address of the request' }),
    before: Type.Unknown({ description: 'The object before the change (canonical storage form), or null' }),
    after: Type.Unknown({ description: 'The object after the change (canonical storage form), or null' }),
  },
  { additionalProperties: false, title: 'Event' },
);
export const EventQuery = Type.Object(
  { ...pageFields, domain: Type.Optional(Type.Integer({ minimum: 1, description: 'Only the changes of this domain id (also of a deleted one)' })) },
  { additionalProperties: false },
);
