import { getConfig } from '../../platform/config';
import { CloudflareDnsProvider } from './cloudflare';
import { DnsSimulator } from './simulator';
import type { DnsProvider } from './types';

export type { DnsAccount, DnsOAuth, DnsProvider, DnsRecord, DnsRecordInput, DnsRecordType, DnsZone } from './types';
export { DNS_RECORD_TYPES } from './types';
export * from './records';

let provider: DnsProvider | undefined;

/** The DNS provider named by DNS_PROVIDER, made once per process. */
export function getDnsProvider(): DnsProvider {
  if (!provider) {
    const config = getConfig();
    switch (config.DNS_PROVIDER) {
      case 'simulator':
        provider = new DnsSimulator();
        break;
      case 'cloudflare':
        provider = new CloudflareDnsProvider({
          apiUrl: config.DNS_API_URL,
          timeoutMs: config.DNS_API_TIMEOUT_SECONDS * 1000,
          // Half an OAuth app is none: without its secret no code could be exchanged.
          oauth:
            config.DNS_OAUTH_CLIENT_ID && config.DNS_OAUTH_CLIENT_SECRET
              ? {
                  clientId: config.DNS_OAUTH_CLIENT_ID,
                  clientSecret: config.DNS_OAUTH_CLIENT_SECRET,
                  authorizeUrl: config.DNS_OAUTH_AUTHORIZE_URL,
                  tokenUrl: config.DNS_OAUTH_TOKEN_URL,
                }
              : null,
        });
        break;
    }
  }
  return provider;
}

/** Test hook: the next call makes the provider again, from the configuration as it is then. */
export function resetDnsProviderForTests(): void {
  provider = undefined;
}
