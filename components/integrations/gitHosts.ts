import { skipToken } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import type { GitHost } from '@/db/schema/gitIntegrations';
import type { AppRouter } from '@/server/app';
import type { useTRPC } from '../trpc/TrpcProvider';

type Outputs = inferRouterOutputs<AppRouter>;
export type Host1Status = Outputs['gitHost1']['status'];
export type OAuthHostStatus = Outputs['gitHost2']['status'];
export type LinkableInstallation = Outputs['gitHost1']['linkableInstallations'][number];
export type GitRepositoryView = Outputs['gitHost1']['repos'][number];
export type GitContentEntryView = Outputs['gitHost1']['contents'][number];
export type GitBranchPageView = Outputs['gitHost1']['branches'];
export type AppTemplateView = Outputs['gitHost1']['appTemplate'];
export type AppTemplateServiceView = Extract<AppTemplateView, { valid: true }>['services'][number];
export type ImageHubStatus = Outputs['imageHub']['status'];
export type ImageHubRepositoryView = Outputs['imageHub']['repositories'][number];
export type ImageHubTagView = Outputs['imageHub']['tags'][number];

/** Which upstream runs behind a host, read by the pages on the server: the panel cannot ask the API. */
export interface UpstreamInfo {
  kind: string;
  description: string;
}

export type GitHostsInfo = Record<GitHost, UpstreamInfo>;

/** The names people read; code and URLs keep SPEC's neutral ids. */
export const GIT_HOST_TITLES: Record<GitHost, string> = {
  'git-host-1': 'Git host 1 (app installation)',
  'git-host-2': 'Git host 2',
  'git-host-3': 'Git host 3',
};

/** The short name, inside sentences. */
export const GIT_HOST_NAMES: Record<GitHost, string> = {
  'git-host-1': 'Git host 1',
  'git-host-2': 'Git host 2',
  'git-host-3': 'Git host 3',
};

/** What a connect round trip appends to the page it returns to (`?git-host-1=connected`). */
export const GIT_HOST_OUTCOMES = ['connected', 'requested', 'denied', 'error'] as const;
export type GitHostOutcome = (typeof GIT_HOST_OUTCOMES)[number];

/** Connecting is a full page load: the API answers with a redirect to the host's installation or consent page. */
export function gitHostConnectUrl(projectId: string, host: GitHost, returnTo: string): string {
  return `/v1/projects/${encodeURIComponent(projectId)}/integrations/${host}/connect?redirect=${encodeURIComponent(returnTo)}`;
}

/** The create form opened on a repository and branch, from the repository browser. */
export function newAppSearch(host: GitHost, repository: string, branch: string): string {
  return `?${new URLSearchParams({ gitHost: host, repository, branch }).toString()}`;
}

type Trpc = ReturnType<typeof useTRPC>;

function ownerAndName(fullName: string): { owner: string; repo: string } {
  const slash = fullName.indexOf('/');
  return { owner: fullName.slice(0, slash), repo: fullName.slice(slash + 1) };
}

/**
 * The reads of one repository, whichever host holds it. Each host addresses a repository its own
 * way (host 1 `{ owner, repo }`, host 2 `{ workspace, repo }`, host 3 the full path), and all three
 * answer the same shapes. The address is spread into each input: the routers type their path
 * parameters loosely, and a spread keeps them without an excess-property complaint.
 */
export function repositoryQueries(trpc: Trpc, projectId: string, host: GitHost, fullName: string) {
  const { owner, repo } = ownerAndName(fullName);
  const branchOptions = { staleTime: 60_000 };
  switch (host) {
    case 'git-host-1': {
      const at = { projectId, owner, repo };
      return {
        contents: (path: string, ref: string | undefined) => trpc.gitHost1.contents.queryOptions({ ...at, path, ref }),
        appTemplate: (ref: string | undefined) => trpc.gitHost1.appTemplate.queryOptions({ ...at, ref }),
        branches: (page: number) => trpc.gitHost1.branches.queryOptions({ ...at, page }, branchOptions),
      };
    }
    case 'git-host-2': {
      const at = { projectId, workspace: owner, repo };
      return {
        contents: (path: string, ref: string | undefined) => trpc.gitHost2.contents.queryOptions({ ...at, path, ref }),
        appTemplate: (ref: string | undefined) => trpc.gitHost2.appTemplate.queryOptions({ ...at, ref }),
        branches: (page: number) => trpc.gitHost2.branches.queryOptions({ ...at, page }, branchOptions),
      };
    }
    case 'git-host-3': {
      const at = { projectId, project: fullName };
      return {
        contents: (path: string, ref: string | undefined) => trpc.gitHost3.contents.queryOptions({ ...at, path, ref }),
        appTemplate: (ref: string | undefined) => trpc.gitHost3.appTemplate.queryOptions({ ...at, ref }),
        branches: (page: number) => trpc.gitHost3.branches.queryOptions({ ...at, page }, branchOptions),
      };
    }
  }
}

/** The repositories a host's connection reaches, newest first; nothing is read without a host. */
export function repositoriesQuery(trpc: Trpc, projectId: string, host: GitHost | null) {
  switch (host) {
    case null:
      return trpc.gitHost1.repos.queryOptions(skipToken);
    case 'git-host-1':
      return trpc.gitHost1.repos.queryOptions({ projectId });
    case 'git-host-2':
      return trpc.gitHost2.repos.queryOptions({ projectId });
    case 'git-host-3':
      return trpc.gitHost3.repos.queryOptions({ projectId });
  }
}

/** A branch of a repository on a host: what an app builds. */
export interface RepositorySource {
  host: GitHost;
  repository: string;
  branch: string;
}

/** The app template at a branch; nothing is read until the branch is known. */
export function templateQuery(trpc: Trpc, projectId: string, source: RepositorySource | null) {
  if (!source) return trpc.gitHost1.appTemplate.queryOptions(skipToken);
  return repositoryQueries(trpc, projectId, source.host, source.repository).appTemplate(source.branch);
}
