'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { EGRESS_CAP_GB, KEEP_LAST_N, UNTAGGED_DAYS } from '@/server/domains/containerRegistry/schema';
import { ProjectBillingAlert } from '../billing/ProjectBillingAlert';
import { formatBytes, formatDate, formatDateTime, formatRelative } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Badge } from '../ui/Badge';
import { Button, ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { CopyButton } from '../ui/CopyButton';
import { DataList } from '../ui/DataList';
import { DeleteResourceCard } from '../ui/DeleteResourceCard';
import { EmptyState } from '../ui/EmptyState';
import { Input } from '../ui/Input';
import { LoadFailed } from '../ui/LoadFailed';
import { OptionCards } from '../ui/OptionCards';
import { PageHeader } from '../ui/PageHeader';
import { Table, type Column } from '../ui/Table';
import { useToast } from '../ui/Toast';
import { ValueField } from '../ui/ValueField';
import { EgressMeter } from './EgressMeter';
import {
  checkWhole,
  ENCRYPTION_LABELS,
  loginCommand,
  MUTABILITY_LABELS,
  shortDigest,
  type ImageView,
  type RegistryProviderInfo,
  type RegistryUserView,
  type RegistryView,
  type RepositoryView,
} from './registry';
import { DetailSkeleton } from './RegistryDetail';
import { RegistryStatus } from './RegistryStatus';
import { ScanFindings } from './ScanFindings';
import { Switch } from './SettingsFields';
import { SimulatorNotice } from './SimulatorNotice';
import { VisibilityBadge } from './VisibilityBadge';
import wizard from '../ui/Wizard.module.css';
import { SaveFooter } from './SaveFooter';
import styles from './containerRegistry.module.css';

/** Scans finish within seconds of the push notification; the list asks again until they have, for a while. */
const SCAN_POLL_MS = 3000;
const SCAN_WAIT_MS = 2 * 60_000;

export function RepositoryDetail({ registryId, repoId, provider }: { registryId: string; repoId: string; provider: RegistryProviderInfo }) {
  const project = useProject();
  const trpc = useTRPC();
  const registry = useQuery(trpc.containerRegistry.get.queryOptions({ projectId: project.id, id: registryId }));
  const repository = useQuery(trpc.containerRegistry.getRepository.queryOptions({ projectId: project.id, id: registryId, repoId }));

  if (registry.isPending || repository.isPending) return <DetailSkeleton />;
  const failed = registry.isError ? registry : repository.isError ? repository : null;
  if (failed) {
    const { code } = appErrorOf(failed.error);
    const back = registry.data
      ? { href: projectPath(project.id, `container-registry/${registryId}`), label: `Back to ${registry.data.name}` }
      : { href: projectPath(project.id, 'container-registry'), label: 'Back to Container registry' };
    return (
      <main className="page">
        {code === 'NOT_FOUND' ? (
          <div className="card">
            <EmptyState
              icon="box"
              title={registry.isError ? 'Registry not found' : 'Repository not found'}
              description="It does not exist in this project, or it was deleted."
              action={<ButtonLink href={back.href}>{back.label}</ButtonLink>}
            />
          </div>
        ) : (
          <LoadFailed title="The repository could not be loaded" error={failed.error} retry={failed.refetch} retrying={failed.isFetching} />
        )}
      </main>
    );
  }
  return <RepositoryOverview registry={registry.data!} repository={repository.data!} provider={provider} />;
}

function RepositoryOverview({ registry, repository, provider }: { registry: RegistryView; repository: RepositoryView; provider: RegistryProviderInfo }) {
  const project = useProject();
  const canManage = hasRole(project, 'member');
  const closedByCap = repository.visibility === 'PRIVATE' && repository.publicEgressCapHitAt !== null;
  return (
    <main className="page">
      <PageHeader
        eyebrow={
          <Link href={projectPath(project.id, `container-registry/${registry.id}`)} className="muted">
            ← {registry.name}
          </Link>
        }
        title={
          <span className={styles.titleRow}>
            <span className="mono">{repository.name}</span>
            <VisibilityBadge repository={repository} />
            {registry.status === 'suspended' ? <RegistryStatus registry={registry} /> : null}
          </span>
        }
        description={<span className="mono">{repository.uri}</span>}
      />
      <div className="stack-lg">
        <ProjectBillingAlert project={project} />
        <SimulatorNotice provider={provider} />
        {closedByCap ? (
          <Alert tone="warning" title={`Closed to anonymous pulls on ${formatDateTime(repository.publicEgressCapHitAt!)}`}>
            Anonymous pulls reached the cap of {repository.publicEgressCapGb} GB this month, so the repository was made private: pulls need an API key now.
            Raise the cap or set it public again below to reopen it with a fresh allowance for the month.
          </Alert>
        ) : null}
        <div className={styles.detailGrid}>
          <CommandsCard registry={registry} repository={repository} />
          <Card title="Details">
            <dl className="details-list">
              <dt>Visibility</dt>
              <dd>
                <VisibilityBadge repository={repository} />
              </dd>
              {repository.visibility === 'PUBLIC' || closedByCap ? (
                <>
                  <dt>Public egress</dt>
                  <dd>
                    <EgressMeter repository={repository} />
                  </dd>
                </>
              ) : null}
              <dt>Tags</dt>
              <dd>{MUTABILITY_LABELS[repository.imageTagMutability].label}</dd>
              <dt>Scan on push</dt>
              <dd>{repository.scanOnPush ? 'On' : 'Off'}</dd>
              <dt>Encryption</dt>
              <dd>{ENCRYPTION_LABELS[repository.encryptionType].label}</dd>
              <dt>Last push</dt>
              <dd>
                {repository.lastPushedAt ? <span title={formatDateTime(repository.lastPushedAt)}>{formatRelative(repository.lastPushedAt)}</span> : 'Never'}
              </dd>
              <dt>Last pull</dt>
              <dd>
                {repository.lastPulledAt ? <span title={formatDateTime(repository.lastPulledAt)}>{formatRelative(repository.lastPulledAt)}</span> : 'Never'}
              </dd>
              <dt>Created</dt>
              <dd title={formatDateTime(repository.createdAt)}>{formatDate(repository.createdAt)}</dd>
            </dl>
            <p className={styles.note} style={{ marginTop: 12 }}>
              Tag mutability, scanning and encryption follow the <Link href={projectPath(project.id, `container-registry/${registry.id}`)}>registry</Link>
              &apos;s settings.
            </p>
          </Card>
        </div>
        <ImagesCard registry={registry} repository={repository} canManage={canManage} />
        <CredentialsCard registry={registry} repository={repository} />
        <VisibilityCard registry={registry} repository={repository} canManage={canManage} />
        <RetentionCard registry={registry} repository={repository} canManage={canManage} />
        {canManage ? <DeleteCard registry={registry} repository={repository} /> : null}
      </div>
    </main>
  );
}

function CommandsCard({ registry, repository }: { registry: RegistryView; repository: RepositoryView }) {
  const [tag, setTag] = useState('latest');
  const shownTag = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(tag) ? tag : 'latest';
  const image = `${repository.uri}:${shownTag}`;
  return (
    <Card title="Push and pull" description="Log in once, then tag a local image with the repository's name and push it.">
      <div className={styles.fields}>
        <Input
          label="Image tag"
          value={tag}
          onChange={(event) => setTag(event.target.value)}
          maxLength={128}
          spellCheck={false}
          autoComplete="off"
          className="mono"
        />
        <ValueField label="Log in" value={loginCommand(registry.endpoint)} testId="docker-login" />
        <ValueField label="Tag a local image" value={`docker tag my-image:${shownTag} ${image}`} testId="docker-tag" />
        <ValueField label="Push" value={`docker push ${image}`} testId="docker-push" />
        <ValueField
          label="Pull"
          value={`docker pull ${image}`}
          testId="docker-pull"
          hint={repository.visibility === 'PUBLIC' ? 'Public: pulls work without logging in.' : 'Pulls need docker login with an API key with registry:read.'}
        />
      </div>
    </Card>
  );
}

function ImagesCard({ registry, repository, canManage }: { registry: RegistryView; repository: RepositoryView; canManage: boolean }) {
  const project = useProject();
  const trpc = useTRPC();
  const [deleting, setDeleting] = useState<ImageView | null>(null);
  // Judged as of the list's last read: a scan still missing that long after the push is not coming.
  const awaitingScan = (image: ImageView, readAt: number) =>
    repository.scanOnPush && image.scanStatus === null && image.expiredAt === null && readAt - Date.parse(image.pushedAt) < SCAN_WAIT_MS;
  const images = useQuery(
    trpc.containerRegistry.images.queryOptions(
      { projectId: project.id, id: registry.id, repoId: repository.id },
      { refetchInterval: (query) => (query.state.data?.some((image) => awaitingScan(image, query.state.dataUpdatedAt)) ? SCAN_POLL_MS : false) },
    ),
  );

  const columns: Column<ImageView>[] = [
    {
      header: 'Digest',
      cell: (image) => (
        <div className={styles.flags}>
          <span className={styles.digest} title={image.digest} data-testid="image-digest" data-digest={image.digest}>
            {shortDigest(image.digest)}
            <CopyButton value={image.digest} label={`Copy digest ${shortDigest(image.digest)}`} />
          </span>
          {image.expiredAt ? (
            <Badge tone="danger" title={`Deleted by the retention policy ${formatDateTime(image.expiredAt)}; listed until garbage collection frees it`}>
              Expired
            </Badge>
          ) : null}
        </div>
      ),
    },
    {
      header: 'Tags',
      cell: (image) =>
        image.tags.length > 0 ? (
          <span className={styles.tags}>
            {image.tags.map((tag) => (
              <Badge key={tag} tone="accent" mono>
                {tag}
              </Badge>
            ))}
          </span>
        ) : (
          <span className={styles.untagged}>untagged</span>
        ),
    },
    { header: 'Size', className: 'hide-xs', cell: (image) => <span className={`${styles.figure} ${styles.nowrap}`}>{formatBytes(image.sizeBytes)}</span> },
    {
      header: 'Pushed',
      className: 'hide-sm',
      cell: (image) => (
        <span className={styles.nowrap} title={formatDateTime(image.pushedAt)}>
          {formatRelative(image.pushedAt)}
        </span>
      ),
    },
    {
      header: 'Last pulled',
      className: 'hide-sm',
      cell: (image) =>
        image.lastPulledAt ? (
          <span className={styles.nowrap} title={formatDateTime(image.lastPulledAt)}>
            {formatRelative(image.lastPulledAt)}
          </span>
        ) : (
          <span className="muted">Never</span>
        ),
    },
    { header: 'Scan findings', cell: (image) => <ScanFindings image={image} scanning={awaitingScan(image, images.dataUpdatedAt)} /> },
  ];
  if (canManage) {
    columns.push({
      header: <span className="visually-hidden">Actions</span>,
      className: 'cell-actions',
      cell: (image) =>
        image.expiredAt ? null : (
          <Button size="sm" variant="danger-ghost" onClick={() => setDeleting(image)} aria-label={`Delete image ${shortDigest(image.digest)}`}>
            Delete
          </Button>
        ),
    });
  }

  return (
    <Card
      flush
      title="Images"
      description="Read from the registry now, newest push first. An image whose tag a newer push took is listed untagged."
      actions={
        <Button size="sm" variant="ghost" onClick={() => void images.refetch()} loading={images.isFetching && !images.isPending}>
          Refresh
        </Button>
      }
    >
      <DataList
        label="Images"
        query={images}
        columns={columns}
        rowKey={(image) => image.digest}
        empty={<EmptyState icon="box" title="No images yet" description={`Push one: docker push ${repository.uri}:latest`} />}
      />
      <DeleteImageDialog registry={registry} repository={repository} image={deleting} onClose={() => setDeleting(null)} />
    </Card>
  );
}

function DeleteImageDialog({
  registry,
  repository,
  image,
  onClose,
}: {
  registry: RegistryView;
  repository: RepositoryView;
  image: ImageView | null;
  onClose: () => void;
}) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.containerRegistry.deleteImage.mutationOptions());

  function close() {
    remove.reset();
    onClose();
  }

  async function confirm() {
    if (!image) return;
    try {
      await remove.mutateAsync({ projectId: project.id, id: registry.id, repoId: repository.id, digest: image.digest });
    } catch {
      return;
    }
    toast.success(`Image ${shortDigest(image.digest)} was deleted`);
    close();
    await queryClient.invalidateQueries({
      queryKey: trpc.containerRegistry.images.queryKey({ projectId: project.id, id: registry.id, repoId: repository.id }),
    });
  }

  const tags = image?.tags ?? [];
  return (
    <ConfirmDialog
      open={image !== null}
      onClose={close}
      title={`Delete image ${image ? shortDigest(image.digest) : ''}?`}
      description={
        tags.length > 0
          ? `The image and its ${tags.length === 1 ? 'tag' : 'tags'} ${tags.join(', ')} are deleted from ${repository.name}. Pulls of ${tags.length === 1 ? 'that tag' : 'those tags'} or of the digest fail from now on.`
          : `The untagged image is deleted from ${repository.name}; pulls by its digest fail from now on.`
      }
      confirmLabel="Delete image"
      onConfirm={() => void confirm()}
      pending={remove.isPending}
      errorTitle="The image was not deleted"
      error={remove.isError ? errorMessage(remove.error) : null}
    >
      {image ? <div className={styles.confirmDigest}>{image.digest}</div> : null}
    </ConfirmDialog>
  );
}

