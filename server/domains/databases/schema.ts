import { z } from 'zod';
import { DATABASE_TIERS, POOL_MODES } from '../../../db/schema/databases';
import { isoDateTime } from '../../platform/schemas';

export const tierSchema = z.enum(DATABASE_TIERS, { error: `tier must be one of ${DATABASE_TIERS.join(', ')}` });
export const poolModeSchema = z.enum(POOL_MODES, { error: `poolMode must be one of ${POOL_MODES.join(', ')}` });

/** Names PostgreSQL keeps for itself or the platform needs; refused with a clear message rather than a 409. */
const RESERVED_NAMES = new Set(['postgres', 'template0', 'template1', 'pgbouncer', 'public', 'platform_tenants']);

export const dbNameSchema = z
  .string({ error: 'dbName is required' })
  .min(1, 'dbName is required')
  .max(40, 'dbName is at most 40 characters')
  .regex(/^[a-z0-9_]+$/, 'dbName may hold only lower-case letters, digits and underscores')
  .refine((name) => !name.startsWith('pg_'), 'dbName must not start with pg_ (PostgreSQL reserves it)')
  .refine((name) => !RESERVED_NAMES.has(name), 'dbName is a name the cluster reserves; choose another');

export const createTenantInput = z.object({
  dbName: dbNameSchema,
  tier: tierSchema.default('STARTER'),
  poolMode: poolModeSchema.default('TRANSACTION'),
});
export type CreateTenantInput = z.infer<typeof createTenantInput>;

const limitsSchema = z.object({
  maxConnections: z.number().int().describe('Direct connections the tenant may hold at once (the role’s CONNECTION LIMIT)'),
  poolSize: z.number().int().describe('Server connections the pooler keeps for the tenant'),
  storageBytes: z.number().int().describe('The tier’s storage limit (decimal GB)'),
});

const storageSchema = z.object({
  usedBytes: z.number().int().nullable().describe('The last pg_database_size reading; null until the first'),
  measuredAt: isoDateTime.nullable(),
  readOnly: z.boolean().describe('Over the storage limit: new transactions are read-only until it is back under or the tier is raised'),
});

export const tenantSchema = z
  .object({
    tenantId: z.string(),
    status: z.enum(['PROVISIONING', 'ACTIVE']).describe('ACTIVE once the database, its roles and its pool exist (this platform provisions before answering)'),
    suspended: z.boolean().describe('Logins refused while an invoice stays unpaid past its grace period'),
    dbName: z.string(),
    tier: tierSchema,
    poolMode: poolModeSchema,
    dbUser: z.string(),
    dbPassword: z.string().optional().describe('Only in the answers of creation and rotation'),
    host: z.string(),
    port: z.number().int(),
    connectionUri: z
      .string()
      .describe('postgresql://<dbUser>[:<dbPassword>]@<host>:<port>/<dbName>?sslmode=require; the password only where dbPassword is answered'),
    poolConnectionUri: z.string().optional().describe('The same through the pooler; absent while no pooler runs'),
    poolHost: z.string().optional(),
    poolPort: z.number().int().optional(),
    poolName: z.string().optional(),
    limits: limitsSchema,
    storage: storageSchema,
    createdAt: isoDateTime,
  })
  .meta({ id: 'SharedDatabaseTenant' });
export type Tenant = z.infer<typeof tenantSchema>;

export const pricesSchema = z.array(
  z.object({
    tier: tierSchema,
    monthly: z.number().int().describe('Minor units'),
    currency: z.string(),
    maxConnections: z.number().int(),
    storageGb: z.number().int(),
    poolSize: z.number().int(),
  }),
);

export const clusterSchema = z.object({
  available: z.boolean().describe('Whether tenants can be created now'),
  reason: z.string().nullable().describe('Why not, naming the setting to fix'),
  pooler: z.boolean().describe('Whether connection pooling is offered (PgBouncer runs)'),
  retentionDays: z.number().int().describe('How long a deleted tenant’s database is kept for recovery before it is dropped'),
});
