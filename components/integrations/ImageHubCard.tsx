'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { formatBytes, formatDateTime, formatRelative } from '../format';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, type AppErrorInfo } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Badge } from '../ui/Badge';
import { Card } from '../ui/Card';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { Input } from '../ui/Input';
import { LoadFailed } from '../ui/LoadFailed';
import { Skeleton } from '../ui/Skeleton';
import { SubmitButton } from '../ui/SubmitButton';
import type { Column } from '../ui/Table';
import { useToast } from '../ui/Toast';
import { ConnectedSince, ConnectionCard } from './ConnectionCard';
import type { ImageHubRepositoryView, ImageHubStatus, ImageHubTagView, UpstreamInfo } from './gitHosts';
import styles from './integrations.module.css';

const compactCount = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

/** The project's image hub account: connect with a username and access token, then its repositories and their tags. */
export function ImageHubCard({ info }: { info: UpstreamInfo }) {
  const project = useProject();
  const trpc = useTRPC();
  const canManage = hasRole(project, 'member');
  const status = useQuery(trpc.imageHub.status.queryOptions({ projectId: project.id }));

  return (
    <>
      <ConnectionCard
        name="Image hub"
        connected={status.data?.connected ?? null}
        canManage={canManage}
        description="Your account on the public image hub: its repositories and tags, including private ones, for images your servers and apps pull."
        footerStart={<span className="muted">Images already pulled stay where they are after disconnecting.</span>}
        upstream={info}
        disconnection={{
          subject: 'The image hub',
          description: 'The panel forgets the access token. Nothing changes in your image hub account.',
          mutationOptions: trpc.imageHub.disconnect.mutationOptions(),
          statusKey: trpc.imageHub.status.queryKey({ projectId: project.id }),
          removeQueries: [trpc.imageHub.repositories.queryKey({ projectId: project.id })],
        }}
      >
        {status.isPending ? (
          <Skeleton height={80} />
        ) : status.isError ? (
          <LoadFailed title="The image hub connection could not be loaded" error={status.error} retry={status.refetch} retrying={status.isFetching} />
        ) : status.data.connected ? (
          <dl className="details-list">
            <dt>Account</dt>
            <dd className="mono" data-testid="image-hub-account">
              {status.data.username}
            </dd>
            <ConnectedSince at={status.data.connectedAt} />
          </dl>
        ) : canManage ? (
          <ImageHubConnectForm />
        ) : (
          <p className="muted">No image hub account is connected. A member of the project can connect one.</p>
        )}
      </ConnectionCard>
      {status.data?.connected ? <ImageHubRepositories /> : null}
    </>
  );
}

function ImageHubConnectForm() {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const connect = useMutation(trpc.imageHub.connect.mutationOptions());
  const [username, setUsername] = useState('');
  const [accessToken, setAccessToken] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [refusal, setRefusal] = useState<AppErrorInfo | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setRefusal(null);
    const missing: Record<string, string> = {};
    if (username.trim() === '') missing.username = 'Enter the username of your image hub account';
    if (accessToken === '') missing.accessToken = 'Paste an access token of that account';
    setErrors(missing);
    if (Object.keys(missing).length > 0) return;
    let connected: ImageHubStatus;
    try {
      connected = await connect.mutateAsync({ projectId: project.id, username: username.trim(), accessToken });
    } catch (error) {
      const refused = appErrorOf(error);
      if (refused.fields?.username || refused.fields?.accessToken) setErrors(refused.fields);
      else setRefusal(refused);
      return;
    }
    queryClient.setQueryData(trpc.imageHub.status.queryKey({ projectId: project.id }), connected);
    await queryClient.invalidateQueries({ queryKey: trpc.imageHub.pathKey() });
    toast.success(`Connected to ${connected.username ?? 'the image hub'}`);
  }

  return (
    <form className={`form ${styles.hubForm}`} onSubmit={submit} noValidate aria-label="Connect an image hub account">
      {refusal ? (
        <Alert tone="danger" title="The image hub was not connected">
          {refusal.message}
        </Alert>
      ) : null}
      <div className="form-grid">
        <Input
          label="Username"
          name="username"
          autoComplete="off"
          spellCheck={false}
          value={username}
          error={errors.username}
          onChange={(event) => {
            setUsername(event.target.value);
            setErrors(({ username: _dropped, ...rest }) => rest);
          }}
        />
        <Input
          label="Access token"
          type="password"
          name="accessToken"
          autoComplete="off"
          spellCheck={false}
          value={accessToken}
          error={errors.accessToken}
          onChange={(event) => {
            setAccessToken(event.target.value);
            setErrors(({ accessToken: _dropped, ...rest }) => rest);
          }}
        />
      </div>
      <p className="field-hint">A read-only personal access token is enough. It is checked with the hub, stored encrypted and never shown again.</p>
      <div className="form-actions">
        <SubmitButton variant="primary" loading={connect.isPending}>
          <Icon name="key" /> Verify and save
        </SubmitButton>
      </div>
    </form>
  );
}

