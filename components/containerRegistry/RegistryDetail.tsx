'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { EGRESS_CAP_GB, REPOSITORY_VISIBILITIES, repositoryNameSchema } from '@/server/domains/containerRegistry/schema';
import { ProjectBillingAlert } from '../billing/ProjectBillingAlert';
import { formatDate, formatDateTime, formatRelative } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button, ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { DeleteResourceCard } from '../ui/DeleteResourceCard';
import { Dialog } from '../ui/Dialog';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { Input } from '../ui/Input';
import { LoadFailed } from '../ui/LoadFailed';
import { OptionCards } from '../ui/OptionCards';
import { PageHeader } from '../ui/PageHeader';
import { Skeleton } from '../ui/Skeleton';
import { SubmitButton } from '../ui/SubmitButton';
import { Table, type Column } from '../ui/Table';
import { useToast } from '../ui/Toast';
import { ValueField } from '../ui/ValueField';
import { EgressMeter } from './EgressMeter';
import {
  checkWhole,
  ENCRYPTION_LABELS,
  loginCommand,
  MUTABILITY_LABELS,
  regionName,
  useRegistryRegions,
  type RegistryProviderInfo,
  type RegistryView,
  type RepositoryView,
} from './registry';
import { RegistryStatus } from './RegistryStatus';
import {
  draftOf,
  EncryptionChoice,
  LifecycleFields,
  liveSettingsErrors,
  MutabilityChoice,
  ScanSwitch,
  settingsErrors,
  settingsValues,
  type SettingsDraft,
  type SettingsErrors,
  type SettingsField,
} from './SettingsFields';
import { SaveFooter } from './SaveFooter';
import { SimulatorNotice } from './SimulatorNotice';
import { VisibilityBadge } from './VisibilityBadge';
import wizard from '../ui/Wizard.module.css';
import styles from './containerRegistry.module.css';

export function RegistryDetail({ registryId, provider }: { registryId: string; provider: RegistryProviderInfo }) {
  const project = useProject();
  const trpc = useTRPC();
  const registry = useQuery(trpc.containerRegistry.get.queryOptions({ projectId: project.id, id: registryId }));

  if (registry.isPending) return <DetailSkeleton />;
  if (registry.isError) {
    const { code } = appErrorOf(registry.error);
    return (
      <main className="page">
        {code === 'NOT_FOUND' ? (
          <div className="card">
            <EmptyState
              icon="box"
              title="Registry not found"
              description="It does not exist in this project, or it was deleted."
              action={<ButtonLink href={projectPath(project.id, 'container-registry')}>Back to Container registry</ButtonLink>}
            />
          </div>
        ) : (
          <LoadFailed title="The registry could not be loaded" error={registry.error} retry={registry.refetch} retrying={registry.isFetching} />
        )}
      </main>
    );
  }
  return <RegistryOverview registry={registry.data} provider={provider} />;
}

export function DetailSkeleton() {
  return (
    <main className="page" aria-busy="true">
      <Skeleton width={260} height={26} />
      <Skeleton width={360} style={{ marginTop: 12 }} />
      <Skeleton height={180} style={{ marginTop: 28 }} />
    </main>
  );
}

