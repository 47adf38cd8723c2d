import { isNull } from 'drizzle-orm';
import { hostingDatabases, hostingSites } from '../../../db/schema';
import { defineDomain } from '../../platform/domain';
import { getHostingDatabaseProvider, stopHostingDatabaseProvider } from '../../providers/hosting';
import { getWebServingProvider, stopWebServingProvider } from '../../providers/hosting/web';
import { hostingEvents } from './events';
import { hostingFileRoutes } from './fileRoutes';
import { hostingFilesRouter } from './filesRouter';
import { hostingRouter } from './router';
import { startHostingSftp, stopHostingSftp } from './sftpService';
import { hostingSuspension } from './suspension';

export const hostingDomain = defineDomain({
  name: 'hosting',
  routers: { hosting: hostingRouter, hostingFiles: hostingFilesRouter },
  events: hostingEvents,
  scopes: ['hosting'],
  rawRoutes: hostingFileRoutes,
  panel: [{ segment: 'hosting', label: 'Hosting', icon: 'cloud', section: 'resources', order: 29 }],
  suspension: hostingSuspension,
  sealedColumns: [
    { table: hostingSites, id: hostingSites.id, sealed: hostingSites.sealedSftpPassword },
    { table: hostingDatabases, id: hostingDatabases.id, sealed: hostingDatabases.sealedPassword },
  ],
  deletionBlockers: [{ label: 'hosting site', table: hostingSites, projectIdColumn: hostingSites.projectId, live: isNull(hostingSites.deletedAt) }],
  // Sites are served and reachable over SFTP from app start, not from the first API call.
  startup: async () => {
    await getWebServingProvider().start();
    await startHostingSftp();
  },
  shutdown: async () => {
    await stopHostingSftp();
    await stopWebServingProvider();
    await stopHostingDatabaseProvider();
  },
  providers: () => {
    const web = getWebServingProvider();
    const databases = getHostingDatabaseProvider();
    return [
      { name: 'hostingWeb', kind: web.kind, description: web.description },
      { name: 'hostingDatabases', kind: databases.kind, description: databases.description },
    ];
  },
});
