import { and, desc, eq, lte } from 'drizzle-orm';
import { getDb } from '../../../db';
import { gitSimCommits } from '../../../db/schema';
import { getConfig } from '../../platform/config';
import { notFound } from '../../platform/errors';
import { seedTreeOf, type SeedBranch, type SeedEntry, type SeedRepository } from './seed';
import { BRANCHES_PER_PAGE, type GitBranchPage, type GitCommit, type GitContentEntry, type GitHost, type GitRepository } from './types';

/**
 * Reading a simulated repository: its seeded files and branches, with the commits pushed since
 * (git_sim_commits) on top. A push records a commit without changing files, so a commit's files
 * are its branch's. A deployment copy reads as its source did when it was last brought up to date.
 */

export interface RepositoryView {
  seed: SeedRepository;
  /** The name it is read by: the seeded repository's, or its copy's. */
  fullName: string;
  owner: string;
  /** A copy's last sync, hiding later pushes; null for the repository itself. */
  syncedAt: Date | null;
}

type CommitRow = typeof gitSimCommits.$inferSelect;

export function sourceView(seed: SeedRepository): RepositoryView {
  return { seed, fullName: seed.fullName, owner: seed.owner, syncedAt: null };
}

/** Where the simulated host shows a repository: its page among the development pages. */
export function simulatedRepositoryUrl(host: GitHost, fullName: string): string {
  return `${getConfig().APP_URL}/dev/git-hosts/${host}?repository=${encodeURIComponent(fullName)}`;
}

/** The name part of git's `Name <email>` author form. */
export function authorName(author: string): string {
  return author.replace(/\s*<[^>]*>\s*$/, '') || author;
}

export async function describeRepository(view: RepositoryView): Promise<GitRepository> {
  const [newest] = await pushedCommits(view, 1);
  const seeded = Date.parse(view.seed.updatedAt);
  const updatedAt = newest && newest.pushedAt.getTime() > seeded ? newest.pushedAt : new Date(seeded);
  return {
    fullName: view.fullName,
    name: view.fullName.slice(view.fullName.lastIndexOf('/') + 1),
    owner: view.owner,
    private: view.seed.private,
    defaultBranch: view.seed.defaultBranch,
    description: view.seed.description,
    updatedAt: updatedAt.toISOString(),
    webUrl: simulatedRepositoryUrl(view.seed.host, view.fullName),
  };
}

/** The entries of a directory at `ref`; NOT_FOUND for a path that is a file or does not exist. */
export async function listDirectory(view: RepositoryView, path: string, ref?: string): Promise<GitContentEntry[]> {
  const tree = seedTreeOf(view.seed, await branchAt(view, ref));
  const dir = normalisedPath(path);
  if (tree.has(dir)) throw notFound(`Directory ${dir} in ${view.fullName}`);
  const prefix = dir ? `${dir}/` : '';
  const entries = new Map<string, GitContentEntry>();
  for (const [filePath, entry] of tree) {
    if (!filePath.startsWith(prefix)) continue;
    const rest = filePath.slice(prefix.length);
    const slash = rest.indexOf('/');
    const name = slash === -1 ? rest : rest.slice(0, slash);
    const entryPath = `${prefix}${name}`;
    entries.set(entryPath, slash === -1 ? entryOf(name, entryPath, entry) : { name, path: entryPath, type: 'dir', size: null });
  }
  if (entries.size === 0 && dir) throw notFound(`Directory ${dir} in ${view.fullName}`);
  return [...entries.values()].sort(hostOrder(view.seed.host));
}

/** A file's text at `ref`, following a symbolic link to a file; null when no file is there. */
export async function readTextFile(view: RepositoryView, path: string, ref?: string): Promise<string | null> {
  const tree = seedTreeOf(view.seed, await branchAt(view, ref));
  const entry = tree.get(normalisedPath(path));
  if (typeof entry === 'string') return entry;
  if (entry && 'symlink' in entry) {
    const target = tree.get(entry.symlink);
    return typeof target === 'string' ? target : null;
  }
  return null;
}

export async function branchPage(view: RepositoryView, page: number): Promise<GitBranchPage> {
  const heads = await pushedHeads(view);
  const shown = pageOf(view.seed.branches.map((branch) => branch.name).sort(), page);
  return {
    branches: shown.items.map((name) => ({ name, commitSha: heads.get(name)?.sha ?? seedBranch(view.seed, name).head.sha })),
    page: shown.page,
    nextPage: shown.nextPage,
  };
}

