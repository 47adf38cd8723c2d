import Link from 'next/link';
import { notFound } from 'next/navigation';
import { formatDateTime } from '@/components/format';
import { Alert } from '@/components/ui/Alert';
import { Badge } from '@/components/ui/Badge';
import { Button } from '@/components/ui/Button';
import { Card } from '@/components/ui/Card';
import { EmptyState } from '@/components/ui/EmptyState';
import { PageHeader } from '@/components/ui/PageHeader';
import { Table } from '@/components/ui/Table';
import { AppError } from '@/server/platform/errors';
import type { GitHost } from '@/db/schema/gitIntegrations';
import {
  actionNotice,
  hostLabel,
  hostOverview,
  overviewPath,
  repositoryOverview,
  simulatedHostOf,
  type RepositoryOverview,
} from '@/server/providers/gitHosts/simulatorPages';

export const dynamic = 'force-dynamic';

type SearchParams = Record<string, string | string[] | undefined>;

/** A simulated host's own site: its accounts and repositories, and a repository's page with a form to push a commit. */
export default async function SimulatedGitHostPage({ params, searchParams }: { params: Promise<{ host: string }>; searchParams: Promise<SearchParams> }) {
  const host = simulatedHostOf((await params).host);
  if (!host) notFound();
  const query = await searchParams;
  const notice = actionNotice(query);
  return (
    <>
      {notice ? <Alert tone="success">{notice}</Alert> : null}
      {query.repository === undefined ? <HostDetails host={host} /> : <RepositoryDetails host={host} details={await openRepository(host, query.repository)} />}
    </>
  );
}

async function openRepository(host: GitHost, repository: string | string[]): Promise<RepositoryOverview> {
  try {
    return await repositoryOverview(host, repository);
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_FOUND') notFound();
    throw err;
  }
}

async function HostDetails({ host }: { host: GitHost }) {
  const overview = await hostOverview(host);
  return (
    <>
      <PageHeader title={hostLabel(host)} description="Every account and repository this host holds. Open a repository to push a commit to it." />
      {overview.namespaces.map(({ namespace, repositories }) => (
        <Card key={namespace.path} flush title={namespace.path} description={`${namespace.type} · ${namespace.displayName}`}>
          {repositories.length === 0 ? (
            <EmptyState icon="folder" title="No repositories" />
          ) : (
            <Table
              label={`Repositories of ${namespace.path}`}
              loadingRows={0}
              rows={repositories}
              rowKey={(repo) => repo.fullName}
              columns={[
                { header: 'Repository', cell: (repo) => <Link href={overviewPath(host, { repository: repo.fullName })}>{repo.fullName}</Link> },
                { header: 'Visibility', cell: (repo) => <Badge>{repo.private ? 'Private' : 'Public'}</Badge> },
                { header: 'Updated', cell: (repo) => formatDateTime(repo.updatedAt) },
              ]}
            />
          )}
        </Card>
      ))}
      {host === 'git-host-1' ? (
        <Card
          flush
          title="Installations of the app"
          description="Uninstalling here is the account owner’s action: the host sends the installation event to the platform."
        >
          {overview.installations.length === 0 ? (
            <EmptyState icon="box" title="The app is not installed anywhere" />
          ) : (
            <Table
              label="Installations"
              loadingRows={0}
              rows={overview.installations}
              rowKey={(installation) => installation.installationId}
              columns={[
                { header: 'Installation', cell: (installation) => <span className="mono">{installation.installationId}</span> },
                { header: 'Account', cell: (installation) => installation.accountLogin },
                { header: 'Since', cell: (installation) => formatDateTime(installation.createdAt) },
                {
                  header: '',
                  className: 'cell-actions',
                  cell: (installation) => (
                    <form method="post" action={`/dev/git-hosts/${host}/uninstallations`}>
                      <input type="hidden" name="installationId" value={installation.installationId} />
                      <Button type="submit" variant="danger-ghost" size="sm">
                        Uninstall
                      </Button>
                    </form>
                  ),
                },
              ]}
            />
          )}
        </Card>
      ) : (
        <>
          <Card flush title="Webhooks" description="Push webhooks the platform registered on repositories of this host.">
            {overview.hooks.length === 0 ? (
              <EmptyState icon="bolt" title="No webhooks" />
            ) : (
              <Table
                label="Webhooks"
                loadingRows={0}
                rows={overview.hooks}
                rowKey={(hook) => hook.id}
                columns={[
                  { header: 'Repository', cell: (hook) => hook.repository },
                  { header: 'Delivers to', cell: (hook) => <span className="mono">{hook.url}</span> },
                  { header: 'Added', cell: (hook) => formatDateTime(hook.createdAt) },
                ]}
              />
            )}
          </Card>
          <Card flush title="Deployment copies" description="Repositories copied into the platform’s private deployment organisation.">
            {overview.copies.length === 0 ? (
              <EmptyState icon="copy" title="No copies" />
            ) : (
              <Table
                label="Deployment copies"
                loadingRows={0}
                rows={overview.copies}
                rowKey={(copy) => copy.copy}
                columns={[
                  { header: 'Copy', cell: (copy) => copy.copy },
                  { header: 'Of', cell: (copy) => copy.source },
                  { header: 'Last synced', cell: (copy) => formatDateTime(copy.syncedAt) },
                ]}
              />
            )}
          </Card>
        </>
      )}
    </>
  );
}

