import { accountsRouter } from './domains/accounts/router';
import { apiKeysRouter } from './domains/apiKeys/router';
import { billingRouter } from './domains/billing/router';
import { catalogRouter, infraCatalogRouter } from './domains/catalog/router';
import { invitationsRouter } from './domains/invitations/router';
import { membersRouter } from './domains/members/router';
import { projectsRouter } from './domains/projects/router';
import { serversRouter } from './domains/servers/router';
import { sshKeysRouter } from './domains/sshKeys/router';
import { router } from './platform/trpc';
// Resource counters register when their service module loads; project `_count` must never depend
// on whether some router happens to import that service.
import './domains/members/service';
import './domains/servers/service';

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