function RegistryOverview({ registry, provider }: { registry: RegistryView; provider: RegistryProviderInfo }) {
  const project = useProject();
  const canManage = hasRole(project, 'member');
  const regions = useRegistryRegions(project.id);
  return (
    <main className="page">
      <PageHeader
        eyebrow={
          <Link href={projectPath(project.id, 'container-registry')} className="muted">
            ← Container registry
          </Link>
        }
        title={
          <span className={styles.titleRow}>
            <span className="mono">{registry.name}</span>
            <RegistryStatus registry={registry} />
          </span>
        }
        description={`Registry in ${regionName(registry.region, regions.data)}, created ${formatDate(registry.createdAt)}. USD 1 a month, storage and egress included for now.`}
      />
      <div className="stack-lg">
        <ProjectBillingAlert project={project} />
        <SimulatorNotice provider={provider} />
        {registry.status === 'suspended' ? (
          <Alert tone="danger" title="This registry is suspended">
            An invoice of the project is unpaid past its grace period: pushes and anonymous pulls are refused, pulls with an API key still work. Nothing is
            deleted, and the registry reopens when the invoice is paid.
          </Alert>
        ) : null}
        <div className={styles.detailGrid}>
          <LoginCard registry={registry} />
          <Card title="Details">
            <dl className="details-list">
              <dt>Status</dt>
              <dd>
                <RegistryStatus registry={registry} />
              </dd>
              <dt>Region</dt>
              <dd>
                {regionName(registry.region, regions.data)} <span className="muted mono">{registry.region}</span>
              </dd>
              <dt>Tags</dt>
              <dd>{MUTABILITY_LABELS[registry.imageTagMutability].label}</dd>
              <dt>Scan on push</dt>
              <dd>{registry.scanOnPush ? 'On' : 'Off'}</dd>
              <dt>Encryption</dt>
              <dd>
                {ENCRYPTION_LABELS[registry.encryptionType].label}
                {registry.kmsKeyArn ? <div className="muted mono">{registry.kmsKeyArn}</div> : null}
              </dd>
              <dt>Retention</dt>
              <dd>
                {registry.lifecycleEnabled
                  ? `Keep the last ${registry.lifecycleKeepLastN} tagged; untagged after ${registry.lifecycleUntaggedAfterDays} days`
                  : 'Off for new repositories'}
              </dd>
              <dt>Created</dt>
              <dd title={formatDateTime(registry.createdAt)}>{formatDate(registry.createdAt)}</dd>
            </dl>
          </Card>
        </div>
        <RepositoriesCard registry={registry} canManage={canManage} />
        <SettingsCard registry={registry} canManage={canManage} />
        {canManage ? <DeleteCard registry={registry} /> : null}
      </div>
    </main>
  );
}

function LoginCard({ registry }: { registry: RegistryView }) {
  const project = useProject();
  return (
    <Card title="Log in with docker" description="Any username; an API key of this project as the password.">
      <div className={styles.fields}>
        <ValueField label="Registry host" value={registry.endpoint} testId="registry-endpoint" />
        <ValueField
          label="Login command"
          value={loginCommand(registry.endpoint)}
          testId="docker-login"
          hint={
            <>
              Use an API key with <span className="mono">registry:read</span> to pull and <span className="mono">registry:write</span> as well to push. Create
              one on the <Link href={projectPath(project.id, 'api-keys')}>API keys page</Link>; CI systems can pass it with{' '}
              <span className="mono">--password-stdin</span>.
            </>
          }
        />
        <ValueField label="Image names" value={`${registry.endpoint}/${registry.name}/<repository>:<tag>`} testId="image-name" />
      </div>
    </Card>
  );
}

function RepositoriesCard({ registry, canManage }: { registry: RegistryView; canManage: boolean }) {
  const project = useProject();
  const [creating, setCreating] = useState(false);
  const columns: Column<RepositoryView>[] = [
    {
      header: 'Name',
      cell: (repository) => (
        <div>
          <Link href={projectPath(project.id, `container-registry/${registry.id}/repositories/${repository.id}`)} className={`${styles.nameLink} mono`}>
            {repository.name}
          </Link>
          <div className="cell-sub mono hide-xs">{repository.uri}</div>
        </div>
      ),
    },
    { header: 'Visibility', cell: (repository) => <VisibilityBadge repository={repository} /> },
    {
      header: 'Public egress this month',
      className: 'hide-xs',
      cell: (repository) =>
        repository.visibility === 'PUBLIC' || repository.publicEgressCapHitAt ? <EgressMeter repository={repository} /> : <span className="muted">—</span>,
    },
    {
      header: 'Last push',
      className: 'hide-sm',
      cell: (repository) =>
        repository.lastPushedAt ? (
          <span title={formatDateTime(repository.lastPushedAt)}>{formatRelative(repository.lastPushedAt)}</span>
        ) : (
          <span className="muted">Never</span>
        ),
    },
  ];
  return (
    <Card
      flush
      title="Repositories"
      description="Make one here to choose its visibility; a first push to a new name makes a private one."
      actions={
        canManage ? (
          <Button variant="primary" size="sm" onClick={() => setCreating(true)}>
            <Icon name="plus" size={14} /> New repository
          </Button>
        ) : null
      }
    >
      {registry.repositories.length === 0 ? (
        <EmptyState
          icon="box"
          title="No repositories yet"
          description={`Log in, then push an image: docker push ${registry.endpoint}/${registry.name}/<repository>:<tag>`}
        />
      ) : (
        <Table label="Repositories" columns={columns} rows={registry.repositories} rowKey={(repository) => repository.id} loadingRows={2} />
      )}
      <NewRepositoryDialog registry={registry} open={creating} onClose={() => setCreating(false)} />
    </Card>
  );
}

