import type { inferRouterOutputs } from '@trpc/server';
import type { DeploymentStatus, DeploymentTrigger } from '@/db/schema/apps';
import type { AppRouter } from '@/server/app';
import { formatMemory } from '../format';
import { projectPath } from '../projects/areas';

type Outputs = inferRouterOutputs<AppRouter>;
export type AppView = Outputs['apps']['get'];
export type AppServiceView = AppView['services'][number];
export type DeploymentView = Outputs['apps']['deployments'][number];
export type DeploymentWithLog = Outputs['apps']['deployment'];
export type AppSize = Outputs['catalog']['appSizes'][number];
export type AppRegion = Outputs['catalog']['appRegions'][number];

/** A deployment still moving: the pages that show one read it again until it lands. */
export function inProgress(status: DeploymentStatus): boolean {
  return status === 'QUEUED' || status === 'BUILDING';
}

/** How often a page re-reads a deployment still queued or building; the build writes its log line by line. */
export const DEPLOYMENT_POLL_MS = 1500;

/** The page of one deployment of an app. */
export function deploymentPath(projectId: string, appId: string, deploymentId: string): string {
  return projectPath(projectId, `apps/${appId}/deployments/${deploymentId}`);
}

export const TRIGGER_LABELS: Record<DeploymentTrigger, string> = { CREATE: 'First deployment', MANUAL: 'Deployed by hand', PUSH: 'Push' };

export function shortSha(sha: string): string {
  return sha.slice(0, 7);
}

/** The first line of a commit message: the rest is detail a table has no room for. */
export function commitTitle(message: string): string {
  return message.split('\n', 1)[0] ?? '';
}

/** "1 min 12 s", from two ISO instants; null while the second is not there yet. */
export function formatDuration(fromIso: string | null, toIso: string | null): string | null {
  if (!fromIso || !toIso) return null;
  const seconds = Math.max(0, Math.round((new Date(toIso).getTime() - new Date(fromIso).getTime()) / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  return seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
}

export function sizeSpecs(size: Pick<AppSize, 'cpus' | 'memoryMb'>): string {
  return `${size.cpus} vCPU${size.cpus === 1 ? '' : 's'} · ${formatMemory(size.memoryMb)}`;
}

/** Falls back to the slug: an app can outlive its size or region in the catalogue. */
export function sizeName(slug: string, sizes: readonly AppSize[] | undefined): string {
  return sizes?.find((size) => size.slug === slug)?.name ?? slug;
}

export function regionName(slug: string, regions: readonly AppRegion[] | undefined): string {
  return regions?.find((region) => region.slug === slug)?.name ?? slug;
}

/** "web: apps-s-1vcpu-1gb × 2" for each service, as the list and the summary show them. */
export function servicesSummary(services: readonly Pick<AppServiceView, 'name' | 'instanceSize' | 'instances'>[]): string {
  return services.map((service) => `${service.name}: ${service.instanceSize} × ${service.instances}`).join(', ');
}

/**
 * A name the API takes, suggested from the repository's (`Hello_Node.js` gives `hello-node-js`);
 * empty when nothing of it is usable.
 */
export function appNameFromRepository(repository: string): string {
  return (repository.split('/').pop() ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+/g, '-')
    .slice(0, 40)
    .replace(/-+$/, '');
}
