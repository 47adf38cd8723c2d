import { randomBytes, randomInt } from 'node:crypto';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteBucketCorsCommand,
  DeleteObjectsCommand,
  ListObjectsV2Command,
  PutBucketCorsCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { and, eq, gte, sql } from 'drizzle-orm';
import { z } from 'zod';
import { getDb } from '../../../../db';
import { s3GatewayBuckets, s3GatewayCredentials, s3GatewayTraffic } from '../../../../db/schema';
import { seal } from '../../../platform/encryption/envelope';
import { AppError, notFound, validationError } from '../../../platform/errors';
import {
  CREDENTIAL_ACCESS,
  type BucketSettings,
  type BucketUsage,
  type CredentialScope,
  type IssuedCredential,
  type ObjectStorageEndpoint,
  type ObjectStorageProvider,
} from '../types';
import { corsRuleSchema } from './cors';
import { embeddedPublicUrl, startEmbeddedObjectStorage, type EmbeddedObjectStorage } from './runtime';

/** S3's bucket naming rules: 3–63 of a-z 0-9 . -, starting and ending alphanumeric, no `..`, not an IP address. */
const bucketNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'Bucket names are 3–63 lower-case letters, digits, dots and hyphens, starting and ending with a letter or digit')
  .refine((name) => !name.includes('..') && !/^\d+\.\d+\.\d+\.\d+$/.test(name), 'Bucket names contain no `..` and are not IP addresses');

const settingsSchema = z.object({
  publicAccess: z.boolean(),
  versioning: z.boolean(),
  corsRules: z.array(corsRuleSchema).max(100),
  suspended: z.boolean(),
});

const scopeSchema = z.object({
  buckets: z.array(bucketNameSchema).nullable(),
  projectBuckets: z.array(bucketNameSchema),
  access: z.enum(CREDENTIAL_ACCESS),
});

const ACCESS_KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** s3rver's built-in account: it checks no signature, so this only has to parse. */
const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/**
 * The embedded object storage: buckets and objects in s3rver under the data folder, reached by
 * customers through the gateway, whose records (buckets' settings, keys) this provider keeps.
 * Versioning is recorded but not performed: s3rver keeps one version of each object.
 */
export class EmbeddedObjectStorageProvider implements ObjectStorageProvider {
  readonly kind = 'embedded' as const;
  readonly description =
    'Embedded S3 endpoint (development): s3rver on this host behind a gateway that checks signatures, key scopes, public access and suspension; no versioning or lifecycle rules';
  private client: { url: string; s3: S3Client } | null = null;

  endpoint(region: string): ObjectStorageEndpoint {
    return { url: embeddedPublicUrl(), region, pathStyle: true, development: true };
  }

  async createBucket(name: string, region: string, settings: BucketSettings): Promise<void> {
    const bucket = parse(bucketNameSchema, name);
    const parsed = parse(settingsSchema, settings);
    const db = await getDb();
    await db
      .insert(s3GatewayBuckets)
      .values({ name: bucket, region, ...parsed })
      .onConflictDoUpdate({ target: s3GatewayBuckets.name, set: { ...parsed } });
    await this.call('create the bucket', async (s3) => {
      try {
        await s3.send(new CreateBucketCommand({ Bucket: bucket }));
      } catch (err) {
        if (!(err instanceof S3ServiceException && (err.name === 'BucketAlreadyOwnedByYou' || err.name === 'BucketAlreadyExists'))) throw err;
      }
    });
    await this.syncCors(bucket, parsed.corsRules);
  }

  async applySettings(name: string, settings: BucketSettings): Promise<void> {
    const parsed = parse(settingsSchema, settings);
    const db = await getDb();
    const updated = await db.update(s3GatewayBuckets).set(parsed).where(eq(s3GatewayBuckets.name, name)).returning({ name: s3GatewayBuckets.name });
    if (updated.length === 0) throw notFound('Bucket');
    await this.syncCors(name, parsed.corsRules);
  }

  async deleteBucket(name: string): Promise<void> {
    await this.call('delete the bucket', async (s3) => {
      try {
        for (;;) {
          const page = await s3.send(new ListObjectsV2Command({ Bucket: name, MaxKeys: 1000 }));
          const keys = (page.Contents ?? []).flatMap((o) => (o.Key === undefined ? [] : [{ Key: o.Key }]));
          if (keys.length === 0) break;
          await s3.send(new DeleteObjectsCommand({ Bucket: name, Delete: { Objects: keys, Quiet: true } }));
        }
        await s3.send(new DeleteBucketCommand({ Bucket: name }));
      } catch (err) {
        if (!(err instanceof S3ServiceException && err.name === 'NoSuchBucket')) throw err;
      }
    });
    // Counts still in memory would otherwise land after the deletion below.
    await (await startEmbeddedObjectStorage()).meter.flush();
    const db = await getDb();
    await db.transaction(async (tx) => {
      await tx.delete(s3GatewayBuckets).where(eq(s3GatewayBuckets.name, name));
      // Names are global: a later bucket of the same name (perhaps another customer's) must start
      // with no key reaching it and no traffic counted.
      await tx
        .update(s3GatewayCredentials)
        .set({ buckets: sql`${s3GatewayCredentials.buckets} - ${name}::text` })
        .where(sql`${s3GatewayCredentials.buckets} @> jsonb_build_array(${name}::text)`);
      await tx.delete(s3GatewayTraffic).where(eq(s3GatewayTraffic.bucket, name));
    });
  }

