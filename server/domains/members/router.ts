import { z } from 'zod';
import { memberSchema, updateMemberRoleInput } from './schema';
import * as members from './service';
import { pathParam, projectProcedure, router } from '../../platform/trpc';

const TAGS = ['Members'];
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };
const memberRef = { ...projectRef, userId: pathParam('userId').describe("The member's user id") };

export const membersRouter = router({
  list: projectProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/projects/{projectId}/members',
        tags: TAGS,
        summary: 'List members',
        description: 'Every member with their role; owners first, then in the order they joined. isBiller marks the member whose card pays for the project.',
      },
      scopes: ['members:read'],
      role: 'viewer',
    })
    .input(z.object(projectRef))
    .output(z.array(memberSchema))
    .query(({ ctx }) => members.listMembers(ctx.project.id)),

  updateRole: projectProcedure
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/projects/{projectId}/members/{userId}',
        tags: TAGS,
        summary: "Change a member's role",
        description: "Owner or admin. Only an owner may grant the owner role or change an owner's role (403 FORBIDDEN). The last owner cannot be demoted (409 CONFLICT). 404 when the user is not a member.",
      },
      scopes: ['members:read', 'members:write'],
      role: 'admin',
    })
    .input(z.object({ ...memberRef, ...updateMemberRoleInput.shape }))
    .output(memberSchema)
    .mutation(({ ctx, input }) =>
      members.updateMemberRole({ projectId: ctx.project.id, actorUserId: ctx.actor.userId, userId: input.userId, role: input.role }),
    ),

  remove: projectProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/projects/{projectId}/members/{userId}',
        tags: TAGS,
        summary: 'Remove a member or leave',
        description: [
          'With your own user id this is leaving the project, open to every role.',
          'Removing someone else needs the owner or admin role, and only an owner may remove an owner (403 FORBIDDEN).',
          'The last owner cannot leave or be removed, nor can the member who holds billing until billing is transferred (409 CONFLICT).',
          'The API keys the member created for the project are revoked at once (401 from then on).',
        ].join(' '),
      },
      scopes: ['members:read', 'members:write'],
      role: 'viewer',
    })
    .input(z.object(memberRef))
    .output(z.null())
    .mutation(async ({ ctx, input }) => {
      await members.removeMember({ projectId: ctx.project.id, actorUserId: ctx.actor.userId, userId: input.userId });
      return null;
    }),
});
