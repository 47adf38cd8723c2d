import { accountsRouter } from './accounts';
import { apiKeysRouter } from './apiKeys';
import { billingRouter } from './billing';
import { catalogRouter, infraCatalogRouter } from './catalog';
import { invitationsRouter } from './invitations';
import { membersRouter } from './members';
import { projectsRouter } from './projects';
import { serversRouter } from './servers';
import { sshKeysRouter } from './sshKeys';
import { router } from '../trpc';
// Resource counters register when their service module loads; project `_count` must never depend
// on whether some router happens to import that service.
import '../services/members';
import '../services/servers';

export const appRouter = router({
  accounts: accountsRouter,
  projects: projectsRouter,
  apiKeys: apiKeysRouter,
  members: membersRouter,
  invitations: invitationsRouter,
  billing: billingRouter,
  sshKeys: sshKeysRouter,
  servers: serversRouter,
  catalog: catalogRouter,
  infraCatalog: infraCatalogRouter,
});

export type AppRouter = typeof appRouter;
