import { z } from 'zod';
import { LIST_MEMBERS, REMOVE_MEMBER, UPDATE_MEMBER_ROLE } from './docs';
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
        description: LIST_MEMBERS,
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
        description: UPDATE_MEMBER_ROLE,
      },
      scopes: ['members:read', 'members:write'],
      role: 'admin',
      errors: ['CONFLICT'],
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
        description: REMOVE_MEMBER,
      },
      scopes: ['members:read', 'members:write'],
      role: 'viewer',
      errors: ['CONFLICT'],
    })
    .input(z.object(memberRef))
    .output(z.null())
    .mutation(async ({ ctx, input }) => {
      await members.removeMember({ projectId: ctx.project.id, actorUserId: ctx.actor.userId, userId: input.userId });
      return null;
    }),
});
