import type { inferRouterOutputs } from '@trpc/server';
import { OBJECT_STORAGE_REGIONS, type BucketTierValue } from '@/server/domains/objectStorage/schema';
import type { AppRouter } from '@/server/app';

type Outputs = inferRouterOutputs<AppRouter>;
export type BucketView = Outputs['objectStorage']['list'][number];
export type CredentialView = Outputs['storageCredentials']['list'][number];
export type CorsRule = BucketView['corsRules'][number];
export type CredentialAccess = CredentialView['access'];

/** A tier's price (minor units) and monthly allowances, read from the server's tier table by page.tsx. */
interface TierPlan {
  monthly: number;
  storageBytes: number;
  egressBytes: number;
  requests: number;
}
export type TierPlans = Record<BucketTierValue, TierPlan>;

/** What page.tsx reads from the provider on the server, so the notice shows before any bucket exists. */
export interface StorageProviderInfo {
  kind: 'embedded' | 's3';
  description: string;
}

export const TIER_LABELS: Record<BucketTierValue, string> = { STARTER: 'Starter', GROWTH: 'Growth', SCALE: 'Scale', ENTERPRISE: 'Enterprise' };

export const ACCESS_LABELS: Record<CredentialAccess, { label: string; explained: string }> = {
  read: { label: 'Read', explained: 'List and download objects' },
  write: { label: 'Read and write', explained: 'Also upload and delete objects' },
  full: { label: 'Full', explained: 'Also bucket settings (CORS, versioning)' },
};

export function regionName(slug: string): string {
  return OBJECT_STORAGE_REGIONS.find((r) => r.slug === slug)?.name ?? slug;
}

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });
const whole = new Intl.NumberFormat('en');

export function formatRequests(requests: number, exact = false): string {
  return exact ? whole.format(requests) : compact.format(requests);
}

/** The command an S3 user runs first; the secret is in it because the dialog is the only place it is ever shown. */
export function awsCopyCommand(endpointUrl: string, bucket: string, accessKeyId: string, secretAccessKey: string): string {
  return `AWS_ACCESS_KEY_ID=${accessKeyId} AWS_SECRET_ACCESS_KEY=${secretAccessKey} aws --endpoint-url ${endpointUrl} s3 cp file s3://${bucket}/`;
}
