import { z } from 'zod';
import {
  ACCEPT_INVITATION,
  CREATE_INVITATION,
  GET_PUBLIC_INVITATION,
  LIST_MY_INVITATIONS,
  LIST_PROJECT_INVITATIONS,
  REJECT_INVITATION,
  REVOKE_INVITATION,
} from './docs';
import {
  acceptedInvitationSchema,
  createInvitationInput,
  invitationResponseInput,
  invitationSchema,
  myInvitationSchema,
  publicInvitationSchema,
} from './schema';
import * as invitations from './service';
import { authedProcedure, pathParam, projectProcedure, publicProcedure, router } from '../../platform/trpc';

const TAGS = ['Invitations'];
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const invitationRef = { invitationId: pathParam('invitationId') };

export const invitationsRouter = router({
  create: projectProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/projects/{projectId}/invitations',
        tags: TAGS,
        summary: 'Invite someone to the project',
        description: CREATE_INVITATION,
      },
      scopes: ['members:read', 'members:write'],
      role: 'admin',
      successStatus: 201,
      errors: ['CONFLICT'],
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
        description: LIST_PROJECT_INVITATIONS,
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
        description: REVOKE_INVITATION,
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
        description: LIST_MY_INVITATIONS,
      },
      sessionOnly: true,
      errors: ['EMAIL_NOT_VERIFIED'],
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
        description: GET_PUBLIC_INVITATION,
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
        description: ACCEPT_INVITATION,
      },
      sessionOnly: true,
      errors: ['CONFLICT', 'EMAIL_NOT_VERIFIED'],
    })
    .input(z.object({ ...invitationRef, ...invitationResponseInput.shape }))
    .output(acceptedInvitationSchema)
    .mutation(({ ctx, input }) => invitations.acceptInvitation({ invitationId: input.invitationId, userId: ctx.actor.userId, secret: input.secret })),

  reject: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/invitations/{invitationId}/reject',
        tags: TAGS,
        summary: 'Reject an invitation',
        description: REJECT_INVITATION,
      },
      sessionOnly: true,
      errors: ['CONFLICT', 'EMAIL_NOT_VERIFIED'],
    })
    .input(z.object({ ...invitationRef, ...invitationResponseInput.shape }))
    .output(z.null())
    .mutation(async ({ ctx, input }) => {
      await invitations.rejectInvitation({ invitationId: input.invitationId, userId: ctx.actor.userId, secret: input.secret });
      return null;
    }),
});