function CredentialsCard({ registry, repository }: { registry: RegistryView; repository: RepositoryView }) {
  const project = useProject();
  const trpc = useTRPC();
  const credentials = useQuery(trpc.containerRegistry.credentials.queryOptions({ projectId: project.id, id: registry.id, repoId: repository.id }));
  const columns: Column<RegistryUserView>[] = [
    {
      header: 'Who',
      cell: (user) => (
        <div>
          <div style={{ fontWeight: 600 }}>{user.name}</div>
          <div className="cell-sub">{user.kind === 'anonymous' ? 'No login needed' : <span className="mono">{user.keyPrefix}…</span>}</div>
        </div>
      ),
    },
    {
      header: 'Can',
      cell: (user) => (
        <span className={styles.actionList}>
          {user.actions.map((action) => (
            <Badge key={action} tone={action === 'push' ? 'accent' : 'neutral'}>
              {action}
            </Badge>
          ))}
        </span>
      ),
    },
    {
      header: 'Last used',
      className: 'hide-xs',
      cell: (user) =>
        user.kind === 'anonymous' ? (
          <span className="muted">—</span>
        ) : user.lastUsedAt ? (
          <span title={formatDateTime(user.lastUsedAt)}>{formatRelative(user.lastUsedAt)}</span>
        ) : (
          <span className="muted">Never</span>
        ),
    },
    {
      header: 'Expires',
      className: 'hide-sm',
      cell: (user) =>
        user.expiresAt ? <span title={formatDateTime(user.expiresAt)}>{formatDate(user.expiresAt)}</span> : <span className="muted">Never</span>,
    },
  ];
  const data = credentials.data;
  return (
    <Card
      flush
      title="Who can reach it"
      description={
        <>
          The project&apos;s API keys with registry scopes: <span className="mono">registry:read</span> pulls, with <span className="mono">registry:write</span>{' '}
          it pushes too. Manage them on the <Link href={projectPath(project.id, 'api-keys')}>API keys page</Link>.
        </>
      }
    >
      {credentials.isError && !data ? (
        <div style={{ padding: 16 }}>
          <LoadFailed title="The credentials could not be loaded" error={credentials.error} retry={credentials.refetch} retrying={credentials.isFetching} />
        </div>
      ) : data?.error ? (
        <div style={{ padding: 16 }}>
          <Alert tone="warning" title="The registry could not be reached">
            {data.error}
          </Alert>
        </div>
      ) : data && data.users.length === 0 ? (
        <EmptyState
          icon="key"
          title="No API key can reach it"
          description="Create an API key with registry:read (and registry:write to push), then log in with it."
          action={<ButtonLink href={projectPath(project.id, 'api-keys')}>API keys</ButtonLink>}
        />
      ) : (
        <Table label="Registry credentials" columns={columns} rows={data?.users} rowKey={(user) => `${user.kind}-${user.id ?? 'anyone'}`} loadingRows={2} />
      )}
      {data ? (
        <p className={styles.note} style={{ padding: '12px 16px', borderTop: '1px solid var(--border)' }}>
          docker login <span className="mono">{data.login.host}</span> with username <span className="mono">{data.login.username}</span>;{' '}
          {data.login.passwordHint.charAt(0).toLowerCase()}
          {data.login.passwordHint.slice(1)} as the password.
        </p>
      ) : null}
    </Card>
  );
}

