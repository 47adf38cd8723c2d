import { z } from 'zod';
import { PROJECT_ROLES } from '../../db/schema/members';

/** Shared by server procedures and panel forms, so both validate the same way. */
export const isoDateTime = z.iso.datetime({ offset: true }).describe('UTC date-time, ISO 8601');

/**
 * The one email check of the platform (zod's practical pattern, written out): the OpenAPI document
 * carries it as the `pattern` of every email field, so clients check exactly what we do.
 */
export const EMAIL_PATTERN = /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

export const emailSchema = z.email({ pattern: EMAIL_PATTERN, error: 'Enter a valid email address' }).max(320, 'Email must be at most 320 characters');

export const passwordSchema = z.string().min(10, 'Password must be at least 10 characters').max(200, 'Password must be at most 200 characters');

export const personNameSchema = z.string().trim().min(1, 'Name is required').max(100, 'Name must be at most 100 characters');

export const projectNameSchema = z.string().trim().min(1, 'Project name is required').max(100, 'Project name must be at most 100 characters');

export const roleSchema = z.enum(PROJECT_ROLES);
/** Ownership is granted by role changes, never by invitation. */
export const invitableRoleSchema = z.enum(PROJECT_ROLES.filter((role) => role !== 'owner') as ['admin', 'member', 'viewer'], {
  error: 'Role must be admin, member or viewer',
});

export const userSummarySchema = z.object({ id: z.string(), name: z.string(), email: z.string() });
