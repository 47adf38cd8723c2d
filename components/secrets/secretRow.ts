import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/app';

export type SecretRow = inferRouterOutputs<AppRouter>['secrets']['list'][number];
