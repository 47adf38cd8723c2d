// First, before anything that reaches the integrations domain: its router, which imports this
// module in a cycle, reads the template schema while it is being defined.
export { findAppTemplate, appTemplateResultSchema, type AppTemplateResult } from './template';
import { isNull } from 'drizzle-orm';
import { apps } from '../../../db/schema';
import { defineDomain } from '../../platform/domain';
import { getBuildProvider } from '../../providers/builds';
import { appsEvents } from './events';
import { appsJobs } from './jobs';
import { appsRouter } from './router';
import { appsSuspension } from './suspension';

export { queuePushDeployments } from './deployments';
export { appRepositories } from './service';

/** Apps: branches of connected repositories, built by the build provider and billed per instance. */
export const appsDomain = defineDomain({
  name: 'apps',
  routers: { apps: appsRouter },
  jobs: appsJobs,
  events: appsEvents,
  scopes: ['apps'],
  panel: [{ segment: 'apps', label: 'Apps', icon: 'power', section: 'resources', order: 15 }],
  counters: [
    {
      counter: 'apps',
      label: 'app',
      blocksProjectDeletion: true,
      table: apps,
      projectIdColumn: apps.projectId,
      live: isNull(apps.deletedAt),
    },
  ],
  suspension: appsSuspension,
  providers: () => {
    const provider = getBuildProvider();
    return [{ name: 'builds', kind: provider.kind, description: provider.description }];
  },
});