function ImageHubRepositories() {
  const project = useProject();
  const trpc = useTRPC();
  const repositories = useQuery(trpc.imageHub.repositories.queryOptions({ projectId: project.id }));
  const [selected, setSelected] = useState<ImageHubRepositoryView | null>(null);
  const nameOf = (repository: ImageHubRepositoryView) => `${repository.namespace}/${repository.name}`;

  const columns: Column<ImageHubRepositoryView>[] = [
    {
      header: 'Repository',
      cell: (repository) => (
        <div>
          <button
            type="button"
            className={styles.linkButton}
            aria-pressed={selected !== null && nameOf(selected) === nameOf(repository)}
            aria-label={`Show the tags of ${nameOf(repository)}`}
            onClick={() => setSelected(repository)}
          >
            <Icon name="box" size={14} /> <span className="mono">{nameOf(repository)}</span>
          </button>
          {repository.description ? <div className="cell-sub">{repository.description}</div> : null}
        </div>
      ),
    },
    { header: 'Visibility', cell: (repository) => (repository.private ? <Badge>Private</Badge> : <span className="muted">Public</span>) },
    { header: 'Pulls', className: 'hide-xs', cell: (repository) => <span className={styles.figure}>{compactCount.format(repository.pullCount)}</span> },
    { header: 'Stars', className: 'hide-sm', cell: (repository) => <span className={styles.figure}>{compactCount.format(repository.starCount)}</span> },
    {
      header: 'Updated',
      className: 'hide-sm',
      cell: (repository) =>
        repository.lastUpdated ? (
          <span title={formatDateTime(repository.lastUpdated)}>{formatRelative(repository.lastUpdated)}</span>
        ) : (
          <span className="muted">Never pushed</span>
        ),
    },
  ];

  return (
    <>
      <Card
        flush
        title="Image repositories"
        description="Of the account’s namespace and of its organisations, most recently updated first."
        aria-label="Image repositories"
      >
        <DataList
          label="Image repositories"
          query={repositories}
          columns={columns}
          rowKey={nameOf}
          onRowClick={setSelected}
          empty={<EmptyState icon="box" title="No repositories" description="Repositories pushed to the account show here." />}
        />
      </Card>
      {selected ? <ImageHubTags key={nameOf(selected)} repository={selected} /> : null}
    </>
  );
}

function ImageHubTags({ repository }: { repository: ImageHubRepositoryView }) {
  const project = useProject();
  const trpc = useTRPC();
  const name = `${repository.namespace}/${repository.name}`;
  const tags = useQuery(trpc.imageHub.tags.queryOptions({ projectId: project.id, namespace: repository.namespace, repository: repository.name }));

  const columns: Column<ImageHubTagView>[] = [
    { header: 'Tag', cell: (tag) => <Badge mono>{tag.name}</Badge> },
    { header: 'Size', cell: (tag) => <span className={styles.figure}>{formatBytes(tag.size)}</span> },
    {
      header: 'Digest',
      className: 'hide-xs',
      cell: (tag) =>
        tag.digest ? (
          <span className="mono" title={tag.digest}>
            {tag.digest.replace(/^sha256:/, '').slice(0, 12)}
          </span>
        ) : (
          <span className="muted">—</span>
        ),
    },
    {
      header: 'Pushed',
      className: 'hide-sm',
      cell: (tag) =>
        tag.lastUpdated ? <span title={formatDateTime(tag.lastUpdated)}>{formatRelative(tag.lastUpdated)}</span> : <span className="muted">—</span>,
    },
  ];

  return (
    <Card
      flush
      aria-label={`Tags of ${name}`}
      title={
        <>
          Tags of <span className="mono">{name}</span>
        </>
      }
      description="Newest first. Pull an image as its repository name and tag."
    >
      <DataList label={`Tags of ${name}`} query={tags} columns={columns} rowKey={(tag) => tag.name} empty={<EmptyState icon="box" title="No tags" />} />
    </Card>
  );
}
