import { AppError } from '../../../platform/errors';
import { BRANCHES_PER_PAGE, getGitHost1, type GitBranchPage, type GitContentEntry, type GitHost, type GitRepository } from '../../../providers/gitHosts';
import { findAppTemplate, type AppTemplateResult } from '../../apps';
import { linkedInstallations, projectReader } from './access';

/**
 * The repository picker and file browser of every host, in one order whatever the host answers:
 * repositories by their last update, newest first; a directory's folders first, then files, each
 * alphabetically.
 */

export async function listRepositories(projectId: string, host: GitHost): Promise<GitRepository[]> {
  let repositories: GitRepository[];
  if (host === 'git-host-1') {
    const installations = await linkedInstallations(projectId);
    if (installations.length === 0) {
      throw new AppError('GIT_HOST_NOT_CONNECTED', 'This project is not connected to git-host-1; connect it on the Integrations page first');
    }
    const lists = await Promise.all(installations.map((i) => getGitHost1().listRepositories({ installationId: i.installationId })));
    repositories = lists.flat();
  } else {
    repositories = await (await projectReader(projectId, host, '')).listRepositories();
  }
  return sortByLastUpdate(repositories);
}

export function sortByLastUpdate(repositories: readonly GitRepository[]): GitRepository[] {
  return [...repositories].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.fullName.localeCompare(b.fullName));
}

export async function listContents(projectId: string, host: GitHost, fullName: string, path: string, ref: string | undefined): Promise<GitContentEntry[]> {
  const reader = await projectReader(projectId, host, fullName);
  return sortEntries(await reader.listContents(fullName, normalisePath(path), ref));
}

const KIND_ORDER: Record<GitContentEntry['type'], number> = { dir: 0, submodule: 1, symlink: 2, file: 2 };
const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

export function sortEntries(entries: readonly GitContentEntry[]): GitContentEntry[] {
  return [...entries].sort(
    (a, b) => KIND_ORDER[a.type] - KIND_ORDER[b.type] || collator.compare(a.name, b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
}

/** A repository path as hosts take it: no leading, trailing or doubled slashes; `..` and `.` segments refused. */
export function normalisePath(path: string): string {
  const segments = path.split('/').filter((s) => s.length > 0);
  if (segments.some((s) => s === '..' || s === '.'))
    throw new AppError('VALIDATION_ERROR', 'path must not contain . or .. segments', { fields: { path: 'must not contain . or .. segments' } });
  return segments.join('/');
}

export async function appTemplate(projectId: string, host: GitHost, fullName: string, ref: string | undefined): Promise<AppTemplateResult> {
  const reader = await projectReader(projectId, host, fullName);
  await reader.getRepository(fullName);
  return findAppTemplate((path) => reader.readFile(fullName, path, ref));
}

export async function listBranches(projectId: string, host: GitHost, fullName: string, page: number): Promise<GitBranchPage & { perPage: number }> {
  const reader = await projectReader(projectId, host, fullName);
  return { ...(await reader.listBranches(fullName, page)), perPage: BRANCHES_PER_PAGE };
}
