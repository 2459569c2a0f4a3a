/** /v1/members (an account's members: invite, list, change role and domains, remove) and /v1/invitations. */
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Member as MemberRow } from '../../../model/roles.js';
import { problemResponse, success } from '../shared-schemas.js';
import { allowOnly, etagOf, isoTime, typed, type ResourceRoutes, type RouteContext } from '../support.js';
import { InvitationAccept, Member, MemberCreate, MemberParams, MemberPatch, NewMember } from './schemas.js';

const v1Member = (m: MemberRow): Static<typeof Member> => ({
  id: m.id,
  username: m.username,
  role: m.role,
  domains: m.domains,
  created: new Date(m.createdAt).toISOString(),
  invitation_expires: isoTime(m.invitationExpiresAt),
});

export const memberRoutes: ResourceRoutes = (ctx) => async (app) => {
  listMembers(app, ctx);
  inviteMember(app, ctx);
  readMember(app, ctx);
  changeMember(app, ctx);
  removeMember(app, ctx);
  acceptInvitation(app, ctx);
  allowOnly(app, '/members', ['GET', 'POST']);
  allowOnly(app, '/members/:id', ['GET', 'PATCH', 'DELETE']);
  allowOnly(app, '/invitations', ['POST']);
};

function listMembers(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).get(
    '/members',
    {
      schema: {
        tags: ['members'],
        summary: "List the account's members",
        description: 'Every member, ordered by id, with their role and domains; any member may read the list.',
        response: { 200: success(Type.Array(Member), 'The members'), default: problemResponse },
      },
    },
    async (req) => (await ctx.services.members.list(ctx.actor(req))).map(v1Member),
  );
}

function inviteMember(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).post(
    '/members',
    {
      schema: {
        tags: ['members'],
        summary: 'Invite a member',
        description:
          'Owners and admins only (an admin cannot make an owner), and no member gets more than the one inviting has (403). Answers 201 with the member and a one-time `invitation` token, valid 7 days, shown only this once; the member sets a password with it at POST /v1/invitations. 409 when the user name is taken anywhere in the service.',
        body: MemberCreate,
        response: { 201: success(NewMember, 'The member, with the invitation token (shown only this once)', ['Location']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const { member, invitation } = await ctx.services.members.invite(ctx.actor(req), req.body);
      return reply
        .code(201)
        .header('location', `/v1/members/${member.id}`)
        .send({ ...v1Member(member), invitation: invitation as string });
    },
  );
}

function readMember(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).get(
    '/members/:id',
    {
      schema: { tags: ['members'], summary: 'Read a member', params: MemberParams, response: { 200: success(Member, 'The member', ['ETag']), default: problemResponse } },
    },
    async (req, reply) => {
      const body = v1Member(await ctx.services.members.get(ctx.actor(req), req.params.id));
      return reply.header('etag', etagOf(body)).send(body);
    },
  );
}

function changeMember(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).patch(
    '/members/:id',
    {
      schema: {
        tags: ['members'],
        summary: "Change a member's role or domains",
        description:
          "Owners and admins only; admins cannot change owners nor make one. The member's existing API and TSIG keys follow on their next request. An account keeps at least one owner (409).",
        params: MemberParams,
        body: MemberPatch,
        response: { 200: success(Member, 'The member', ['ETag']), default: problemResponse },
      },
    },
    async (req, reply) => {
      const body = v1Member(await ctx.services.members.update(ctx.actor(req), req.params.id, req.body));
      return reply.header('etag', etagOf(body)).send(body);
    },
  );
}

function removeMember(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).delete(
    '/members/:id',
    {
      schema: {
        tags: ['members'],
        summary: 'Remove a member',
        description:
          'Owners and admins only; admins cannot remove owners. The member\'s API keys and TSIG keys are deleted with them and refused from the next request or DNS message on. An account keeps at least one owner (409). Answers 204.',
        params: MemberParams,
        response: { 204: Type.Null({ description: 'Removed' }), default: problemResponse },
      },
    },
    async (req, reply) => {
      await ctx.services.members.remove(ctx.actor(req), req.params.id);
      return reply.code(204).send(null);
    },
  );
}

function acceptInvitation(app: FastifyInstance, ctx: RouteContext): void {
  typed(app).post(
    '/invitations',
    {
      config: { public: true },
      schema: {
        tags: ['members'],
        summary: 'Accept an invitation',
        description:
          'No key needed: the token from POST /v1/members is the proof. Sets the member\'s password (the token then stops working) and answers 200 with the member, who signs in at POST /v1/keys. An unknown, used or expired token answers 400 (field `token`).',
        security: [],
        body: InvitationAccept,
        response: { 200: success(Member, 'The member, who may now sign in'), default: problemResponse },
      },
    },
    async (req) => v1Member(await ctx.services.members.accept(req.body.token, req.body.password, req.ip)),
  );
}
