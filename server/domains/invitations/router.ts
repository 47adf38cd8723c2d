import { z } from 'zod';
import {
  acceptedInvitationSchema,
  createInvitationInput,
  invitationSchema,
  myInvitationSchema,
  publicInvitationSchema,
} from './schema';
import * as invitations from './service';
import { authedProcedure, pathParam, projectProcedure, publicProcedure, router } from '../../platform/trpc';

const TAGS = ['Invitations'];
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const invitationRef = { invitationId: pathParam('invitationId') };
const SESSION_ONLY_REASON =
  'Session only: an API key reaches one project, so it cannot act on invitations to other projects of its creator.';

export const invitationsRouter = router({
  create: projectProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/invitations',
        tags: TAGS,
        summary: 'Invite someone to the project',
        description: [
          'Owner or admin. Emails a link to the accept-or-reject page; the invitation expires after the configured time (7 days by default).',
          'The owner role cannot be given by invitation.',
          '409 CONFLICT when the address already belongs to a member or a pending invitation for it exists.',
        ].join(' '),
      },
      scopes: ['members:read', 'members:write'],
      role: 'admin',
      successStatus: 201,
    })
    .input(z.object({ ...projectRef, ...createInvitationInput.shape }))
    .output(invitationSchema)
    .mutation(({ ctx, input }) =>
      invitations.createInvitation({ projectId: ctx.project.id, actorUserId: ctx.actor.userId, email: input.email, role: input.role }),
    ),

  listForProject: projectProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/projects/{projectId}/invitations',
        tags: TAGS,
        summary: "List the project's pending invitations",
        description: 'Owner or admin. Pending invitations that have not expired, newest first.',
      },
      scopes: ['members:read'],
      role: 'admin',
    })
    .input(z.object(projectRef))
    .output(z.array(invitationSchema))
    .query(({ ctx }) => invitations.listProjectInvitations(ctx.project.id)),

  revoke: projectProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/projects/{projectId}/invitations/{invitationId}',
        tags: TAGS,
        summary: 'Revoke an invitation',
        description: 'Owner or admin. The link stops working at once. 404 when no pending invitation with this id exists in the project.',
      },
      scopes: ['members:read', 'members:write'],
      role: 'admin',
      successStatus: 204,
    })
    .input(z.object({ ...projectRef, ...invitationRef }))
    .output(z.void())
    .mutation(async ({ ctx, input }) => {
      await invitations.revokeInvitation({ projectId: ctx.project.id, invitationId: input.invitationId, actorUserId: ctx.actor.userId });
    }),

  listMine: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/invitations',
        tags: TAGS,
        summary: 'Invitations sent to me',
        description: `Pending, unexpired invitations addressed to the signed-in account's email (case-insensitive), newest first. ${SESSION_ONLY_REASON}`,
      },
      sessionOnly: true,
    })
    .input(z.object({}))
    .output(z.array(myInvitationSchema))
    .query(({ ctx }) => invitations.listMyInvitations(ctx.actor.userId)),

  getPublic: publicProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/invitations/{invitationId}',
        tags: TAGS,
        summary: 'Invitation details for the accept-or-reject page',
        description: 'Public. The invited address is masked. status reads EXPIRED once expiresAt has passed. 404 when unknown.',
        protect: false,
      },
    })
    .input(z.object(invitationRef))
    .output(publicInvitationSchema)
    .query(({ input }) => invitations.getPublicInvitation(input.invitationId)),

  accept: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/invitations/{invitationId}/accept',
        tags: TAGS,
        summary: 'Accept an invitation',
        description: [
          'Joins the project with the invited role.',
          '403 FORBIDDEN when the invitation was sent to another email address than the account\'s;',
          '409 CONFLICT when it has expired or was already accepted, rejected or revoked, or when you are already a member.',
          SESSION_ONLY_REASON,
        ].join(' '),
      },
      sessionOnly: true,
    })
    .input(z.object(invitationRef))
    .output(acceptedInvitationSchema)
    .mutation(({ ctx, input }) => invitations.acceptInvitation({ invitationId: input.invitationId, userId: ctx.actor.userId })),

  reject: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/invitations/{invitationId}/reject',
        tags: TAGS,
        summary: 'Reject an invitation',
        description: [
          "403 FORBIDDEN when the invitation was sent to another email address than the account's;",
          '409 CONFLICT when it has expired or was already answered or revoked.',
          SESSION_ONLY_REASON,
        ].join(' '),
      },
      sessionOnly: true,
    })
    .input(z.object(invitationRef))
    .output(z.null())
    .mutation(async ({ ctx, input }) => {
      await invitations.rejectInvitation({ invitationId: input.invitationId, userId: ctx.actor.userId });
      return null;
    }),
});
