import { isNull } from 'drizzle-orm';
import { containerRegistries } from '../../../db/schema';
import { defineDomain } from '../../platform/domain';
import { getRegistryProvider, stopRegistryProvider } from '../../providers/registry';
import { containerRegistryEvents } from './events';
import { containerRegistryJobs } from './jobs';
import { startedRegistry } from './registry';
import { containerRegistryRouter } from './router';
import { containerRegistrySuspension } from './suspension';
import { registryTokenRoute } from './tokenRoute';

export const containerRegistryDomain = defineDomain({
  name: 'containerRegistry',
  routers: { containerRegistry: containerRegistryRouter },
  jobs: containerRegistryJobs,
  events: containerRegistryEvents,
  scopes: ['registry'],
  rawRoutes: [registryTokenRoute],
  panel: [{ segment: 'container-registry', label: 'Container registry', icon: 'box', section: 'resources', order: 28 }],
  counters: [
    {
      counter: 'containerRegistries',
      label: 'container registry',
      blocksProjectDeletion: true,
      table: containerRegistries,
      projectIdColumn: containerRegistries.projectId,
      live: isNull(containerRegistries.deletedAt),
    },
  ],
  suspension: containerRegistrySuspension,
  // Customers push from app start, and the registry's notifications need their receiver running.
  startup: async () => void (await startedRegistry()),
  shutdown: stopRegistryProvider,
  providers: () => {
    const provider = getRegistryProvider();
    return [{ name: 'registry', kind: provider.kind, description: provider.description }];
  },
});
