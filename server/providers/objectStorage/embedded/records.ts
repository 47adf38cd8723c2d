import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { getDb } from '../../../../db';
import { s3GatewayBuckets, s3GatewayCredentials } from '../../../../db/schema';
import type { CorsRule, CredentialAccess } from '../types';
import { corsRuleSchema } from './cors';

export interface BucketRecord {
  name: string;
  publicAccess: boolean;
  suspended: boolean;
  corsRules: CorsRule[];
  createdAt: Date;
}

export interface CredentialRecord {
  accessKeyId: string;
  sealedSecret: string;
  buckets: string[];
  access: CredentialAccess;
}

const storedCorsRules = z.array(corsRuleSchema);
const storedBuckets = z.array(z.string());

export async function loadBucket(name: string): Promise<BucketRecord | null> {
  const db = await getDb();
  const [row] = await db.select().from(s3GatewayBuckets).where(eq(s3GatewayBuckets.name, name));
  if (!row) return null;
  return {
    name: row.name,
    publicAccess: row.publicAccess,
    suspended: row.suspended,
    // A record this module did not write is refused outright rather than half-applied.
    corsRules: storedCorsRules.parse(row.corsRules),
    createdAt: row.createdAt,
  };
}

export async function loadBuckets(names: string[]): Promise<BucketRecord[]> {
  const found = await Promise.all(names.map(loadBucket));
  return found.filter((record): record is BucketRecord => record !== null);
}

export async function loadCredential(accessKeyId: string): Promise<CredentialRecord | null> {
  const db = await getDb();
  const [row] = await db.select().from(s3GatewayCredentials).where(eq(s3GatewayCredentials.accessKeyId, accessKeyId));
  if (!row) return null;
  return { accessKeyId: row.accessKeyId, sealedSecret: row.sealedSecret, buckets: storedBuckets.parse(row.buckets), access: row.access };
}
