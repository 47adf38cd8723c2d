import { z } from 'zod';
import { ENCRYPTION_TYPES, REPOSITORY_VISIBILITIES, TAG_MUTABILITIES } from '../../../db/schema/containerRegistry';
import { isoDateTime } from '../../platform/schemas';

export { ENCRYPTION_TYPES, REPOSITORY_VISIBILITIES, TAG_MUTABILITIES };

/** Where registries can be made; fixed for a registry's life. */
export const REGISTRY_REGIONS = [
  { value: 'fra1', label: 'Frankfurt' },
  { value: 'ams3', label: 'Amsterdam' },
  { value: 'nyc3', label: 'New York' },
  { value: 'sfo3', label: 'San Francisco' },
  { value: 'sgp1', label: 'Singapore' },
] as const;
const REGION_VALUES = REGISTRY_REGIONS.map((r) => r.value) as [string, ...string[]];

export const KEEP_LAST_N = { min: 1, max: 1000 } as const;
export const UNTAGGED_DAYS = { min: 1, max: 365 } as const;
export const EGRESS_CAP_GB = { min: 1, max: 10_000 } as const;

export const registryNameSchema = z
  .string()
  .min(3, 'Registry names are at least 3 characters')
  .max(63, 'Registry names are at most 63 characters')
  .regex(/^[a-z0-9]+(-+[a-z0-9]+)*$/, 'Registry names are lower-case letters, digits and hyphens, starting and ending with a letter or digit');

/** Docker Distribution's rule for one path component, which a repository name is. */
export const REPOSITORY_NAME_PATTERN = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
export const repositoryNameSchema = z
  .string()
  .min(1, 'Repository names are at least 1 character')
  .max(128, 'Repository names are at most 128 characters')
  .regex(REPOSITORY_NAME_PATTERN, 'Repository names are lower-case letters and digits, separated by single dots, underscores (one or two) or hyphens');

const keepLastN = z
  .number()
  .int()
  .min(KEEP_LAST_N.min, `must be ${KEEP_LAST_N.min} to ${KEEP_LAST_N.max}`)
  .max(KEEP_LAST_N.max, `must be ${KEEP_LAST_N.min} to ${KEEP_LAST_N.max}`);
const untaggedDays = z
  .number()
  .int()
  .min(UNTAGGED_DAYS.min, `must be ${UNTAGGED_DAYS.min} to ${UNTAGGED_DAYS.max} days`)
  .max(UNTAGGED_DAYS.max, `must be ${UNTAGGED_DAYS.min} to ${UNTAGGED_DAYS.max} days`);
const egressCap = z
  .number()
  .int()
  .min(EGRESS_CAP_GB.min, `must be ${EGRESS_CAP_GB.min} to ${EGRESS_CAP_GB.max} GB`)
  .max(EGRESS_CAP_GB.max, `must be ${EGRESS_CAP_GB.min} to ${EGRESS_CAP_GB.max} GB`);
const kmsKeyArn = z
  .string()
  .min(20, 'kmsKeyArn must be a key ARN such as arn:aws:kms:eu-central-1:123456789012:key/…')
  .max(2048)
  .regex(/^arn:[a-z-]+:kms:[a-z0-9-]+:\d{12}:(key|alias)\/[A-Za-z0-9/_-]+$/, 'kmsKeyArn must be a key ARN such as arn:aws:kms:eu-central-1:123456789012:key/…');
const mutability = z.enum(TAG_MUTABILITIES, { error: `imageTagMutability must be ${TAG_MUTABILITIES.join(' or ')}` });
const encryption = z.enum(ENCRYPTION_TYPES, { error: `encryptionType must be ${ENCRYPTION_TYPES.join(' or ')}` });
const visibility = z.enum(REPOSITORY_VISIBILITIES, { error: `visibility must be ${REPOSITORY_VISIBILITIES.join(' or ')}` });

const settingsShape = {
  imageTagMutability: mutability.describe('IMMUTABLE refuses a push under a tag that already names another image'),
  scanOnPush: z.boolean().describe('Scan every image when it is pushed'),
  encryptionType: encryption.describe('Applies to repositories created afterwards; a repository keeps the encryption it was made with'),
  kmsKeyArn: kmsKeyArn.nullable().describe('Required when encryptionType is KMS; ignored otherwise'),
  lifecycleEnabled: z.boolean().describe('Default retention of new repositories'),
  lifecycleKeepLastN: keepLastN.describe('New repositories keep this many most recent tagged images (1–1000)'),
  lifecycleUntaggedAfterDays: untaggedDays.describe('New repositories delete untagged images this many days after their push (1–365)'),
};

export const createRegistryInput = z.object({
  name: registryNameSchema.describe('Global: the first component of every image name; unique among live registries'),
  region: z.enum(REGION_VALUES, { error: `region must be one of ${REGION_VALUES.join(', ')}` }).describe('Fixed for the life of the registry'),
  imageTagMutability: settingsShape.imageTagMutability.default('MUTABLE'),
  scanOnPush: settingsShape.scanOnPush.default(true),
  encryptionType: settingsShape.encryptionType.default('AES256'),
  kmsKeyArn: settingsShape.kmsKeyArn.optional(),
  lifecycleEnabled: settingsShape.lifecycleEnabled.default(true),
  lifecycleKeepLastN: settingsShape.lifecycleKeepLastN.default(10),
  lifecycleUntaggedAfterDays: settingsShape.lifecycleUntaggedAfterDays.default(7),
});
export type CreateRegistryInput = z.infer<typeof createRegistryInput>;

