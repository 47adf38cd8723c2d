import { z } from 'zod';
import { INVITATION_STATUSES } from '../../../db/schema/invitations';
import { emailSchema, invitableRoleSchema, isoDateTime, roleSchema, userSummarySchema } from '../../platform/schemas';

export { INVITATION_STATUSES };
export const invitationStatusSchema = z.enum(INVITATION_STATUSES);

export const createInvitationInput = z.object({ email: emailSchema, role: invitableRoleSchema });

export const invitationResponseInput = z.object({
  secret: z
    .string()
    .min(20)
    .max(200)
    .optional()
    .describe('The `secret` query parameter of the emailed invitation link. Without it, the account must have verified the invited address'),
});

export const invitationSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    email: z.string(),
    role: roleSchema,
    status: invitationStatusSchema,
    expiresAt: isoDateTime,
    createdAt: isoDateTime,
    invitedBy: userSummarySchema,
  })
  .meta({ id: 'Invitation' });

export const myInvitationSchema = z
  .object({
    id: z.string(),
    project: z.object({ id: z.string(), name: z.string(), slug: z.string() }),
    role: roleSchema,
    invitedBy: userSummarySchema,
    expiresAt: isoDateTime,
    createdAt: isoDateTime,
  })
  .meta({ id: 'ReceivedInvitation' });

export const publicInvitationSchema = z
  .object({
    id: z.string(),
    project: z.object({ name: z.string() }),
    role: roleSchema,
    invitedBy: z.object({ name: z.string() }),
    email: z.string().describe('The invited address, masked (a***@example.com)'),
    status: invitationStatusSchema.describe('EXPIRED as soon as expiresAt has passed'),
    expiresAt: isoDateTime,
  })
  .meta({ id: 'PublicInvitation' });

export const acceptedInvitationSchema = z.object({
  projectId: z.string(),
  projectSlug: z.string(),
  role: roleSchema,
});

export type Invitation = z.infer<typeof invitationSchema>;
export type ReceivedInvitation = z.infer<typeof myInvitationSchema>;
export type PublicInvitation = z.infer<typeof publicInvitationSchema>;
export type AcceptedInvitation = z.infer<typeof acceptedInvitationSchema>;