function NewRepositoryDialog({ registry, open, onClose }: { registry: RegistryView; open: boolean; onClose: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const create = useMutation(trpc.containerRegistry.createRepository.mutationOptions());
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | undefined>();
  const [visibility, setVisibility] = useState<(typeof REPOSITORY_VISIBILITIES)[number]>('PRIVATE');
  const [cap, setCap] = useState('');
  const [capError, setCapError] = useState<string | undefined>();

  function close() {
    setName('');
    setNameError(undefined);
    setVisibility('PRIVATE');
    setCap('');
    setCapError(undefined);
    create.reset();
    onClose();
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsed = repositoryNameSchema.safeParse(name.trim());
    setNameError(parsed.success ? undefined : parsed.error.issues[0]?.message);
    const capProblem = visibility === 'PUBLIC' ? checkWhole(cap, EGRESS_CAP_GB, 'GB') : undefined;
    setCapError(capProblem);
    if (!parsed.success || capProblem) return;
    try {
      await create.mutateAsync({
        projectId: project.id,
        id: registry.id,
        name: parsed.data,
        visibility,
        publicEgressCapGb: visibility === 'PUBLIC' ? Number(cap) : null,
      });
    } catch (error) {
      const refusal = appErrorOf(error);
      if (refusal.code === 'CONFLICT' || refusal.fields?.name) setNameError(refusal.fields?.name ?? refusal.message);
      else if (refusal.fields?.publicEgressCapGb) setCapError(refusal.fields.publicEgressCapGb);
      return;
    }
    toast.success(`Repository ${parsed.data} was created`);
    await queryClient.invalidateQueries({ queryKey: trpc.containerRegistry.get.queryKey({ projectId: project.id, id: registry.id }) });
    await queryClient.invalidateQueries({ queryKey: trpc.containerRegistry.list.queryKey({ projectId: project.id }) });
    close();
  }

  const refusal = create.isError ? appErrorOf(create.error) : null;
  return (
    <Dialog
      open={open}
      onClose={close}
      title="New repository"
      description={`In ${registry.name}, with the registry's tag, scanning, encryption and retention settings.`}
    >
      <form className="form" onSubmit={submit} noValidate aria-label="New repository">
        {refusal && refusal.code !== 'CONFLICT' && !refusal.fields?.name && !refusal.fields?.publicEgressCapGb ? (
          <Alert tone="danger" title="The repository was not created">
            {refusal.message}
          </Alert>
        ) : null}
        <Input
          label="Repository name"
          value={name}
          onChange={(event) => {
            setName(event.target.value);
            const parsed = repositoryNameSchema.safeParse(event.target.value.trim());
            setNameError(event.target.value === '' || parsed.success ? undefined : parsed.error.issues[0]?.message);
          }}
          placeholder="web"
          hint={
            <>
              Lower-case letters and digits, separated by single dots, underscores or hyphens. Pushed as{' '}
              <span className="mono">
                {registry.endpoint}/{registry.name}/{name.trim() || '<name>'}
              </span>
            </>
          }
          error={nameError}
          autoComplete="off"
          spellCheck={false}
          maxLength={128}
        />
        <div className="field">
          <span className="field-label">Visibility</span>
          <OptionCards
            label="Visibility"
            name="visibility"
            value={visibility}
            onChange={setVisibility}
            options={[
              { value: 'PRIVATE', title: 'Private', body: <span className={wizard.optionMeta}>Pulls need an API key</span> },
              { value: 'PUBLIC', title: 'Public', body: <span className={wizard.optionMeta}>Anyone may pull, up to an egress cap</span> },
            ]}
          />
        </div>
        {visibility === 'PUBLIC' ? (
          <Input
            label="Monthly egress cap (GB)"
            type="number"
            inputMode="numeric"
            min={EGRESS_CAP_GB.min}
            max={EGRESS_CAP_GB.max}
            step={1}
            value={cap}
            onChange={(event) => {
              setCap(event.target.value);
              setCapError(event.target.value === '' ? undefined : checkWhole(event.target.value, EGRESS_CAP_GB, 'GB'));
            }}
            placeholder="100"
            hint={`${EGRESS_CAP_GB.min}–${EGRESS_CAP_GB.max} GB of anonymous pulls per billing month. Reaching it closes the repository to private until the month ends or the cap is raised.`}
            error={capError}
            required
          />
        ) : null}
        <div className="form-actions" style={{ justifyContent: 'flex-end' }}>
          <Button variant="ghost" onClick={close}>
            Cancel
          </Button>
          <SubmitButton variant="primary" loading={create.isPending}>
            <Icon name="plus" /> Create repository
          </SubmitButton>
        </div>
      </form>
    </Dialog>
  );
}

/** The registry's settings that are sent: only what differs from what it has. */
function changesOf(registry: RegistryView, draft: SettingsDraft) {
  const values = settingsValues(draft);
  const changes: Partial<Omit<typeof values, 'kmsKeyArn'>> & { kmsKeyArn?: string } = {};
  if (values.imageTagMutability !== registry.imageTagMutability) changes.imageTagMutability = values.imageTagMutability;
  if (values.scanOnPush !== registry.scanOnPush) changes.scanOnPush = values.scanOnPush;
  if (values.encryptionType !== registry.encryptionType) changes.encryptionType = values.encryptionType;
  if (values.kmsKeyArn && values.kmsKeyArn !== registry.kmsKeyArn) changes.kmsKeyArn = values.kmsKeyArn;
  if (values.lifecycleEnabled !== registry.lifecycleEnabled) changes.lifecycleEnabled = values.lifecycleEnabled;
  if (values.lifecycleKeepLastN !== registry.lifecycleKeepLastN) changes.lifecycleKeepLastN = values.lifecycleKeepLastN;
  if (values.lifecycleUntaggedAfterDays !== registry.lifecycleUntaggedAfterDays) changes.lifecycleUntaggedAfterDays = values.lifecycleUntaggedAfterDays;
  return changes;
}

function SettingsCard({ registry, canManage }: { registry: RegistryView; canManage: boolean }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const regions = useRegistryRegions(project.id);
  const save = useMutation(trpc.containerRegistry.update.mutationOptions());
  const [draft, setDraft] = useState<SettingsDraft>(() => draftOf(registry));
  const [errors, setErrors] = useState<SettingsErrors>({});
  const dirty = JSON.stringify(draft) !== JSON.stringify(draftOf(registry));

  function change(next: SettingsDraft, field?: SettingsField) {
    setDraft(next);
    save.reset();
    setErrors((previous) => liveSettingsErrors(previous, next, field));
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found = settingsErrors(draft);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const changes = changesOf(registry, draft);
    if (Object.keys(changes).length === 0) return;
    let saved;
    try {
      saved = await save.mutateAsync({ projectId: project.id, id: registry.id, ...changes });
    } catch (error) {
      const refusal = appErrorOf(error);
      if (refusal.fields?.kmsKeyArn) setErrors({ kmsKeyArn: refusal.fields.kmsKeyArn });
      return;
    }
    toast.success(`The settings of ${registry.name} were saved`);
    setDraft(draftOf(saved));
    queryClient.setQueryData(trpc.containerRegistry.get.queryKey({ projectId: project.id, id: registry.id }), saved);
    await queryClient.invalidateQueries({ queryKey: trpc.containerRegistry.list.queryKey({ projectId: project.id }) });
    await queryClient.invalidateQueries({ queryKey: trpc.containerRegistry.getRepository.pathKey() });
  }

  const disabled = !canManage || save.isPending;
  return (
    <form onSubmit={submit} noValidate aria-label="Registry settings">
      <Card
        title="Settings"
        description="Name and region are fixed. Tag mutability and scan on push apply to every repository at once; encryption applies only to repositories created afterwards, and the retention fields are the policy new repositories start with."
        footer={
          canManage ? (
            <SaveFooter
              dirty={dirty}
              saving={save.isPending}
              label="Save settings"
              onDiscard={() => {
                setDraft(draftOf(registry));
                setErrors({});
                save.reset();
              }}
            />
          ) : undefined
        }
      >
        <div className="stack-lg">
          {save.isError && !appErrorOf(save.error).fields?.kmsKeyArn ? (
            <Alert tone="danger" title="The settings were not saved">
              {errorMessage(save.error)}
            </Alert>
          ) : null}
          <div className={styles.readOnlyRow}>
            <div className="field">
              <span className="field-label">Name</span>
              <div className={`${styles.readOnly} mono`} title="Fixed for the life of the registry">
                {registry.name}
              </div>
            </div>
            <div className="field">
              <span className="field-label">Region</span>
              <div className={styles.readOnly} title="Fixed for the life of the registry">
                {regionName(registry.region, regions.data)} <span className="muted mono">{registry.region}</span>
              </div>
            </div>
          </div>
          <section className={styles.settingsGroup} aria-label="Tags and scanning">
            <h3 className={styles.groupTitle}>Tags and scanning</h3>
            <p className={styles.groupHint}>Applied to every repository of the registry when saved.</p>
            <MutabilityChoice draft={draft} errors={errors} disabled={disabled} onChange={change} />
            <ScanSwitch draft={draft} errors={errors} disabled={disabled} onChange={change} />
          </section>
          <section className={styles.settingsGroup} aria-label="Encryption">
            <h3 className={styles.groupTitle}>Encryption</h3>
            <p className={styles.groupHint}>For repositories created from now on; existing repositories keep the encryption they were made with.</p>
            <EncryptionChoice draft={draft} errors={errors} disabled={disabled} onChange={change} />
          </section>
          <section className={styles.settingsGroup} aria-label="Retention for new repositories">
            <h3 className={styles.groupTitle}>Retention for new repositories</h3>
            <p className={styles.groupHint}>Each existing repository keeps its own policy, changed on its page.</p>
            <LifecycleFields draft={draft} errors={errors} disabled={disabled} onChange={change} />
          </section>
        </div>
      </Card>
    </form>
  );
}

function DeleteCard({ registry }: { registry: RegistryView }) {
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.containerRegistry.delete.mutationOptions());
  const count = registry.repositories.length;

  return (
    <DeleteResourceCard
      title="Delete registry"
      description="Deletes the registry, every repository in it and all their images, and stops billing for it."
      dialogTitle={`Delete ${registry.name}?`}
      dialogDescription={`${count === 0 ? 'The registry has no repositories.' : `Its ${count} ${count === 1 ? 'repository' : 'repositories'} and every image in them are deleted.`} Billing stops; this month is not refunded. The name becomes free for anyone. This cannot be undone.`}
      name={registry.name}
      confirmLabel="Delete this registry"
      errorTitle="The registry was not deleted"
      onDelete={() => remove.mutateAsync({ projectId: project.id, id: registry.id })}
      onDeleted={async () => {
        toast.success(`Registry ${registry.name} was deleted`);
        router.replace(projectPath(project.id, 'container-registry'));
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.containerRegistry.list.queryKey({ projectId: project.id }) }),
          queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
        ]);
      }}
    />
  );
}