function VisibilityCard({ registry, repository, canManage }: { registry: RegistryView; repository: RepositoryView; canManage: boolean }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const save = useMutation(trpc.containerRegistry.updateRepository.mutationOptions());
  const afterRepositoryChange = useRepositoryRefresh(registry, repository);
  const closedByCap = repository.visibility === 'PRIVATE' && repository.publicEgressCapHitAt !== null;
  const [visibility, setVisibility] = useState(repository.visibility);
  const [cap, setCap] = useState(repository.publicEgressCapGb === null ? '' : String(repository.publicEgressCapGb));
  const [capError, setCapError] = useState<string | undefined>();
  // The cap is asked for while PUBLIC, and kept on a repository the cap closed so that raising it reopens it.
  const wantsCap = visibility === 'PUBLIC' || closedByCap;
  const savedCap = repository.publicEgressCapGb === null ? '' : String(repository.publicEgressCapGb);
  const dirty = visibility !== repository.visibility || (wantsCap && cap !== savedCap);

  function reset(next: RepositoryView) {
    setVisibility(next.visibility);
    setCap(next.publicEgressCapGb === null ? '' : String(next.publicEgressCapGb));
    setCapError(undefined);
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const problem = wantsCap ? checkWhole(cap, EGRESS_CAP_GB, 'GB') : undefined;
    setCapError(problem);
    if (problem || !dirty) return;
    const changes: { visibility?: 'PUBLIC' | 'PRIVATE'; publicEgressCapGb?: number } = {};
    if (visibility !== repository.visibility) changes.visibility = visibility;
    if (wantsCap && cap !== savedCap) changes.publicEgressCapGb = Number(cap);
    if (visibility === 'PUBLIC') changes.publicEgressCapGb = Number(cap);
    let saved;
    try {
      saved = await save.mutateAsync({ projectId: project.id, id: registry.id, repoId: repository.id, ...changes });
    } catch (error) {
      const refusal = appErrorOf(error);
      if (refusal.fields?.publicEgressCapGb) setCapError(refusal.fields.publicEgressCapGb);
      return;
    }
    const reopened = closedByCap && saved.visibility === 'PUBLIC';
    toast.success(reopened ? `${repository.name} is public again` : `The visibility of ${repository.name} was saved`);
    reset(saved);
    await afterRepositoryChange(saved);
  }

  return (
    <form onSubmit={submit} noValidate aria-label="Visibility and egress cap">
      <Card
        title="Visibility and egress cap"
        description="A public repository serves anonymous pulls up to a monthly cap of anonymous egress. Reaching the cap closes it to private at once (tokens already handed out stop within five minutes); raising the cap, or setting it public again, reopens it with a fresh allowance for the month."
        footer={canManage ? <SaveFooter dirty={dirty} saving={save.isPending} label="Save visibility" /> : undefined}
      >
        <div className="stack-lg">
          {save.isError && !appErrorOf(save.error).fields?.publicEgressCapGb ? (
            <Alert tone="danger" title="The visibility was not saved">
              {errorMessage(save.error)}
            </Alert>
          ) : null}
          <OptionCards
            label="Visibility"
            name="visibility"
            layout="wider"
            value={visibility}
            disabled={!canManage}
            onChange={(next) => {
              setVisibility(next);
              if (next === 'PRIVATE') setCapError(undefined);
              save.reset();
            }}
            options={[
              { value: 'PRIVATE', title: 'Private', body: <span className={wizard.optionMeta}>Every pull needs an API key with registry:read.</span> },
              {
                value: 'PUBLIC',
                title: 'Public',
                body: <span className={wizard.optionMeta}>Anyone may pull without logging in, up to the cap. Pushes always need an API key.</span>,
              },
            ]}
          />
          {wantsCap ? (
            <div className={styles.numberRow}>
              <Input
                label="Monthly egress cap (GB)"
                name="publicEgressCapGb"
                type="number"
                inputMode="numeric"
                min={EGRESS_CAP_GB.min}
                max={EGRESS_CAP_GB.max}
                step={1}
                value={cap}
                disabled={!canManage}
                onChange={(event) => {
                  setCap(event.target.value);
                  save.reset();
                  setCapError(event.target.value === '' ? undefined : checkWhole(event.target.value, EGRESS_CAP_GB, 'GB'));
                }}
                hint={
                  closedByCap
                    ? `Raise it above ${repository.publicEgressCapGb} GB to reopen the repository.`
                    : `${EGRESS_CAP_GB.min}–${EGRESS_CAP_GB.max} GB (10⁹ bytes) of anonymous pulls per billing month.`
                }
                error={capError}
                required
              />
            </div>
          ) : null}
          {repository.publicEgressCapGb !== null ? (
            <div>
              <span className={styles.label}>Anonymous egress this month</span>
              <EgressMeter repository={repository} size="lg" />
            </div>
          ) : null}
        </div>
      </Card>
    </form>
  );
}

