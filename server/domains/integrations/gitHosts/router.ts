import { z } from 'zod';
import type { Scope } from '../../../platform/auth/scopes';
import type { ErrorCode } from '../../../platform/errors';
import { pathParam, projectProcedure, router, type ProcedureMeta } from '../../../platform/trpc';
import type { GitHost, OAuthGitHost } from '../../../providers/gitHosts';
import { appTemplateResultSchema } from '../../apps';
import * as docs from './docs';
import { disconnectHost1, host1Status, linkableInstallations, linkInstallation, listHost1Packages, listHost1PackageTags } from './host1';
import { disconnectOAuthHost, oauthHostStatus } from './oauthHosts';
import { appTemplate, listBranches, listContents, listRepositories } from './repositories';
import {
  branchPageQuery,
  gitBranchPageSchema,
  gitContentEntrySchema,
  gitPackageSchema,
  gitPackageTagSchema,
  gitRepositorySchema,
  host1StatusSchema,
  linkableInstallationSchema,
  oauthHostStatusSchema,
  refQuery,
  repositoryPath,
} from './schema';

const TAGS = ['Git hosts'];
const READ = { scopes: ['integrations:read'] as Scope[], role: 'viewer' as const };
const WRITE = { scopes: ['integrations:read', 'integrations:write'] as Scope[], role: 'member' as const };
const CONNECTION_ERRORS: readonly ErrorCode[] = ['GIT_HOST_NOT_CONNECTED', 'GIT_CREDENTIAL_INVALID', 'UPSTREAM_ERROR'];
const projectRef = { projectId: pathParam('projectId').describe('Project id or slug') };

const base = (host: GitHost) => `/projects/{projectId}/integrations/${host}` as const;
const read = (path: `/${string}`, summary: string, description: string, errors: readonly ErrorCode[] = CONNECTION_ERRORS): ProcedureMeta => ({
  openapi: { method: 'GET', path, tags: TAGS, summary, description },
  ...READ,
  errors,
});
const write = (method: 'POST' | 'DELETE', path: `/${string}`, summary: string, description: string, errors: readonly ErrorCode[] = []): ProcedureMeta => ({
  openapi: { method, path, tags: TAGS, summary, description },
  ...WRITE,
  errors,
});

/**
 * How each host names a repository in its paths: host 1 and host 2 by two segments, host 3 by one
 * URL-encoded full path (nested groups included), decoded once.
 */
type AddressShape = Record<string, ReturnType<typeof pathParam>>;

interface RepositoryAddress<TShape extends AddressShape> {
  segments: string;
  shape: TShape;
  fullName(params: { [K in keyof TShape]: string }): string;
}

const ownerRepo = <TOwner extends string>(owner: TOwner): RepositoryAddress<Record<TOwner | 'repo', ReturnType<typeof pathParam>>> => ({
  segments: `{${owner}}/{repo}`,
  shape: { [owner]: pathParam(owner), repo: pathParam('repo') } as Record<TOwner | 'repo', ReturnType<typeof pathParam>>,
  fullName: (params) => `${params[owner]}/${params.repo}`,
});

/** The inputs keep each host's address fields (`owner`/`repo`, `workspace`/`repo`, `project`) in their types, for the panel. */
function repositoryProcedures<TShape extends AddressShape>(host: GitHost, address: RepositoryAddress<TShape>) {
  const repoBase = `${base(host)}/repos/${address.segments}` as const;
  const repoInput = z.object({ ...projectRef, ...address.shape });
  const name = (input: unknown) => address.fullName(input as { [K in keyof TShape]: string });
  const field = <T>(input: unknown, key: string) => (input as Record<string, T>)[key] as T;
  return {
    repos: projectProcedure
      .meta(read(`${base(host)}/repos`, `${host} repositories`, docs.REPOS))
      .input(z.object(projectRef))
      .output(z.array(gitRepositorySchema))
      .query(({ ctx }) => listRepositories(ctx.project.id, host)),

    contents: projectProcedure
      .meta({
        ...read(`${repoBase}/contents/{path}`, `${host} directory listing`, docs.CONTENTS, [...CONNECTION_ERRORS, 'NOT_FOUND']),
        trailingPathParam: 'path',
      })
      .input(repoInput.extend({ path: repositoryPath, ref: refQuery }))
      .output(z.array(gitContentEntrySchema))
      .query(({ ctx, input }) => listContents(ctx.project.id, host, name(input), field<string>(input, 'path'), field<string | undefined>(input, 'ref'))),

    appTemplate: projectProcedure
      .meta(read(`${repoBase}/app-template`, `${host} app template`, docs.APP_TEMPLATE, [...CONNECTION_ERRORS, 'NOT_FOUND']))
      .input(repoInput.extend({ ref: refQuery }))
      .output(appTemplateResultSchema)
      .query(({ ctx, input }) => appTemplate(ctx.project.id, host, name(input), field<string | undefined>(input, 'ref'))),

    branches: projectProcedure
      .meta(read(`${repoBase}/branches`, `${host} branches`, docs.BRANCHES, [...CONNECTION_ERRORS, 'NOT_FOUND']))
      .input(repoInput.extend({ page: branchPageQuery }))
      .output(gitBranchPageSchema)
      .query(({ ctx, input }) => listBranches(ctx.project.id, host, name(input), field<number>(input, 'page'))),
  };
}

