import { z } from 'zod';
import { decodePathParam } from '../../../platform/trpc';
import { isoDateTime } from '../../../platform/schemas';

export const gitRepositorySchema = z
  .object({
    fullName: z.string().describe('The host’s full name, used in paths: `owner/repo` (host 1), `workspace/repo` (host 2), `group/subgroup/project` (host 3)'),
    name: z.string(),
    owner: z.string().describe('Owner login, workspace or namespace full path'),
    private: z.boolean(),
    defaultBranch: z.string(),
    description: z.string().nullable(),
    updatedAt: isoDateTime.describe('Last push or change; the list is sorted by it, newest first'),
    webUrl: z.string(),
  })
  .meta({ id: 'GitRepository' });

export const gitContentEntrySchema = z
  .object({
    name: z.string(),
    path: z.string().describe('From the repository root, without a leading slash'),
    type: z.enum(['dir', 'file', 'symlink', 'submodule']),
    size: z.number().int().nullable().describe('Bytes, for files'),
  })
  .meta({ id: 'GitContentEntry' });

export const gitBranchPageSchema = z
  .object({
    branches: z.array(z.object({ name: z.string(), commitSha: z.string() })),
    page: z.number().int(),
    perPage: z.number().int().describe('Always 100'),
    nextPage: z.number().int().nullable().describe('The next page, or null on the last one'),
  })
  .meta({ id: 'GitBranchPage' });

export const host1StatusSchema = z
  .object({
    connected: z.boolean().describe('True while at least one installation is linked to the project'),
    accounts: z.array(
      z.object({
        installationId: z.string(),
        accountLogin: z.string(),
        accountType: z.enum(['User', 'Organization']),
        linkedAt: isoDateTime,
      }),
    ),
  })
  .meta({ id: 'GitHost1Status' });

export const oauthHostStatusSchema = z
  .object({
    connected: z.boolean(),
    accountLogin: z.string().nullable().describe('The host account the grant acts as'),
    scopes: z.array(z.string()).describe('What the grant allows, as the host names it'),
    connectedAt: isoDateTime.nullable(),
  })
  .meta({ id: 'GitOAuthHostStatus' });

export const linkableInstallationSchema = z.object({ installationId: z.string(), accountLogin: z.string() }).meta({ id: 'LinkableInstallation' });

export const gitPackageSchema = z
  .object({
    owner: z.string(),
    name: z.string(),
    visibility: z.enum(['public', 'private', 'internal']),
    image: z.string().describe('Where it is pulled from, without a tag'),
    updatedAt: isoDateTime,
  })
  .meta({ id: 'GitPackage' });

export const gitPackageTagSchema = z.object({ tag: z.string(), digest: z.string(), updatedAt: isoDateTime }).meta({ id: 'GitPackageTag' });

/** A ref (branch, tag or commit), optional. */
export const refQuery = z.string().min(1).max(255).optional().describe('A branch, tag or commit; the default branch when absent');

/** The rest of the path after `/contents/`, slashes included; empty for the root. */
export const repositoryPath = z
  .string()
  .overwrite(decodePathParam)
  .max(1024, 'path must be at most 1024 characters')
  .default('')
  .describe('A path inside the repository (slashes included); empty or absent for the root');

export const branchPageQuery = z.coerce
  .number({ error: 'page must be a whole number from 1' })
  .int('page must be a whole number from 1')
  .min(1, 'page must be a whole number from 1')
  .max(10_000, 'page must be at most 10000')
  .default(1);

export const connectQuery = z.object({
  redirect: z.string().max(512).optional().describe('A relative panel path to return to; anything else falls back'),
});