/** KMS encryption names its key: the check of a creation body. */
export function hasKmsKeyWhenNeeded(input: { encryptionType: string; kmsKeyArn?: string | null }): boolean {
  return input.encryptionType !== 'KMS' || Boolean(input.kmsKeyArn);
}
export const KMS_KEY_REQUIRED = { message: 'kmsKeyArn is required when encryptionType is KMS', path: ['kmsKeyArn'] };

export const updateRegistryInput = z.strictObject(
  {
    imageTagMutability: settingsShape.imageTagMutability.optional(),
    scanOnPush: settingsShape.scanOnPush.optional(),
    encryptionType: settingsShape.encryptionType.optional(),
    kmsKeyArn: settingsShape.kmsKeyArn.optional(),
    lifecycleEnabled: settingsShape.lifecycleEnabled.optional(),
    lifecycleKeepLastN: settingsShape.lifecycleKeepLastN.optional(),
    lifecycleUntaggedAfterDays: settingsShape.lifecycleUntaggedAfterDays.optional(),
  },
  { error: 'name and region are fixed; the settings that can change are imageTagMutability, scanOnPush, encryptionType, kmsKeyArn and the lifecycle fields' },
);
export type UpdateRegistryInput = z.infer<typeof updateRegistryInput>;

export const createRepositoryInput = z.object({
  name: repositoryNameSchema,
  visibility: visibility.default('PRIVATE').describe('PUBLIC allows anonymous pulls; pushes always need an API key'),
  publicEgressCapGb: egressCap.nullable().optional().describe('Required when PUBLIC: GB (10^9 bytes) of anonymous egress per billing month, 1–10000'),
});

export const updateRepositoryInput = z.object({
  gcEnabled: z.boolean().optional(),
  gcKeepLastN: keepLastN.optional(),
  gcDeleteUntagged: z.boolean().optional(),
  gcUntaggedAfterDays: untaggedDays.optional(),
  visibility: visibility.optional(),
  publicEgressCapGb: egressCap.nullable().optional(),
});
export type UpdateRepositoryInput = z.infer<typeof updateRepositoryInput>;

export const repositorySchema = z
  .object({
    id: z.string(),
    registryId: z.string(),
    name: z.string(),
    uri: z.string().describe('What docker tags and pushes: <registry host>/<registry name>/<repository name>'),
    visibility: visibility,
    publicEgressCapGb: z.number().int().nullable(),
    publicEgressUsedGb: z.number().describe('Anonymous egress served this billing month, in GB (10^9 bytes)'),
    publicEgressCapHitAt: isoDateTime.nullable().describe('Set when the cap closed the repository to PRIVATE'),
    imageTagMutability: mutability,
    scanOnPush: z.boolean(),
    encryptionType: encryption,
    gcEnabled: z.boolean(),
    gcKeepLastN: z.number().int(),
    gcDeleteUntagged: z.boolean(),
    gcUntaggedAfterDays: z.number().int(),
    lastPushedAt: isoDateTime.nullable(),
    lastPulledAt: isoDateTime.nullable(),
    createdAt: isoDateTime,
  })
  .meta({ id: 'ContainerRepository' });
export type Repository = z.infer<typeof repositorySchema>;

export const registrySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    region: z.string(),
    endpoint: z.string().describe('The host to `docker login` to'),
    status: z.enum(['active', 'suspended']).describe('suspended while an invoice is unpaid past its grace period: pushes and anonymous pulls are refused'),
    imageTagMutability: mutability,
    scanOnPush: z.boolean(),
    encryptionType: encryption,
    kmsKeyArn: z.string().nullable(),
    lifecycleEnabled: z.boolean(),
    lifecycleKeepLastN: z.number().int(),
    lifecycleUntaggedAfterDays: z.number().int(),
    repositories: z.array(repositorySchema),
    createdAt: isoDateTime,
  })
  .meta({ id: 'ContainerRegistry' });
export type Registry = z.infer<typeof registrySchema>;

export const regionSchema = z.object({ value: z.string(), label: z.string() }).meta({ id: 'RegistryRegion' });

export const imageSchema = z
  .object({
    digest: z.string().describe('sha256:…'),
    tags: z.array(z.string()).describe('Empty for an image superseded by a newer push of the same tag'),
    sizeBytes: z.number().int(),
    pushedAt: isoDateTime,
    lastPulledAt: isoDateTime.nullable(),
    scanStatus: z.literal('COMPLETE').nullable().describe('Null unless scan-on-push was on and the scan finished'),
    scanFindings: z.record(z.string(), z.number().int()).nullable().describe('Findings per severity; null under the same condition'),
    expiredAt: isoDateTime.nullable().describe("Deleted by the retention policy; listed until the registry's garbage collection frees it"),
  })
  .meta({ id: 'ContainerImage' });
export type Image = z.infer<typeof imageSchema>;

export const registryUserSchema = z
  .object({
    kind: z.enum(['apiKey', 'anonymous']),
    id: z.string().nullable().describe('The API key id; null for anonymous'),
    name: z.string(),
    keyPrefix: z.string().nullable(),
    actions: z.array(z.enum(['pull', 'push'])),
    lastUsedAt: isoDateTime.nullable(),
    expiresAt: isoDateTime.nullable(),
  })
  .meta({ id: 'RegistryUser' });
export type RegistryUser = z.infer<typeof registryUserSchema>;

export const credentialsSchema = z
  .object({
    users: z.array(registryUserSchema),
    error: z.string().nullable().describe('Set, with users empty, when the registry could not be reached'),
    login: z.object({ host: z.string(), username: z.string(), passwordHint: z.string() }).describe('What `docker login` takes'),
  })
  .meta({ id: 'RepositoryCredentials' });
export type RepositoryCredentials = z.infer<typeof credentialsSchema>;
