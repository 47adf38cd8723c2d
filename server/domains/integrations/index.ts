import { dnsProviderConnections } from '../../../db/schema';
import { defineDomain } from '../../platform/domain';
import { getDnsProvider } from '../../providers/dns';
import { startConfiguredNameserver } from '../../providers/dns/nameserver';
import { integrationEvents } from './events';
import { dnsOAuthCallbackRoute, dnsOAuthConnectRoute } from './oauthRoutes';
import { dnsProviderRouter } from './router';

export { createRecordWith, projectDnsAccess, recordsAtNames, zoneHolding, type DnsAccess } from './service';

/** Connections to the customer's accounts elsewhere; the DNS provider first. */
export const integrationsDomain = defineDomain({
  name: 'integrations',
  routers: { dnsProvider: dnsProviderRouter },
  events: integrationEvents,
  scopes: ['integrations'],
  rawRoutes: [dnsOAuthConnectRoute, dnsOAuthCallbackRoute],
  panel: [{ segment: 'integrations', label: 'Integrations', icon: 'sparkles', section: 'resources', order: 60 }],
  // Serves the simulator's zones to real DNS lookups when DNS_SIM_NAMESERVER is set (development, e2e).
  startup: async () => void (await startConfiguredNameserver()),
  sealedColumns: [{ table: dnsProviderConnections, id: dnsProviderConnections.projectId, sealed: dnsProviderConnections.sealedCredential }],
  providers: () => {
    const provider = getDnsProvider();
    return [{ name: 'dns', kind: provider.kind, description: provider.description }];
  },
});
