import { z } from 'zod';
import { PROJECT_COUNTERS } from '../../platform/counters';
import { emailSchema, isoDateTime, projectNameSchema, roleSchema } from '../../platform/schemas';

export const createProjectInput = z.object({ name: projectNameSchema });
export const renameProjectInput = z.object({ name: projectNameSchema });
export const billingEmailInput = z.object({
  billingEmail: emailSchema.nullable(),
});

export const projectCountSchema = z.object(
  Object.fromEntries(PROJECT_COUNTERS.map((c) => [c, z.number().int().min(0)])) as Record<(typeof PROJECT_COUNTERS)[number], z.ZodNumber>,
);

export const projectSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    billingEmail: z.string().nullable(),
    blockedAt: isoDateTime.nullable(),
    blockedReason: z.string().nullable(),
    suspendedAt: isoDateTime
      .nullable()
      .describe('Set once an invoice stayed unpaid past the grace period: paid resources are stopped (servers powered off) until it is paid'),
    createdAt: isoDateTime,
    role: roleSchema.describe("The caller's role in the project"),
    _count: projectCountSchema,
  })
  .meta({ id: 'Project' });

export const resourceHistoryEntrySchema = z.object({
  month: z.string().describe('YYYY-MM (UTC)'),
  servers: z.number().int(),
  domains: z.number().int(),
  apps: z.number().int(),
  objectStorage: z.number().int(),
  containerRegistry: z.number().int(),
  databases: z.number().int(),
  redis: z.number().int(),
  email: z.number().int(),
  other: z.number().int(),
  inProgress: z.boolean(),
});

export type Project = z.infer<typeof projectSchema>;
export type ResourceHistoryEntry = z.infer<typeof resourceHistoryEntrySchema>;
