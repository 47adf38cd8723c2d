import { z } from 'zod';
import { configNameSchema, environmentSchema } from '../../platform/configuration';
import { isoDateTime, userSummarySchema } from '../../platform/schemas';

export { ENVIRONMENTS, type Environment } from '../../platform/configuration';

export const VARIABLE_VALUE_MAX = 10_000;
export const VARIABLE_DESCRIPTION_MAX = 500;
/** Variables of a project, every environment together. */
export const VARIABLES_PER_PROJECT = 500;
/** Bytes of UTF-8 a .env file may have: far beyond 500 variables of ordinary size. */
export const IMPORT_CONTENT_MAX_BYTES = 256 * 1024;

export const variableValueSchema = z
  .string({ error: 'Value is required' })
  .max(VARIABLE_VALUE_MAX, `Value must be at most ${VARIABLE_VALUE_MAX} characters`)
  .describe(`Plaintext, 0 to ${VARIABLE_VALUE_MAX} characters; an empty value is a variable set to the empty string`);

export const variableDescriptionSchema = z
  .string()
  .trim()
  .max(VARIABLE_DESCRIPTION_MAX, `Description must be at most ${VARIABLE_DESCRIPTION_MAX} characters`)
  .transform((text) => (text === '' ? null : text));

export const createVariableInput = z.object({
  name: configNameSchema,
  value: variableValueSchema,
  environment: environmentSchema.default('default'),
  description: variableDescriptionSchema.nullish().describe(`At most ${VARIABLE_DESCRIPTION_MAX} characters; empty or null for none`),
});

/** Every field is optional, but a patch changes at least one (the service refuses an empty one). */
export const updateVariableInput = z.object({
  name: configNameSchema.optional(),
  value: variableValueSchema.optional(),
  environment: environmentSchema.optional().describe('Moves the variable to another environment'),
  description: variableDescriptionSchema.nullish().describe('Empty or null removes it'),
});

export const listVariablesQuery = z.object({
  environment: environmentSchema.optional().describe('Only the variables of this environment'),
});

export const effectiveVariablesQuery = z.object({
  environment: environmentSchema.describe('The environment whose effective set is wanted'),
});

const byteLength = (text: string) => new TextEncoder().encode(text).length;

export const importVariablesInput = z.object({
  environment: environmentSchema.default('default').describe('Where the variables go'),
  content: z
    .string({ error: 'Paste the contents of a .env file' })
    .refine((text) => byteLength(text) <= IMPORT_CONTENT_MAX_BYTES, { error: `A .env file may be at most ${IMPORT_CONTENT_MAX_BYTES / 1024} KB` })
    .describe(`The text of a .env file, at most ${IMPORT_CONTENT_MAX_BYTES / 1024} KB of UTF-8`),
  overwrite: z.boolean().default(false).describe('Replace the values of names the environment already has; otherwise they are left alone'),
  dryRun: z.boolean().default(false).describe('Only say what an import would do; nothing is written'),
});

export const variableSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    value: z.string().describe('Plaintext: variables are not secrets, so list and get return it'),
    environment: environmentSchema,
    description: z.string().nullable(),
    createdBy: z.string().describe('Id of the user who created it'),
    updatedBy: z.string().describe('Id of the user who changed it last'),
    createdByUser: userSummarySchema,
    updatedByUser: userSummarySchema,
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  })
  .meta({ id: 'Variable' });

export const effectiveVariableSchema = variableSchema
  .extend({
    inherited: z.boolean().describe('True when the entry is the `default` one, because the environment has none of that name'),
  })
  .meta({ id: 'EffectiveVariable' });

const names = z.array(z.string());

export const importReportSchema = z
  .object({
    environment: environmentSchema,
    dryRun: z.boolean().describe('True when nothing was written'),
    created: names.describe('Names that were not in the environment'),
    updated: names.describe('Names whose value was replaced because `overwrite` was true'),
    unchanged: names.describe('Names already holding the same value'),
    skipped: names.describe('Names the environment already has, left alone because `overwrite` was false'),
  })
  .meta({ id: 'VariablesImport' });

export type Variable = z.infer<typeof variableSchema>;
export type EffectiveVariable = z.infer<typeof effectiveVariableSchema>;
export type VariablesImport = z.infer<typeof importReportSchema>;
export type CreateVariableInput = z.output<typeof createVariableInput>;
export type UpdateVariableInput = z.output<typeof updateVariableInput>;
export type ImportVariablesInput = z.output<typeof importVariablesInput>;
