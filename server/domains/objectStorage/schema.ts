import { z } from 'zod';
import { BUCKET_STATUSES, BUCKET_TIERS, OBJECT_STORAGE_PROVIDER_NAME, STORAGE_CREDENTIAL_ACCESS } from '../../../db/schema/objectStorage';
import { isoDateTime } from '../../platform/schemas';

export { BUCKET_TIERS, OBJECT_STORAGE_PROVIDER_NAME, STORAGE_CREDENTIAL_ACCESS };
export type BucketTierValue = (typeof BUCKET_TIERS)[number];

/** Where buckets can be made; each is the endpoint's SigV4 region too. */
export const OBJECT_STORAGE_REGIONS = [
  { slug: 'fra1', name: 'Frankfurt' },
  { slug: 'nyc1', name: 'New York' },
  { slug: 'sgp1', name: 'Singapore' },
] as const;
const REGION_SLUGS = OBJECT_STORAGE_REGIONS.map((r) => r.slug) as [string, ...string[]];

const CORS_METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'HEAD'] as const;
const headerName = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'a header name (or * for any)')
  .or(z.literal('*'));

/** An origin is `*` or scheme://host[:port] with at most one `*` in the host, as S3 accepts. */
const origin = z
  .string()
  .min(1)
  .max(512)
  .refine(
    (value) => value === '*' || /^https?:\/\/(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$/.test(value),
    'an origin such as https://app.example.com, https://*.example.com or *',
  );

export const corsRuleSchema = z
  .object({
    allowedOrigins: z.array(origin).min(1, 'allowedOrigins needs at least one origin (* allows any)').max(50),
    allowedMethods: z
      .array(z.enum(CORS_METHODS, { error: `allowedMethods are among ${CORS_METHODS.join(', ')}` }))
      .min(1, 'allowedMethods needs at least one method')
      .max(5),
    allowedHeaders: z.array(headerName).max(50).optional(),
    exposeHeaders: z
      .array(
        z
          .string()
          .min(1)
          .max(256)
          .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'a header name'),
      )
      .max(50)
      .optional(),
    maxAgeSeconds: z.number().int().min(0).max(86_400).optional(),
  })
  .meta({ id: 'CorsRule' });

export const corsRulesSchema = z.array(corsRuleSchema).max(100, 'at most 100 CORS rules');

export const bucketNameSchema = z
  .string()
  .min(3, 'Bucket names are at least 3 characters')
  .max(63, 'Bucket names are at most 63 characters')
  .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, 'Bucket names are lower-case letters, digits and hyphens, starting and ending with a letter or digit')
  .refine((name) => !name.startsWith('xn--') && !name.endsWith('-s3alias'), 'Bucket names may not start with xn-- nor end with -s3alias');

const tierSchema = z.enum(BUCKET_TIERS, { error: `tier must be one of ${BUCKET_TIERS.join(', ')}` });
const providerSchema = z.literal(OBJECT_STORAGE_PROVIDER_NAME, { error: `provider must be ${OBJECT_STORAGE_PROVIDER_NAME}` });

export const createBucketInput = z.object({
  name: bucketNameSchema.describe('Global: unique among every live bucket of the platform'),
  provider: providerSchema,
  region: z.enum(REGION_SLUGS, { error: `region must be one of ${REGION_SLUGS.join(', ')}` }),
  tier: tierSchema,
  publicAccess: z.boolean().describe('Anyone may GET objects without a credential'),
  versioning: z.boolean(),
  cdnEnabled: z.boolean().default(false).describe('Requires publicAccess'),
  corsRules: corsRulesSchema.default([]),
});

export const bucketPreviewQuery = z.object({ provider: providerSchema.optional(), tier: tierSchema.default('STARTER') });
export const tierQuery = z.object({ tier: tierSchema });
export const tierInput = z.object({ tier: tierSchema });
export const corsInput = z.object({ corsRules: corsRulesSchema.describe('The complete list; an empty array clears the configuration') });
export const cdnInput = z.object({ cdnEnabled: z.boolean() });

const endpointSchema = z
  .object({
    url: z.string().describe('The S3 endpoint URL to give S3 clients'),
    region: z.string().describe('The SigV4 signing region'),
    pathStyle: z.boolean().describe('Address buckets in the path (https://endpoint/bucket/key)'),
    development: z.boolean().describe('True on the embedded development endpoint: not for production data'),
  })
  .meta({ id: 'S3Endpoint' });

