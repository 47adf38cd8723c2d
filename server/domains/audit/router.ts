import { z } from 'zod';
import { LIST_AUDIT_LOG } from './docs';
import { auditLogPageSchema, listAuditLogInput } from './schema';
import * as audit from './service';
import { pathParam, projectProcedure, router } from '../../platform/trpc';

const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };

export const auditRouter = router({
  list: projectProcedure
    .meta({
      openapi: { method: 'GET', path: '/projects/{projectId}/audit-log', tags: ['Audit log'], summary: "The project's audit log", description: LIST_AUDIT_LOG },
      scopes: ['audit:read'],
      role: 'admin',
    })
    .input(z.object({ ...projectRef, ...listAuditLogInput.shape }))
    .output(auditLogPageSchema)
    .query(({ ctx, input }) => audit.listAuditLog(ctx.project.id, input)),
});
