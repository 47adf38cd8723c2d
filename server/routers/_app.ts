import { accountsRouter } from './accounts';
import { apiKeysRouter } from './apiKeys';
import { projectsRouter } from './projects';
import { router } from '../trpc';

export const appRouter = router({
  accounts: accountsRouter,
  projects: projectsRouter,
  apiKeys: apiKeysRouter,
});

export type AppRouter = typeof appRouter;
