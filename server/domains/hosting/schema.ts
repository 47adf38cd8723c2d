import { z } from 'zod';
import { HOSTING_DOMAIN_KINDS, HOSTING_TIERS, PHP_VERSIONS, ROUTING_STATUSES } from '../../../db/schema/hosting';
import { isoDateTime } from '../../platform/schemas';
import { EXTRA_STORAGE_BLOCK_GB, MAX_EXTRA_STORAGE_GB } from './tiers';

export { HOSTING_TIERS, PHP_VERSIONS };

export const tierSchema = z.enum(HOSTING_TIERS, { error: `tier must be one of ${HOSTING_TIERS.join(', ')}` });

export const siteNameSchema = z
  .string()
  .min(3, 'siteName is 3 to 40 characters')
  .max(40, 'siteName is 3 to 40 characters')
  .regex(/^[a-z][a-z0-9_]*$/, 'siteName is a lower-case letter followed by lower-case letters, digits or underscores');

export const extraStorageSchema = z.coerce
  .number()
  .int(`extraStorageGb is a whole number of GB in blocks of ${EXTRA_STORAGE_BLOCK_GB}`)
  .min(0)
  .max(MAX_EXTRA_STORAGE_GB, `extraStorageGb is at most ${MAX_EXTRA_STORAGE_GB}`)
  .refine((gb) => gb % EXTRA_STORAGE_BLOCK_GB === 0, `extraStorageGb comes in blocks of ${EXTRA_STORAGE_BLOCK_GB} GB`);

export const databaseNameSchema = z
  .string()
  .min(1, 'Database names are 1 to 16 characters')
  .max(16, 'Database names are 1 to 16 characters')
  .regex(/^[a-z][a-z0-9]*$/, 'Database names are lower-case letters and digits, starting with a letter');

export const createSiteInput = z.object({
  siteName: siteNameSchema.describe('Global: the SFTP username and the first label of the site’s own address'),
  tier: tierSchema.default('STARTER'),
  phpVersion: z.enum(PHP_VERSIONS, { error: `phpVersion must be one of ${PHP_VERSIONS.join(', ')}` }).default('8.3'),
  extraStorageGb: extraStorageSchema.default(0),
  database: z.object({ name: databaseNameSchema }).optional().describe('A MySQL database made with the site'),
});
export type CreateSiteInput = z.infer<typeof createSiteInput>;

export const previewQuery = z.object({ tier: tierSchema.default('STARTER'), extraStorageGb: extraStorageSchema.default(0) });

export const limitsSchema = z
  .object({
    diskGb: z.number().int().describe('The tier’s disk at creation plus extra storage; a tier change does not change it'),
    phpWorkers: z.number().int(),
    memoryMb: z.number().int(),
    domains: z.number().int(),
    databases: z.number().int(),
    connectionsPerDatabase: z.number().int(),
  })
  .meta({ id: 'HostingLimits' });

export const hostingDatabaseSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    dbName: z.string(),
    dbUser: z.string(),
    host: z.string(),
    port: z.number().int(),
    maxConnections: z.number().int(),
    createdAt: isoDateTime,
  })
  .meta({ id: 'HostingDatabase' });
export type HostingDatabaseView = z.infer<typeof hostingDatabaseSchema>;
export const hostingDatabaseWithPasswordSchema = hostingDatabaseSchema
  .extend({ dbPassword: z.string().describe('Only on create and single reads') })
  .meta({ id: 'HostingDatabaseWithPassword' });

export const siteSchema = z
  .object({
    tenantId: z.string(),
    siteName: z.string(),
    status: z.enum(['ACTIVE', 'SUSPENDED']).describe('SUSPENDED while an invoice is unpaid past its grace period: offline, SFTP closed'),
    tier: tierSchema,
    phpVersion: z.enum(PHP_VERSIONS),
    extraStorageGb: z.number().int(),
    ready: z.boolean().describe('Whether the site is serving right now, read live'),
    url: z.string().describe('The site’s own address'),
    limits: limitsSchema,
    sftp: z.object({ host: z.string(), port: z.number().int(), username: z.string() }),
    sftpPassword: z.string().optional().describe('Only with ?credentials=true'),
    createdAt: isoDateTime,
  })
  .meta({ id: 'HostingSite' });
export type Site = z.infer<typeof siteSchema>;

export const createdSiteSchema = z
  .object({
    tenantId: z.string(),
    status: z.literal('ACTIVE'),
    database: hostingDatabaseWithPasswordSchema.optional(),
    databaseError: z.string().optional().describe('Why the requested database was not made; the site is kept'),
  })
  .meta({ id: 'CreatedHostingSite' });

export const accessSchema = z
  .object({
    username: z.string(),
    host: z.string(),
    sftp: z.object({ port: z.number().int() }),
    ssh: z.object({ port: z.number().int(), enabled: z.boolean() }),
  })
  .meta({ id: 'HostingAccess' });

export const pricesSchema = z.array(z.object({ tier: tierSchema, monthly: z.number().int(), currency: z.string() })).describe('Monthly list prices');

export const featuresSchema = z
  .object({
    databases: z.boolean(),
    extraStorage: z
      .object({ blockGb: z.number().int(), monthly: z.number().int(), currency: z.string() })
      .nullable()
      .describe('The price of one block of extra storage a month'),
  })
  .meta({ id: 'HostingFeatures' });

export const dnsInstructionsSchema = z
  .object({
    recordType: z.enum(['A', 'CNAME']),
    name: z.string(),
    value: z.string(),
    ownershipVerification: z.object({ type: z.literal('TXT'), name: z.string(), value: z.string() }),
  })
  .meta({ id: 'HostingDnsInstructions' });

export const hostingDomainSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    hostname: z.string(),
    kind: z.enum(HOSTING_DOMAIN_KINDS),
    documentRoot: z.string().nullable(),
    redirectTarget: z.string().nullable(),
    redirectStatus: z.union([z.literal(301), z.literal(302)]).nullable(),
    status: z.literal('ACTIVE'),
    routingStatus: z.enum(ROUTING_STATUSES),
    instructions: dnsInstructionsSchema.describe('The DNS records that route the hostname and prove it is yours, as attaching answered them'),
    createdAt: isoDateTime,
  })
  .meta({ id: 'HostingDomain' });
export type HostingDomainView = z.infer<typeof hostingDomainSchema>;
