import type { ScopeResource } from '@/server/platform/auth/scopes';

/** Panel names of the scope resources; typed against SCOPE_RESOURCES so a new resource must be named here. */
export const SCOPE_RESOURCE_LABELS: Record<ScopeResource, string> = {
  projects: 'Projects',
  members: 'Members',
  billing: 'Billing',
  servers: 'Servers',
  domains: 'Domains',
  redis: 'Redis',
  secrets: 'Secrets',
  variables: 'Variables',
  webhooks: 'Webhooks',
  'object-storage': 'Object storage',
  storage: 'Object storage (alias)',
  registry: 'Container registry',
  hosting: 'Hosting',
  databases: 'Databases',
  apps: 'Apps',
  integrations: 'Integrations',
  notifications: 'Notifications',
  audit: 'Audit log',
};

/**
 * Not offered: `storage`, an alias the server accepts for `object-storage` (offering both would grant
 * the same thing twice), and `databases`, whose operations take a panel session only (SPEC), so no
 * key scope reaches them.
 */
const NOT_PICKABLE: readonly ScopeResource[] = ['storage', 'databases'];
export const PICKABLE_RESOURCES: readonly ScopeResource[] = (Object.keys(SCOPE_RESOURCE_LABELS) as ScopeResource[]).filter(
  (resource) => !NOT_PICKABLE.includes(resource),
);
