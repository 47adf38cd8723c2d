import type { inferRouterOutputs } from '@trpc/server';
import type { HostingTier } from '@/db/schema/hosting';
import type { AppRouter } from '@/server/app';
import type { TierLimits } from '@/server/domains/hosting/tiers';
import type { HostingDatabaseProvider, WebServingProvider } from '@/server/providers/hosting/types';

type Outputs = inferRouterOutputs<AppRouter>;
export type SiteView = Outputs['hosting']['get'];
export type DomainView = Outputs['hosting']['listDomains'][number];
export type AttachedDomain = Outputs['hosting']['attachDomain'];
export type DnsInstructions = AttachedDomain['instructions'];
export type DatabaseView = Outputs['hosting']['listDatabases'][number];
export type FileEntry = Outputs['hostingFiles']['list'][number];
export type PlacedEntry = Outputs['hostingFiles']['write'];
export type TextFile = Outputs['hostingFiles']['read'];

/** What page.tsx reads from the providers on the server: the pages cannot ask the API which ones run. */
export interface HostingProviderInfo {
  web: { kind: WebServingProvider['kind']; description: string };
  databases: { kind: HostingDatabaseProvider['kind']; description: string };
}

/** The tiers' limits and the extra storage rules, read from the server's tier table by page.tsx. */
export interface HostingCatalog {
  tiers: Record<HostingTier, TierLimits>;
  extraStorageBlockGb: number;
  maxExtraStorageGb: number;
}

export const TIER_LABELS: Record<HostingTier, string> = { STARTER: 'Starter', GROWTH: 'Growth', SCALE: 'Scale' };

/** `ready` is read live on every site read; a new site is usually serving within a second or two. */
export const READY_POLL_MS = 3000;

export const SITE_TABS = ['overview', 'domains', 'files', 'databases', 'sftp'] as const;
export type SiteTab = (typeof SITE_TABS)[number];
export const TAB_LABELS: Record<SiteTab, string> = { overview: 'Overview', domains: 'Domains', files: 'Files', databases: 'Databases', sftp: 'SFTP' };

export function isSiteTab(value: string | null | undefined): value is SiteTab {
  return (SITE_TABS as readonly string[]).includes(value ?? '');
}

export function sftpCommand(sftp: SiteView['sftp']): string {
  return `sftp -P ${sftp.port} ${sftp.username}@${sftp.host}`;
}

/** A path under the home from a folder ('' is the home) and a name in it. */
export function joinPath(folder: string, name: string): string {
  return folder ? `${folder}/${name}` : name;
}

/** The folder holding a path; '' for an entry of the home. */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function filesBase(projectId: string, tenantId: string): string {
  return `/v1/projects/${encodeURIComponent(projectId)}/hosting/shared/${encodeURIComponent(tenantId)}/files`;
}

/** The raw download route: a plain link, the session cookie authenticates it and the answer is an attachment. */
export function downloadUrl(projectId: string, tenantId: string, path: string): string {
  return `${filesBase(projectId, tenantId)}/download?path=${encodeURIComponent(path)}`;
}

export function uploadUrl(projectId: string, tenantId: string, folder: string, name: string): string {
  return `${filesBase(projectId, tenantId)}/upload?path=${encodeURIComponent(folder)}&name=${encodeURIComponent(name)}`;
}