function RepositoryDetails({ host, details }: { host: GitHost; details: RepositoryOverview }) {
  const { repository, branches, root } = details;
  return (
    <>
      <PageHeader
        eyebrow={<Link href={overviewPath(host)}>{hostLabel(host)}</Link>}
        title={repository.fullName}
        description={repository.description ?? undefined}
        actions={<Badge>{repository.private ? 'Private' : 'Public'}</Badge>}
      />
      <form className="card" method="post" action={`/dev/git-hosts/${host}/pushes`} aria-label="Push a commit">
        <div className="card-body stack">
          <h2>Push a commit</h2>
          <p className="secondary">
            Records a new head commit on the branch (files stay as they are) and delivers the push event to the repository’s webhooks.
          </p>
          <input type="hidden" name="repository" value={repository.fullName} />
          <div className="field">
            <label className="field-label" htmlFor="push-branch">
              Branch
            </label>
            <input id="push-branch" className="input" name="branch" required maxLength={255} defaultValue={repository.defaultBranch} />
          </div>
          <div className="field">
            <label className="field-label" htmlFor="push-message">
              Commit message
            </label>
            <input id="push-message" className="input" name="message" required maxLength={10_000} placeholder="Fix the footer" />
          </div>
        </div>
        <footer className="card-footer">
          <Button type="submit" variant="primary">
            Push
          </Button>
        </footer>
      </form>
      <Card flush title="Files" description={`At the head of ${repository.defaultBranch}.`}>
        <Table
          label="Files"
          loadingRows={0}
          rows={root}
          rowKey={(entry) => entry.path}
          columns={[
            { header: 'Name', cell: (entry) => <span className="mono">{entry.type === 'dir' ? `${entry.name}/` : entry.name}</span> },
            { header: 'Type', cell: (entry) => entry.type },
            { header: 'Size', cell: (entry) => (entry.size === null ? '' : `${entry.size} B`) },
          ]}
        />
      </Card>
      <Card flush title="Branches" description={branches.nextPage ? `The first ${branches.branches.length}, in name order.` : undefined}>
        <Table
          label="Branches"
          loadingRows={0}
          rows={branches.branches}
          rowKey={(branch) => branch.name}
          columns={[
            { header: 'Branch', cell: (branch) => branch.name },
            { header: 'Head', cell: (branch) => <span className="mono">{branch.commitSha.slice(0, 12)}</span> },
          ]}
        />
      </Card>
    </>
  );
}
