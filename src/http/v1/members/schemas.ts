/** Schemas of /v1/members (an account's members and their roles) and /v1/invitations (a member sets a password). */
import { Type } from '@sinclair/typebox';
import { MAX_MEMBER_DOMAINS, ROLES } from '../../../model/roles.js';
import { timestamp } from '../shared-schemas.js';

const role = Type.Union(
  ROLES.map((r) => Type.Literal(r)),
  {
    description:
      'owner: everything, members included; admin: everything but changing or removing owners; editor: domains, records, zone files, mirrors, DNSSEC, their own API and TSIG keys; viewer: reads only',
  },
);
const domains = Type.Union([Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1, maxItems: MAX_MEMBER_DOMAINS }), Type.Null()], {
  description: 'Ids of the only domains and zone mirrors the member may act on; null (or left out on creation): every domain, also those made later',
});
const username = Type.String({ minLength: 1, maxLength: 64, description: 'The name the member signs in with (POST /v1/keys), unique in the whole service' });

export const MemberCreate = Type.Object({ username, role, domains: Type.Optional(domains) }, { additionalProperties: false, title: 'MemberCreate' });
export const MemberPatch = Type.Partial(Type.Object({ role, domains }), {
  additionalProperties: false,
  title: 'MemberPatch',
  description: 'Any subset of the fields; the others keep their values. Takes effect on the member\'s next request, with every key they made.',
});

const memberFields = {
  id: Type.Integer({ minimum: 1 }),
  username,
  role,
  domains,
  created: Type.String({ format: 'date-time' }),
  invitation_expires: timestamp('When the pending invitation stops working; null once the member has set a password'),
};
export const Member = Type.Object(memberFields, { additionalProperties: false, title: 'Member' });
export const NewMember = Type.Object(
  {
    ...memberFields,
    invitation: Type.String({
      description: 'The invitation token, shown only this once (the server keeps only a hash): the member sends it with a password to POST /v1/invitations within 7 days',
    }),
  },
  { additionalProperties: false, title: 'NewMember' },
);
export const MemberParams = Type.Object({ id: Type.Integer({ minimum: 1, description: 'Member id' }) });

export const InvitationAccept = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 256, description: 'The invitation token from POST /v1/members' }),
    password: Type.String({ minLength: 1, maxLength: 1024, description: 'The password the member will sign in with' }),
  },
  { additionalProperties: false, title: 'InvitationAccept' },
);
