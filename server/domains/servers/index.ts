import { isNull } from 'drizzle-orm';
import { servers } from '../../../db/schema';
import { defineDomain } from '../../platform/domain';
import { serverEvents } from './events';
import { serverJobs } from './jobs';
import { serversRouter } from './router';
import { serverSuspension } from './suspension';

export const serversDomain = defineDomain({
  name: 'servers',
  routers: { servers: serversRouter },
  jobs: serverJobs,
  counters: [
    {
      counter: 'servers',
      label: 'server',
      blocksProjectDeletion: true,
      table: servers,
      projectIdColumn: servers.projectId,
      live: isNull(servers.terminatedAt),
    },
  ],
  events: serverEvents,
  scopes: ['servers'],
  panel: [{ segment: 'servers', label: 'Servers', icon: 'server', section: 'resources', order: 10 }],
  suspension: serverSuspension,
});