export const bucketSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    provider: z.literal(OBJECT_STORAGE_PROVIDER_NAME),
    region: z.string(),
    tier: tierSchema,
    status: z
      .enum(BUCKET_STATUSES)
      .describe('suspended when usage exceeds the tier allowance by 10% (an upgrade reactivates) or while the project is suspended for an unpaid invoice'),
    publicAccess: z.boolean(),
    versioning: z.boolean(),
    cdnEnabled: z.boolean(),
    cdnDomain: z.string().nullable().describe('Null while the CDN is disabled or still being provisioned'),
    corsRules: z.array(corsRuleSchema),
    endpoint: endpointSchema,
    createdAt: isoDateTime,
  })
  .meta({ id: 'Bucket' });
export type Bucket = z.infer<typeof bucketSchema>;

const figures = { storageBytes: z.number().int(), egressBytes: z.number().int(), requests: z.number().int() };

export const bucketUsageSchema = z
  .object({
    ...figures,
    objects: z.number().int(),
    allowances: z.object(figures).describe("The tier's monthly allowances"),
    periodStart: isoDateTime.describe('Egress and requests count from here (the start of the billing month)'),
    measuredAt: isoDateTime.describe('Up to 24 hours old (read again on request after 5 minutes)'),
    cdn: z
      .object({ enabled: z.boolean(), perGb: z.number().int(), perMillionRequests: z.number().int(), currency: z.string() })
      .describe('Metered CDN delivery prices in minor units: 12 per GB, 150 per million requests (USD 0.015 per 10,000)'),
  })
  .meta({ id: 'BucketUsage' });
export type BucketUsageView = z.infer<typeof bucketUsageSchema>;

export const cdnStateSchema = z.object({ cdnEnabled: z.boolean(), cdnDomain: z.string().nullable() }).meta({ id: 'BucketCdn' });

export const credentialSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    accessKeyId: z.string(),
    buckets: z
      .array(z.object({ id: z.string(), name: z.string() }))
      .nullable()
      .describe('null: every bucket of the project, present and future'),
    access: z.enum(STORAGE_CREDENTIAL_ACCESS),
    legacy: z.boolean().describe('Made by the iam-users family: one bucket, cannot be re-scoped'),
    createdAt: isoDateTime,
  })
  .meta({ id: 'StorageCredential' });
export type StorageCredential = z.infer<typeof credentialSchema>;

export const issuedCredentialSchema = credentialSchema
  .extend({ secretAccessKey: z.string().describe('Shown once: store it now') })
  .meta({ id: 'IssuedStorageCredential' });

export const createCredentialInput = z.object({
  name: z
    .string()
    .min(1, 'name is required')
    .max(64, 'name must be at most 64 characters')
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'name may contain letters, digits, dots, underscores and hyphens'),
  bucketIds: z
    .array(z.string().min(1).max(64))
    .min(1)
    .max(100)
    .nullable()
    .default(null)
    .describe('The buckets it reaches; null (the default) for every bucket of the project'),
  access: z
    .enum(STORAGE_CREDENTIAL_ACCESS)
    .default('write')
    .describe('read: list and download; write: also upload and delete objects; full: also bucket settings (CORS, versioning)'),
});

/**
 * A change names what changes: a field left out keeps its value. (Create's defaults, `null` for every
 * bucket and `write`, would otherwise widen a credential whose caller only meant to change the other.)
 */
export const rescopeCredentialInput = z
  .object({
    bucketIds: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(100)
      .nullable()
      .optional()
      .describe('The buckets it reaches; null for every bucket of the project; left out, unchanged'),
    access: z.enum(STORAGE_CREDENTIAL_ACCESS).optional().describe('read, write or full (see creation); left out, unchanged'),
  })
  .refine((change) => change.bucketIds !== undefined || change.access !== undefined, {
    message: 'Name bucketIds, access or both',
    path: ['access'],
  });

export const legacyIamUserSchema = z.object({ iamUserName: z.string(), accessKeyId: z.string(), createdAt: isoDateTime }).meta({ id: 'LegacyIamUser' });
export const issuedIamUserSchema = legacyIamUserSchema.extend({ secretAccessKey: z.string().describe('Shown once') }).meta({ id: 'IssuedLegacyIamUser' });
