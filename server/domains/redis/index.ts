import { isNull } from 'drizzle-orm';
import { redisDatabases } from '../../../db/schema';
import { defineDomain } from '../../platform/domain';
import { getRedisProvider } from '../../providers/redis';
import { redisEvents } from './events';
import { redisJobs } from './jobs';
import { redisRouter } from './router';
import { adoptDatabases } from './service';
import { redisSuspension } from './suspension';

export const redisDomain = defineDomain({
  name: 'redis',
  routers: { redis: redisRouter },
  jobs: redisJobs,
  events: redisEvents,
  scopes: ['redis'],
  panel: [{ segment: 'redis', label: 'Redis', icon: 'bolt', section: 'resources', order: 25 }],
  suspension: redisSuspension,
  sealedColumns: [{ table: redisDatabases, id: redisDatabases.id, sealed: redisDatabases.sealedPassword }],
  startup: adoptDatabases,
  deletionBlockers: [{ label: 'Redis database', table: redisDatabases, projectIdColumn: redisDatabases.projectId, live: isNull(redisDatabases.terminatedAt) }],
  providers: () => {
    const provider = getRedisProvider();
    return [{ name: 'redis', kind: provider.kind, description: provider.description }];
  },
});
