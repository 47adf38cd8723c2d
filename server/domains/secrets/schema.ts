import { z } from 'zod';
import { SECRET_AUDIT_ACTIONS } from '../../../db/schema/secrets';
import { configNameSchema, environmentSchema } from '../../platform/configuration';
import { isoDateTime, userSummarySchema } from '../../platform/schemas';

export { ENVIRONMENTS, type Environment } from '../../platform/configuration';
export { SECRET_AUDIT_ACTIONS, type SecretAuditAction } from '../../../db/schema/secrets';

export const SECRET_VALUE_MAX = 10_000;
export const SECRET_DESCRIPTION_MAX = 500;
/** Secrets one pack adds to the limit (SPEC). */
export const SECRET_PACK_SIZE = 5;
export const SECRET_PACKS_PER_UPGRADE_MAX = 20;

export const secretValueSchema = z
  .string({ error: 'Value is required' })
  .min(1, 'Value is required')
  .max(SECRET_VALUE_MAX, `Value must be at most ${SECRET_VALUE_MAX} characters`);

export const secretDescriptionSchema = z.string().max(SECRET_DESCRIPTION_MAX, `Description must be at most ${SECRET_DESCRIPTION_MAX} characters`);

export const createSecretInput = z.object({
  name: configNameSchema,
  value: secretValueSchema.describe('The plaintext, 1 to 10,000 characters. Returned in this response only'),
  description: secretDescriptionSchema.optional(),
  environment: environmentSchema.default('default').describe('Where the secret applies; `default` applies to every environment without its own entry'),
});

export const updateSecretInput = z.object({
  value: secretValueSchema.describe('The new plaintext. Returned in this response only'),
  description: secretDescriptionSchema.optional().describe('Left as it is when absent'),
});

export const packsSchema = z.coerce
  .number({ error: 'Packs must be a whole number from 1 to 20' })
  .int('Packs must be a whole number from 1 to 20')
  .min(1, 'Packs must be a whole number from 1 to 20')
  .max(SECRET_PACKS_PER_UPGRADE_MAX, 'Packs must be a whole number from 1 to 20');

export const upgradeSecretsInput = z.object({
  packs: packsSchema.default(1).describe(`Packs of ${SECRET_PACK_SIZE} secrets to buy, 1 to ${SECRET_PACKS_PER_UPGRADE_MAX}`),
});

export const secretSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    environment: environmentSchema,
    version: z.number().int().min(1).describe('1 on creation, one more on every update of the value'),
    createdBy: z.string().describe('User id'),
    updatedBy: z.string().describe('User id'),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
    createdByUser: userSummarySchema,
    updatedByUser: userSummarySchema,
  })
  .meta({ id: 'Secret' });

export const createdSecretSchema = secretSchema
  .extend({
    value: z.string().describe('The plaintext, shown once: it cannot be read again'),
    maskedValue: z.string().describe('What the value looks like, for reference: at most its first two and last two characters, the rest bullets'),
  })
  .meta({ id: 'CreatedSecret' });

export const updatedSecretSchema = secretSchema
  .extend({ value: z.string().describe('The new plaintext, shown once: it cannot be read again') })
  .meta({ id: 'UpdatedSecret' });

export const secretsUsageSchema = z
  .object({
    used: z.number().int().describe('Secrets in the project, every environment counted'),
    limit: z.number().int().describe('freeLimit + paidPacks × packSize'),
    freeLimit: z.number().int(),
    packSize: z.number().int(),
    paidPacks: z.number().int(),
    packPrice: z
      .object({ monthly: z.number().int().describe('Minor units (cents) per pack and month'), currency: z.string().describe('ISO 4217, upper case') })
      .nullable()
      .describe('Null when this deployment sells no packs'),
  })
  .meta({ id: 'SecretsUsage' });

export const secretAuditEntrySchema = z
  .object({
    id: z.string(),
    secretId: z.string(),
    action: z.enum(SECRET_AUDIT_ACTIONS),
    actor: userSummarySchema,
    createdAt: isoDateTime,
  })
  .meta({ id: 'SecretAuditEntry' });

export const listSecretsQuery = z.object({
  environment: environmentSchema.optional().describe('Only the secrets of this environment; every environment when absent'),
  effective: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true')
    .describe('With `environment`: the set a deployment there receives, its own secrets and the `default` ones it does not override'),
});

export type Secret = z.infer<typeof secretSchema>;
export type CreatedSecret = z.infer<typeof createdSecretSchema>;
export type UpdatedSecret = z.infer<typeof updatedSecretSchema>;
export type SecretsUsage = z.infer<typeof secretsUsageSchema>;
export type SecretAuditEntry = z.infer<typeof secretAuditEntrySchema>;
export type CreateSecretInput = z.input<typeof createSecretInput>;
