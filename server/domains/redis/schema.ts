import { z } from 'zod';
import { REDIS_DATA_PERSISTENCE, REDIS_STATUSES, type RedisStatusValue } from '../../../db/schema/redis';
import { isoDateTime } from '../../platform/schemas';

export { REDIS_DATA_PERSISTENCE, REDIS_STATUSES, type RedisStatusValue };
export type RedisDataPersistence = (typeof REDIS_DATA_PERSISTENCE)[number];

/** What each persistence option means, in the words the panel and the API description use. */
export const PERSISTENCE_EXPLAINED: Record<RedisDataPersistence, string> = {
  NONE: 'Nothing is written to disk: a restart empties the database. For caches.',
  AOF_EVERY_WRITE: 'Every write is appended to a log and flushed before it is acknowledged: nothing acknowledged is lost, at some cost in throughput.',
  AOF_EVERY_1_SECOND: 'Writes are appended to a log flushed once a second: a crash loses at most the last second.',
  SNAPSHOT_EVERY_1_HOUR: 'A snapshot of the whole dataset every hour (when anything changed): a crash loses up to an hour.',
  SNAPSHOT_EVERY_6_HOURS: 'A snapshot every 6 hours (when anything changed): a crash loses up to 6 hours.',
  SNAPSHOT_EVERY_12_HOURS: 'A snapshot every 12 hours (when anything changed): a crash loses up to 12 hours.',
};

export const redisNameSchema = z
  .string()
  .min(1, 'Name is required')
  .max(40, 'Name must be at most 40 characters')
  .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, 'Name may contain lower-case letters, digits and hyphens, and starts and ends with a letter or digit');

const planSlugSchema = z.string().min(1, 'planSlug is required').max(64, 'planSlug must be at most 64 characters');

export const createRedisInput = z.object({
  name: redisNameSchema.describe('Unique among the live Redis databases of the project'),
  planSlug: planSlugSchema.describe('A plan slug from GET /v1/redis/plans'),
  region: z
    .string()
    .min(1, 'region is required')
    .max(64, 'region must be at most 64 characters')
    .describe('A region slug from GET /v1/redis/regions where the plan is sold'),
  replication: z
    .boolean()
    .default(false)
    .describe('A replica on its own process, kept in sync; reserves half of the plan memory and bills a second unit of the plan price'),
  dataPersistence: z
    .enum(REDIS_DATA_PERSISTENCE, { error: `dataPersistence must be one of ${REDIS_DATA_PERSISTENCE.join(', ')}` })
    .default('NONE')
    .describe(
      Object.entries(PERSISTENCE_EXPLAINED)
        .map(([option, meaning]) => `${option}: ${meaning}`)
        .join(' '),
    ),
});
export type CreateRedisInput = z.infer<typeof createRedisInput>;

export const redisPreviewQuery = z.object({
  planSlug: planSlugSchema.describe('Required: a missing planSlug is a 400'),
  replication: z.enum(['true', 'false'], { error: 'replication must be true or false' }).optional().describe('true bills a second unit of the plan price'),
});

export const redisPlanSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    provider: z.string().describe('PLATFORM'),
    engine: z.string().describe('VALKEY: Redis 7.2 compatible at protocol and command level'),
    planType: z.string().describe('RAM'),
    memoryMb: z.number().int(),
    throughputOps: z.number().int().nullable().describe('Rated operations-per-second ceiling; null on every tier sold today'),
    cpuMilli: z.number().int().describe('CPU reserved, in millicores'),
    supportsReplication: z.boolean(),
    supportsPersistence: z.boolean(),
    priceMonthly: z.number().describe('Whole currency units (not cents), per unit: replication bills two'),
    regions: z.array(z.string()).describe('Ours: the region slugs the plan is sold in'),
  })
  .meta({ id: 'RedisPlan' });
export type RedisPlan = z.infer<typeof redisPlanSchema>;

export const redisRegionSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    country: z.string().describe('ISO 3166-1 alpha-2'),
    available: z.boolean().describe('False while the region takes no new databases'),
    providers: z.array(z.string()).describe('Backends that sell into the region'),
    planTypes: z.array(z.string()).describe('Plan families every plan of which is sold in the region'),
    plans: z.array(z.string()).describe('Ours: the plan slugs sold in the region'),
  })
  .meta({ id: 'RedisRegion' });
export type RedisRegion = z.infer<typeof redisRegionSchema>;

export const redisDatabaseSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    name: z.string(),
    planSlug: z.string(),
    region: z.string(),
    memoryMb: z.number().int().describe("The plan's memory"),
    usableMemoryMb: z.number().int().describe('What the data may fill: the plan memory, halved with replication'),
    replication: z.boolean(),
    dataPersistence: z.enum(REDIS_DATA_PERSISTENCE),
    status: z
      .enum(REDIS_STATUSES)
      .describe(
        'PROVISIONING until every process answers, then READY. FAILED when it could not be started: billing stopped and the rest of the month credited back; delete it',
      ),
    host: z.string(),
    port: z.number().int(),
    tls: z.boolean().describe('Whether clients must connect with TLS (rediss://)'),
    readOnly: z.boolean().describe('True while a billing suspension refuses writes; reads keep working'),
    createdAt: isoDateTime,
    updatedAt: isoDateTime,
  })
  .meta({ id: 'RedisDatabase' });
export type RedisDatabase = z.infer<typeof redisDatabaseSchema>;

export const redisDatabaseWithCredentialsSchema = redisDatabaseSchema
  .extend({
    username: z.literal('default'),
    password: z.string().describe("The default user's password"),
    url: z.string().describe('redis://default:<password>@host:port (rediss:// with TLS)'),
  })
  .meta({ id: 'RedisDatabaseWithCredentials' });
export type RedisDatabaseWithCredentials = z.infer<typeof redisDatabaseWithCredentialsSchema>;

const usageFigures = {
  memoryUsedBytes: z.number().int(),
  networkInBytes: z.number().int().describe('Bytes received since the database last started'),
  networkOutBytes: z.number().int().describe('Bytes sent since the database last started'),
  operations: z.number().int().describe('Commands processed since the database last started'),
};

export const redisUsageSchema = z
  .object({
    ...usageFigures,
    memoryLimitBytes: z.number().int().describe('What the data may fill (usable memory)'),
    sampledAt: isoDateTime.nullable().describe('When the figures were read; null while provisioning (every figure is 0 then)'),
    history: z.array(z.object({ at: isoDateTime, ...usageFigures })).describe('One reading a minute over the last hour, oldest first'),
  })
  .meta({ id: 'RedisUsage' });
export type RedisUsageView = z.infer<typeof redisUsageSchema>;
