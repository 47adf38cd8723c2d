import { dnsProviderConnections, gitOAuthConnections, gitRepositoryWebhooks, imageHubConnections } from '../../../db/schema';
import { defineDomain } from '../../platform/domain';
import { getDnsProvider } from '../../providers/dns';
import { startConfiguredNameserver } from '../../providers/dns/nameserver';
import { getGitHost1, getOAuthGitHost } from '../../providers/gitHosts';
import { getImageHub } from '../../providers/imageHub';
import { integrationEvents } from './events';
import { gitHostRoutes } from './gitHosts/routes';
import { gitHost1Router, gitHost2Router, gitHost3Router } from './gitHosts/router';
import { purgeOldDeliveries } from './gitHosts/webhooks';
import { imageHubRouter } from './imageHub/router';
import { dnsOAuthCallbackRoute, dnsOAuthConnectRoute } from './oauthRoutes';
import { dnsProviderRouter } from './router';

export { createRecordWith, projectDnsAccess, recordsAtNames, zoneHolding, type DnsAccess } from './service';
export { deploymentSource, openProjectRepository, unwatchRepository, watchRepository, type ProjectRepository } from './gitHosts/access';
export { host1DefaultReturnProject } from './gitHosts/host1';

/** Connections to the customer's accounts elsewhere: the DNS provider, the image hub and three git hosts. */
export const integrationsDomain = defineDomain({
  name: 'integrations',
  routers: { dnsProvider: dnsProviderRouter, imageHub: imageHubRouter, gitHost1: gitHost1Router, gitHost2: gitHost2Router, gitHost3: gitHost3Router },
  events: integrationEvents,
  scopes: ['integrations'],
  rawRoutes: [dnsOAuthConnectRoute, dnsOAuthCallbackRoute, ...gitHostRoutes],
  jobs: [{ name: 'integrations.purge-deliveries', cron: '41 4 * * *', handler: async () => void (await purgeOldDeliveries()) }],
  panel: [{ segment: 'integrations', label: 'Integrations', icon: 'sparkles', section: 'resources', order: 60 }],
  // Serves the simulator's zones to real DNS lookups when DNS_SIM_NAMESERVER is set (development, e2e).
  startup: async () => void (await startConfiguredNameserver()),
  sealedColumns: [
    { table: dnsProviderConnections, id: dnsProviderConnections.projectId, sealed: dnsProviderConnections.sealedCredential },
    { table: imageHubConnections, id: imageHubConnections.projectId, sealed: imageHubConnections.sealedAccessToken },
    { table: gitOAuthConnections, id: gitOAuthConnections.id, sealed: gitOAuthConnections.sealedAccessToken },
    { table: gitOAuthConnections, id: gitOAuthConnections.id, sealed: gitOAuthConnections.sealedRefreshToken },
    { table: gitRepositoryWebhooks, id: gitRepositoryWebhooks.id, sealed: gitRepositoryWebhooks.sealedSecret },
  ],
  providers: () => [
    { name: 'dns', kind: getDnsProvider().kind, description: getDnsProvider().description },
    { name: 'imageHub', kind: getImageHub().kind, description: getImageHub().description },
    { name: 'gitHost1', kind: getGitHost1().kind, description: getGitHost1().description },
    { name: 'gitHost2', kind: getOAuthGitHost('git-host-2').kind, description: getOAuthGitHost('git-host-2').description },
    { name: 'gitHost3', kind: getOAuthGitHost('git-host-3').kind, description: getOAuthGitHost('git-host-3').description },
  ],
});
