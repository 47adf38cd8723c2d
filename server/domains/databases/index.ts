import { isNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { databaseTenants } from '../../../db/schema';
import { defineDomain } from '../../platform/domain';
import { getTenantClusterProvider, stopTenantClusterProvider } from '../../providers/databases';
import { databasesEvents } from './events';
import { databasesJobs } from './jobs';
import { databasesRouter } from './router';
import { databasesSuspension } from './suspension';
import { TIER_LIMITS } from './tiers';

export const databasesDomain = defineDomain({
  name: 'databases',
  routers: { databases: databasesRouter },
  jobs: databasesJobs,
  events: databasesEvents,
  panel: [{ segment: 'databases', label: 'Databases', icon: 'database', section: 'resources', order: 26 }],
  counters: [
    {
      counter: 'databaseClusters',
      label: 'shared PostgreSQL database',
      blocksProjectDeletion: true,
      table: databaseTenants,
      projectIdColumn: databaseTenants.projectId,
      live: isNull(databaseTenants.deletedAt),
    },
  ],
  suspension: databasesSuspension,
  // The pooler serves live tenants from app start, not from the first API call.
  startup: async () => {
    const provider = getTenantClusterProvider();
    if (provider.kind === 'unconfigured') return;
    const db = await getDb();
    const rows = await db.select().from(databaseTenants).where(isNull(databaseTenants.deletedAt));
    await provider.start(
      rows.map(({ dbName, dbUser, poolUser, tier, poolMode }) => ({ dbName, dbUser, poolUser, poolMode, poolSize: TIER_LIMITS[tier].poolSize })),
    );
  },
  shutdown: stopTenantClusterProvider,
  providers: () => {
    const provider = getTenantClusterProvider();
    return [{ name: 'databases', kind: provider.kind, description: provider.description }];
  },
});
