import { domains } from '../../../db/schema';
import { defineDomain } from '../../platform/domain';
import { getRegistrarProvider } from '../../providers/registrar';
import { domainEvents } from './events';
import { domainJobs } from './jobs';
import { domainsRouter } from './router';

export const domainsDomain = defineDomain({
  name: 'domains',
  routers: { domains: domainsRouter },
  jobs: domainJobs,
  events: domainEvents,
  scopes: ['domains'],
  counters: [{ counter: 'domains', label: 'domain', blocksProjectDeletion: true, table: domains, projectIdColumn: domains.projectId }],
  providers: () => {
    const registrar = getRegistrarProvider();
    return [{ name: 'registrar', kind: registrar.kind, description: registrar.description }];
  },
  panel: [{ segment: 'domains', label: 'Domains', icon: 'globe', section: 'resources', order: 12 }],
});