/** After a change to the repository: its page, its registry's table and the credentials (public adds anyone) read again. */
function useRepositoryRefresh(registry: RegistryView, repository: RepositoryView) {
  const project = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return async (saved: RepositoryView) => {
    const ref = { projectId: project.id, id: registry.id, repoId: repository.id };
    queryClient.setQueryData(trpc.containerRegistry.getRepository.queryKey(ref), saved);
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.containerRegistry.get.queryKey({ projectId: project.id, id: registry.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.containerRegistry.credentials.queryKey(ref) }),
    ]);
  };
}

interface RetentionDraft {
  gcEnabled: boolean;
  gcKeepLastN: string;
  gcDeleteUntagged: boolean;
  gcUntaggedAfterDays: string;
}

function retentionOf(repository: RepositoryView): RetentionDraft {
  return {
    gcEnabled: repository.gcEnabled,
    gcKeepLastN: String(repository.gcKeepLastN),
    gcDeleteUntagged: repository.gcDeleteUntagged,
    gcUntaggedAfterDays: String(repository.gcUntaggedAfterDays),
  };
}

function retentionErrors(draft: RetentionDraft): Partial<Record<'gcKeepLastN' | 'gcUntaggedAfterDays', string>> {
  const errors = {
    gcKeepLastN: checkWhole(draft.gcKeepLastN, KEEP_LAST_N, 'images'),
    gcUntaggedAfterDays: checkWhole(draft.gcUntaggedAfterDays, UNTAGGED_DAYS, 'days'),
  };
  return Object.fromEntries(Object.entries(errors).filter(([, message]) => message !== undefined));
}

