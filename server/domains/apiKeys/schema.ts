import { z } from 'zod';
import { ALL_SCOPES, scopeSchema } from '../../platform/auth/scopes';
import { isoDateTime } from '../../platform/schemas';

export const apiKeyNameSchema = z.string().trim().min(1, 'Name is required').max(64, 'Name must be at most 64 characters');

export const createApiKeyInput = z.object({
  name: apiKeyNameSchema,
  scopes: z
    .array(scopeSchema)
    .min(1, 'Choose at least one scope')
    .max(ALL_SCOPES.length)
    .refine((s) => new Set(s).size === s.length, 'Scopes must not repeat'),
  expiresAt: isoDateTime.refine((v) => new Date(v).getTime() > Date.now(), 'expiresAt must be in the future').optional(),
});

export const apiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe('The first characters of the key, to tell keys apart'),
    scopes: z.array(z.string()),
    expiresAt: isoDateTime.nullable(),
    lastUsedAt: isoDateTime.nullable(),
    createdAt: isoDateTime,
    createdBy: z.object({ id: z.string(), name: z.string(), email: z.string() }),
  })
  .meta({ id: 'ApiKey' });

export const createdApiKeySchema = apiKeySchema.extend({
  key: z.string().describe('The full key. Shown once: it cannot be read again.'),
});

export type ApiKey = z.infer<typeof apiKeySchema>;
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>;