/** One page of BRANCHES_PER_PAGE items; a page number below 1 is the first page, as the hosts take it. */
export function pageOf<T>(items: readonly T[], page: number): { items: T[]; page: number; nextPage: number | null } {
  const current = Number.isInteger(page) && page >= 1 ? page : 1;
  const start = (current - 1) * BRANCHES_PER_PAGE;
  return { items: items.slice(start, start + BRANCHES_PER_PAGE), page: current, nextPage: start + BRANCHES_PER_PAGE < items.length ? current + 1 : null };
}

/** The commit a branch points at; NOT_FOUND for a branch the repository does not have. */
export async function branchHead(view: RepositoryView, branchName: string): Promise<GitCommit> {
  const branch = view.seed.branches.find((candidate) => candidate.name === branchName);
  if (!branch) throw notFound(`Branch ${branchName} in ${view.fullName}`);
  const pushed = (await pushedHeads(view)).get(branch.name);
  if (pushed) return { sha: pushed.sha, message: pushed.message, author: authorName(pushed.author) };
  return { sha: branch.head.sha, message: branch.head.message, author: authorName(branch.head.author) };
}

/** The branch whose files a ref shows: a branch name, a tag, or the SHA of a seeded or pushed commit. */
async function branchAt(view: RepositoryView, ref?: string): Promise<SeedBranch> {
  const seed = view.seed;
  if (ref === undefined || ref === '') return seedBranch(seed, seed.defaultBranch);
  const named = seed.branches.find((branch) => branch.name === ref);
  if (named) return named;
  const sha = (seed.tags[ref] ?? ref).toLowerCase();
  if (/^[0-9a-f]{40}$/.test(sha)) {
    const seeded = seed.branches.find((branch) => branch.head.sha === sha);
    if (seeded) return seeded;
    const pushed = await pushedCommit(view, sha);
    if (pushed) return seedBranch(seed, pushed.branch);
  }
  throw notFound(`Ref ${ref} in ${view.fullName}`);
}

function seedBranch(seed: SeedRepository, name: string): SeedBranch {
  const branch = seed.branches.find((candidate) => candidate.name === name);
  if (!branch) throw notFound(`Branch ${name} in ${seed.fullName}`);
  return branch;
}

/** Pushed commits the view shows, newest first. */
async function pushedCommits(view: RepositoryView, limit?: number): Promise<CommitRow[]> {
  const db = await getDb();
  const query = db
    .select()
    .from(gitSimCommits)
    .where(
      and(
        eq(gitSimCommits.host, view.seed.host),
        eq(gitSimCommits.repository, view.seed.fullName),
        view.syncedAt ? lte(gitSimCommits.pushedAt, view.syncedAt) : undefined,
      ),
    )
    .orderBy(desc(gitSimCommits.pushedAt));
  return limit === undefined ? query : query.limit(limit);
}

async function pushedCommit(view: RepositoryView, sha: string): Promise<CommitRow | null> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(gitSimCommits)
    .where(
      and(
        eq(gitSimCommits.sha, sha),
        eq(gitSimCommits.host, view.seed.host),
        eq(gitSimCommits.repository, view.seed.fullName),
        view.syncedAt ? lte(gitSimCommits.pushedAt, view.syncedAt) : undefined,
      ),
    );
  return row ?? null;
}

/** The newest pushed commit of each branch that has one. */
export async function pushedHeads(view: RepositoryView): Promise<Map<string, CommitRow>> {
  const heads = new Map<string, CommitRow>();
  for (const row of await pushedCommits(view)) if (!heads.has(row.branch)) heads.set(row.branch, row);
  return heads;
}

function normalisedPath(path: string): string {
  return path.replace(/^\/+|\/+$/g, '');
}

function entryOf(name: string, path: string, entry: SeedEntry): GitContentEntry {
  if (typeof entry === 'string') return { name, path, type: 'file', size: Buffer.byteLength(entry, 'utf8') };
  return { name, path, type: 'symlink' in entry ? 'symlink' : 'submodule', size: null };
}

/** Hosts 1 and 2 list a directory by name; host 3 lists its subdirectories first. */
function hostOrder(host: GitHost): (a: GitContentEntry, b: GitContentEntry) => number {
  const byName = (a: GitContentEntry, b: GitContentEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  if (host !== 'git-host-3') return byName;
  return (a, b) => Number(b.type === 'dir') - Number(a.type === 'dir') || byName(a, b);
}