  async usage(name: string, since: Date): Promise<BucketUsage> {
    const db = await getDb();
    const [record] = await db.select({ name: s3GatewayBuckets.name }).from(s3GatewayBuckets).where(eq(s3GatewayBuckets.name, name));
    if (!record) throw notFound('Bucket');
    const storage = await this.call('measure the bucket', async (s3) => {
      let storageBytes = 0;
      let objects = 0;
      let token: string | undefined;
      do {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: name, ContinuationToken: token }));
        for (const object of page.Contents ?? []) {
          storageBytes += object.Size ?? 0;
          objects += 1;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return { storageBytes, objects };
    });
    const { meter } = await startEmbeddedObjectStorage();
    await meter.flush();
    const hourOfSince = new Date(Math.floor(since.getTime() / 3_600_000) * 3_600_000);
    const [traffic] = await db
      .select({
        requests: sql<string>`coalesce(sum(${s3GatewayTraffic.requests}), 0)`,
        egressBytes: sql<string>`coalesce(sum(${s3GatewayTraffic.egressBytes}), 0)`,
      })
      .from(s3GatewayTraffic)
      .where(and(eq(s3GatewayTraffic.bucket, name), gte(s3GatewayTraffic.hour, hourOfSince)));
    return {
      ...storage,
      egressBytes: Number(traffic?.egressBytes ?? 0),
      requests: Number(traffic?.requests ?? 0),
      since: since.toISOString(),
      measuredAt: new Date().toISOString(),
    };
  }

  async issueCredential(label: string, scope: CredentialScope): Promise<IssuedCredential> {
    const parsed = parse(scopeSchema, scope);
    const accessKeyId = `AKIA${Array.from({ length: 16 }, () => ACCESS_KEY_ALPHABET[randomInt(ACCESS_KEY_ALPHABET.length)]).join('')}`;
    const secretAccessKey = randomBytes(30).toString('base64');
    const db = await getDb();
    await db.insert(s3GatewayCredentials).values({
      accessKeyId,
      label,
      sealedSecret: seal(secretAccessKey, accessKeyId),
      buckets: parsed.buckets ?? parsed.projectBuckets,
      access: parsed.access,
    });
    return { accessKeyId, secretAccessKey };
  }

  async rescopeCredential(accessKeyId: string, scope: CredentialScope): Promise<void> {
    const parsed = parse(scopeSchema, scope);
    const db = await getDb();
    const updated = await db
      .update(s3GatewayCredentials)
      .set({ buckets: parsed.buckets ?? parsed.projectBuckets, access: parsed.access })
      .where(eq(s3GatewayCredentials.accessKeyId, accessKeyId))
      .returning({ accessKeyId: s3GatewayCredentials.accessKeyId });
    if (updated.length === 0) throw notFound('Access key');
  }

  async revokeCredential(accessKeyId: string): Promise<void> {
    const db = await getDb();
    await db.delete(s3GatewayCredentials).where(eq(s3GatewayCredentials.accessKeyId, accessKeyId));
  }

  /** Keeps s3rver's CORS configuration the same as the records, so GetBucketCors answers the same rules. */
  private async syncCors(name: string, rules: BucketSettings['corsRules']): Promise<void> {
    await this.call('apply the CORS rules', async (s3) => {
      if (rules.length === 0) {
        await s3.send(new DeleteBucketCorsCommand({ Bucket: name }));
        return;
      }
      await s3.send(
        new PutBucketCorsCommand({
          Bucket: name,
          CORSConfiguration: {
            CORSRules: rules.map((rule) => ({
              AllowedOrigins: rule.allowedOrigins,
              AllowedMethods: rule.allowedMethods,
              AllowedHeaders: rule.allowedHeaders,
              ExposeHeaders: rule.exposeHeaders,
              MaxAgeSeconds: rule.maxAgeSeconds,
            })),
          },
        }),
      );
    });
  }

  /** Runs a call on s3rver (started if need be); its failures are UPSTREAM_ERROR. */
  private async call<T>(what: string, run: (s3: S3Client) => Promise<T>): Promise<T> {
    let running: EmbeddedObjectStorage;
    try {
      running = await startEmbeddedObjectStorage();
    } catch (cause) {
      throw new AppError('UPSTREAM_ERROR', 'The embedded object storage endpoint could not be started', { cause });
    }
    if (this.client?.url !== running.internalUrl) {
      this.client?.s3.destroy();
      this.client = {
        url: running.internalUrl,
        s3: new S3Client({
          endpoint: running.internalUrl,
          forcePathStyle: true,
          region: 'us-east-1',
          credentials: S3RVER_CREDENTIALS,
          requestChecksumCalculation: 'WHEN_REQUIRED',
          maxAttempts: 1,
        }),
      };
    }
    try {
      return await run(this.client.s3);
    } catch (cause) {
      throw new AppError('UPSTREAM_ERROR', `The embedded object storage endpoint failed to ${what}`, { cause });
    }
  }
}

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error.issues);
  return result.data;
}
