import { accountsRouter } from './accounts';
import { apiKeysRouter } from './apiKeys';
import { billingRouter } from './billing';
import { invitationsRouter } from './invitations';
import { membersRouter } from './members';
import { projectsRouter } from './projects';
import { router } from '../trpc';
// Resource counters register when their service module loads; project `_count` must never depend
// on whether some router happens to import that service.
import '../services/members';

export const appRouter = router({
  accounts: accountsRouter,
  projects: projectsRouter,
  apiKeys: apiKeysRouter,
  members: membersRouter,
  invitations: invitationsRouter,
  billing: billingRouter,
});

export type AppRouter = typeof appRouter;
