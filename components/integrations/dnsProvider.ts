import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/app';
import type { DnsProvider, DnsRecordType } from '@/server/providers/dns/types';

type Outputs = inferRouterOutputs<AppRouter>;
export type DnsProviderStatus = Outputs['dnsProvider']['status'];
export type DnsZone = Outputs['dnsProvider']['zones'][number];
export type DnsRecord = Outputs['dnsProvider']['records'][number];

/** What page.tsx reads from the provider on the server: the pages cannot ask the API which one runs. */
export interface DnsProviderInfo {
  kind: DnsProvider['kind'];
  description: string;
}

/**
 * What of the record rules shapes the record form (which fields show), read by page.tsx on the
 * server: records.ts imports node:net, which the browser bundle cannot hold.
 */
export interface DnsRecordRules {
  types: readonly DnsRecordType[];
  proxiableTypes: readonly DnsRecordType[];
  ttlAutomatic: number;
  ttlMinSeconds: number;
  ttlMaxSeconds: number;
}

/** The OAuth round trip starts with a plain GET that the API answers with a redirect to the provider. */
export function oauthConnectUrl(projectId: string, returnTo: string): string {
  return `/v1/projects/${encodeURIComponent(projectId)}/integrations/dns-provider/connect/oauth?redirect=${encodeURIComponent(returnTo)}`;
}

export const CONNECTION_LABELS: Record<NonNullable<DnsProviderStatus['connectionType']>, string> = {
  API_TOKEN: 'API token',
  OAUTH: 'OAuth',
};

/** A record's TTL as people read it: 1 is the provider's automatic TTL. */
export function formatTtl(ttl: number, automatic: number): string {
  if (ttl === automatic) return 'Auto';
  if (ttl % 86_400 === 0) return `${ttl / 86_400} d`;
  if (ttl % 3600 === 0) return `${ttl / 3600} h`;
  if (ttl % 60 === 0) return `${ttl / 60} min`;
  return `${ttl} s`;
}
