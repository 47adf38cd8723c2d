import { z } from 'zod';
import { isoDateTime, roleSchema } from '../../platform/schemas';

export const updateMemberRoleInput = z.object({ role: roleSchema });

export const memberSchema = z
  .object({
    userId: z.string(),
    name: z.string(),
    email: z.string(),
    role: roleSchema,
    joinedAt: isoDateTime,
    isBiller: z.boolean().describe('True for the member whose saved card pays for the project'),
  })
  .meta({ id: 'Member' });

export type Member = z.infer<typeof memberSchema>;
