import { DNS_RECORD_TYPES, getDnsProvider, PROXIABLE_TYPES, TTL_AUTOMATIC, TTL_MAX_SECONDS, TTL_MIN_SECONDS } from '@/server/providers/dns';
import type { DnsProviderInfo, DnsRecordRules } from '@/components/integrations/dnsProvider';

/** Read by the Integrations and domain pages on the server and handed to their client components. */
export function dnsProviderInfo(): DnsProviderInfo {
  const { kind, description } = getDnsProvider();
  return { kind, description };
}

export function dnsRecordRules(): DnsRecordRules {
  return {
    types: DNS_RECORD_TYPES,
    proxiableTypes: PROXIABLE_TYPES,
    ttlAutomatic: TTL_AUTOMATIC,
    ttlMinSeconds: TTL_MIN_SECONDS,
    ttlMaxSeconds: TTL_MAX_SECONDS,
  };
}