function RetentionCard({ registry, repository, canManage }: { registry: RegistryView; repository: RepositoryView; canManage: boolean }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const save = useMutation(trpc.containerRegistry.updateRepository.mutationOptions());
  const afterRepositoryChange = useRepositoryRefresh(registry, repository);
  const [draft, setDraft] = useState<RetentionDraft>(() => retentionOf(repository));
  const [errors, setErrors] = useState<ReturnType<typeof retentionErrors>>({});
  const dirty = JSON.stringify(draft) !== JSON.stringify(retentionOf(repository));

  function change(next: RetentionDraft, field?: 'gcKeepLastN' | 'gcUntaggedAfterDays') {
    setDraft(next);
    save.reset();
    if (!field) return;
    const { [field]: _old, ...rest } = errors;
    const message = next[field] === '' ? undefined : retentionErrors(next)[field];
    setErrors(message ? { ...rest, [field]: message } : rest);
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found = retentionErrors(draft);
    setErrors(found);
    if (Object.keys(found).length > 0 || !dirty) return;
    const saved0 = retentionOf(repository);
    const changes: { gcEnabled?: boolean; gcKeepLastN?: number; gcDeleteUntagged?: boolean; gcUntaggedAfterDays?: number } = {};
    if (draft.gcEnabled !== saved0.gcEnabled) changes.gcEnabled = draft.gcEnabled;
    if (draft.gcKeepLastN !== saved0.gcKeepLastN) changes.gcKeepLastN = Number(draft.gcKeepLastN);
    if (draft.gcDeleteUntagged !== saved0.gcDeleteUntagged) changes.gcDeleteUntagged = draft.gcDeleteUntagged;
    if (draft.gcUntaggedAfterDays !== saved0.gcUntaggedAfterDays) changes.gcUntaggedAfterDays = Number(draft.gcUntaggedAfterDays);
    let saved;
    try {
      saved = await save.mutateAsync({ projectId: project.id, id: registry.id, repoId: repository.id, ...changes });
    } catch {
      return;
    }
    toast.success(`The retention policy of ${repository.name} was saved`);
    setDraft(retentionOf(saved));
    await afterRepositoryChange(saved);
  }

  const disabled = !canManage || save.isPending;
  return (
    <form onSubmit={submit} noValidate aria-label="Retention">
      <Card
        title="Retention"
        description="Applied every hour. Deleted images are marked expired and stay listed until the registry's garbage collection frees their storage."
        footer={
          canManage ? (
            <SaveFooter
              dirty={dirty}
              saving={save.isPending}
              label="Save retention"
              onDiscard={() => {
                setDraft(retentionOf(repository));
                setErrors({});
                save.reset();
              }}
            />
          ) : undefined
        }
      >
        <div className="stack">
          {save.isError ? (
            <Alert tone="danger" title="The retention policy was not saved">
              {errorMessage(save.error)}
            </Alert>
          ) : null}
          <Switch
            name="gcEnabled"
            title="Retention policy"
            checked={draft.gcEnabled}
            disabled={disabled}
            onChange={(gcEnabled) => change({ ...draft, gcEnabled })}
            meta={draft.gcEnabled ? 'Old images are deleted by the rules below.' : 'Off: every image is kept until it is deleted by hand.'}
          />
          <div className={styles.numberRow}>
            <Input
              label="Keep the last"
              name="gcKeepLastN"
              type="number"
              inputMode="numeric"
              min={KEEP_LAST_N.min}
              max={KEEP_LAST_N.max}
              step={1}
              value={draft.gcKeepLastN}
              disabled={disabled || !draft.gcEnabled}
              onChange={(event) => change({ ...draft, gcKeepLastN: event.target.value }, 'gcKeepLastN')}
              hint={`tagged images, most recent push first (${KEEP_LAST_N.min}–${KEEP_LAST_N.max})`}
              error={errors.gcKeepLastN}
            />
          </div>
          <Switch
            name="gcDeleteUntagged"
            title="Delete untagged images"
            checked={draft.gcDeleteUntagged}
            disabled={disabled || !draft.gcEnabled}
            onChange={(gcDeleteUntagged) => change({ ...draft, gcDeleteUntagged })}
            meta="Images a newer push of their tag left without one."
          />
          <div className={styles.numberRow}>
            <Input
              label="Untagged images are deleted after"
              name="gcUntaggedAfterDays"
              type="number"
              inputMode="numeric"
              min={UNTAGGED_DAYS.min}
              max={UNTAGGED_DAYS.max}
              step={1}
              value={draft.gcUntaggedAfterDays}
              disabled={disabled || !draft.gcEnabled || !draft.gcDeleteUntagged}
              onChange={(event) => change({ ...draft, gcUntaggedAfterDays: event.target.value }, 'gcUntaggedAfterDays')}
              hint={`days after their push (${UNTAGGED_DAYS.min}–${UNTAGGED_DAYS.max})`}
              error={errors.gcUntaggedAfterDays}
            />
          </div>
        </div>
      </Card>
    </form>
  );
}

function DeleteCard({ registry, repository }: { registry: RegistryView; repository: RepositoryView }) {
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.containerRegistry.deleteRepository.mutationOptions());

  return (
    <DeleteResourceCard
      title="Delete repository"
      description="Deletes every image of the repository at the registry, then the repository. Pulls of its images fail from then on."
      dialogTitle={`Delete ${repository.name}?`}
      dialogDescription={`Every image of ${repository.uri} is deleted. A later push to the same name makes a new, private repository. This cannot be undone.`}
      name={repository.name}
      confirmLabel="Delete this repository"
      errorTitle="The repository was not deleted"
      onDelete={() => remove.mutateAsync({ projectId: project.id, id: registry.id, repoId: repository.id })}
      onDeleted={async () => {
        toast.success(`Repository ${repository.name} was deleted`);
        router.replace(projectPath(project.id, `container-registry/${registry.id}`));
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.containerRegistry.get.queryKey({ projectId: project.id, id: registry.id }) }),
          queryClient.invalidateQueries({ queryKey: trpc.containerRegistry.list.queryKey({ projectId: project.id }) }),
        ]);
      }}
    />
  );
}
