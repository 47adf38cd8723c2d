import { domains } from '../../../db/schema';
import { defineDomain } from '../../platform/domain';
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
  panel: [{ segment: 'domains', label: 'Domains', icon: 'globe', section: 'resources', order: 12 }],
});
