import type { inferRouterOutputs } from '@trpc/server';
import type { DatabaseTier } from '@/db/schema/databases';
import type { AppRouter } from '@/server/app';

type Outputs = inferRouterOutputs<AppRouter>;
export type TenantView = Outputs['databases']['get'];
export type TierPrice = Outputs['databases']['prices'][number];
export type ClusterAvailability = Outputs['databases']['availability'];
export type PoolMode = TenantView['poolMode'];

export const TIER_LABELS: Record<DatabaseTier, string> = { MICRO: 'Micro', STARTER: 'Starter', GROWTH: 'Growth', SCALE: 'Scale' };

/** How the pooler hands server connections to a client, in a line each: what the create form and the tenant page say. */
export const POOL_MODES_EXPLAINED: Record<PoolMode, { label: string; explained: string }> = {
  TRANSACTION: {
    label: 'Transaction',
    explained:
      'A server connection per transaction: best for most apps. No session state (prepared statements, SET, advisory locks) lasts across transactions.',
  },
  SESSION: {
    label: 'Session',
    explained: 'One server connection per client for its whole session: full PostgreSQL behaviour, but each client holds a connection of the pool.',
  },
  STATEMENT: {
    label: 'Statement',
    explained: 'A server connection per statement: multi-statement transactions are refused. For simple, autocommit queries only.',
  },
};

/** The command that opens a session; without a password in the string, psql asks for it. */
export function psqlCommand(connectionUri: string): string {
  return `psql "${connectionUri}"`;
}

export function endpoint(host: string, port: number): string {
  return `${host}:${port}`;
}