export const gitHost1Router = router({
  status: projectProcedure
    .meta(read(`${base('git-host-1')}/status`, 'Git host 1 connection', docs.HOST1_STATUS, []))
    .input(z.object(projectRef))
    .output(host1StatusSchema)
    .query(({ ctx }) => host1Status(ctx.project.id)),

  packages: projectProcedure
    .meta(read(`${base('git-host-1')}/packages`, 'Git host 1 container images', docs.HOST1_PACKAGES))
    .input(z.object(projectRef))
    .output(z.array(gitPackageSchema))
    .query(({ ctx }) => listHost1Packages(ctx.project.id)),

  packageTags: projectProcedure
    .meta(read(`${base('git-host-1')}/package-tags`, 'Git host 1 image tags', docs.HOST1_PACKAGE_TAGS, [...CONNECTION_ERRORS, 'NOT_FOUND']))
    .input(z.object({ ...projectRef, owner: z.string().min(1).max(100), package: z.string().min(1).max(200) }))
    .output(z.array(gitPackageTagSchema))
    .query(({ ctx, input }) => listHost1PackageTags(ctx.project.id, input.owner, input.package)),

  linkableInstallations: projectProcedure
    .meta(read(`${base('git-host-1')}/linkable-installations`, 'Installations you may link', docs.HOST1_LINKABLE, []))
    .input(z.object(projectRef))
    .output(z.array(linkableInstallationSchema))
    .query(({ ctx }) => linkableInstallations(ctx.project.id, ctx.actor.userId)),

  link: projectProcedure
    .meta(write('POST', `${base('git-host-1')}/link`, 'Link an installation', docs.HOST1_LINK, ['NOT_FOUND', 'UPSTREAM_ERROR']))
    .input(z.object({ ...projectRef, installationId: z.string().min(1, 'installationId is required').max(64) }))
    .output(host1StatusSchema)
    .mutation(({ ctx, input }) => linkInstallation(ctx.project.id, ctx.actor.userId, input.installationId)),

  disconnect: projectProcedure
    .meta(write('DELETE', `${base('git-host-1')}/disconnect`, 'Disconnect git host 1', docs.HOST1_DISCONNECT, ['UPSTREAM_ERROR']))
    .input(z.object(projectRef))
    .output(host1StatusSchema)
    .mutation(({ ctx }) => disconnectHost1(ctx.project.id, ctx.actor.userId)),

  ...repositoryProcedures('git-host-1', ownerRepo('owner')),
});

function oauthHostRouter<TShape extends AddressShape>(host: OAuthGitHost, address: RepositoryAddress<TShape>) {
  return router({
    status: projectProcedure
      .meta(read(`${base(host)}/status`, `${host} connection`, docs.oauthHostStatus(host), []))
      .input(z.object(projectRef))
      .output(oauthHostStatusSchema)
      .query(({ ctx }) => oauthHostStatus(ctx.project.id, host)),

    disconnect: projectProcedure
      .meta(write('DELETE', `${base(host)}/disconnect`, `Disconnect ${host}`, docs.oauthHostDisconnect(host), ['UPSTREAM_ERROR']))
      .input(z.object(projectRef))
      .output(oauthHostStatusSchema)
      .mutation(({ ctx }) => disconnectOAuthHost(ctx.project.id, host, ctx.actor.userId)),

    ...repositoryProcedures(host, address),
  });
}

export const gitHost2Router = oauthHostRouter('git-host-2', ownerRepo('workspace'));

export const gitHost3Router = oauthHostRouter('git-host-3', {
  segments: '{project}',
  shape: { project: pathParam('project').describe('The URL-encoded full path, nested groups included: `group%2Fsubgroup%2Fproject`') },
  fullName: (params) => params.project!,
});
