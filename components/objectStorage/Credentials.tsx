'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { createCredentialInput, STORAGE_CREDENTIAL_ACCESS } from '@/server/domains/objectStorage/schema';
import { formatDateTime, formatRelative } from '../format';
import { useProject } from '../projects/ProjectContext';
import { appErrorOf, errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { DataList, type ListQuery } from '../ui/DataList';
import { Dialog } from '../ui/Dialog';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { Input } from '../ui/Input';
import { OptionCards } from '../ui/OptionCards';
import { SecretDialog } from '../ui/SecretDialog';
import { SubmitButton } from '../ui/SubmitButton';
import { useToast } from '../ui/Toast';
import type { Column } from '../ui/Table';
import { ACCESS_LABELS, awsCopyCommand, type BucketView, type CredentialAccess, type CredentialView } from './storage';
import wizard from '../ui/Wizard.module.css';
import styles from './objectStorage.module.css';

/** Credentials are listed per bucket and per project; both lists change together. */
function useInvalidateCredentials() {
  const project = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.storageCredentials.list.queryKey({ projectId: project.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.objectStorage.credentials.pathKey() }),
    ]);
}

function ScopeLabel({ credential }: { credential: CredentialView }) {
  if (credential.buckets === null) return <Badge tone="accent">Every bucket</Badge>;
  return (
    <span className={styles.flags}>
      {credential.buckets.map((bucket) => (
        <Badge key={bucket.id} mono>
          {bucket.name}
        </Badge>
      ))}
    </span>
  );
}

export function CredentialsList({
  query,
  canManage,
  onRescope,
  empty,
}: {
  query: ListQuery<CredentialView>;
  canManage: boolean;
  /** Given on the project's list, where a credential's buckets can be changed. */
  onRescope?: (credential: CredentialView) => void;
  empty: { title: string; description: string };
}) {
  const [revoking, setRevoking] = useState<CredentialView | null>(null);
  const columns: Column<CredentialView>[] = [
    {
      header: 'Name',
      cell: (credential) => (
        <div>
          <div style={{ fontWeight: 600 }}>
            {credential.name} {credential.legacy ? <Badge title="Made through the legacy iam-users API; it cannot be re-scoped">Legacy</Badge> : null}
          </div>
          <div className="cell-sub mono">{credential.accessKeyId}</div>
          <div className={`cell-sub ${styles.underName}`}>
            <ScopeLabel credential={credential} /> {ACCESS_LABELS[credential.access].label}
          </div>
        </div>
      ),
    },
    { header: 'Buckets', className: 'hide-xs', cell: (credential) => <ScopeLabel credential={credential} /> },
    {
      header: 'Access',
      className: 'hide-xs',
      cell: (credential) => <span title={ACCESS_LABELS[credential.access].explained}>{ACCESS_LABELS[credential.access].label}</span>,
    },
    {
      header: 'Created',
      className: 'hide-sm',
      cell: (credential) => <span title={formatDateTime(credential.createdAt)}>{formatRelative(credential.createdAt)}</span>,
    },
  ];
  if (canManage) {
    columns.push({
      header: <span className="visually-hidden">Actions</span>,
      cell: (credential) => (
        <span className={styles.rowActions}>
          {onRescope && !credential.legacy ? (
            <Button size="sm" onClick={() => onRescope(credential)} aria-label={`Change the scope of ${credential.name}`}>
              Re-scope
            </Button>
          ) : null}
          <Button size="sm" variant="danger-ghost" onClick={() => setRevoking(credential)} aria-label={`Revoke ${credential.name}`}>
            Revoke
          </Button>
        </span>
      ),
    });
  }
  return (
    <>
      <DataList
        label="Storage credentials"
        query={query}
        columns={columns}
        rowKey={(credential) => credential.id}
        empty={<EmptyState icon="key" title={empty.title} description={empty.description} />}
      />
      <RevokeDialog credential={revoking} onClose={() => setRevoking(null)} />
    </>
  );
}

function RevokeDialog({ credential, onClose }: { credential: CredentialView | null; onClose: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const invalidate = useInvalidateCredentials();
  const revoke = useMutation(trpc.storageCredentials.revoke.mutationOptions());

  function close() {
    revoke.reset();
    onClose();
  }

  async function confirm() {
    if (!credential) return;
    try {
      await revoke.mutateAsync({ projectId: project.id, credentialId: credential.id });
    } catch {
      return;
    }
    toast.success(`Credential ${credential.name} was revoked`);
    close();
    await invalidate();
  }

  return (
    <ConfirmDialog
      open={credential !== null}
      onClose={close}
      title={`Revoke ${credential?.name ?? 'credential'}?`}
      description="S3 clients using its access key are refused from now on. The objects stay."
      confirmLabel="Revoke credential"
      onConfirm={() => void confirm()}
      pending={revoke.isPending}
      errorTitle="The credential was not revoked"
      error={revoke.isError ? errorMessage(revoke.error) : null}
    />
  );
}

function AccessChoice({ value, onChange }: { value: CredentialAccess; onChange: (access: CredentialAccess) => void }) {
  return (
    <OptionCards
      label="Access"
      name="access"
      value={value}
      onChange={onChange}
      options={STORAGE_CREDENTIAL_ACCESS.map((access) => ({
        value: access,
        title: ACCESS_LABELS[access].label,
        body: <span className={wizard.optionMeta}>{ACCESS_LABELS[access].explained}</span>,
      }))}
    />
  );
}

function ScopeChoice({ value, onChange, bucketName }: { value: 'bucket' | 'project'; onChange: (scope: 'bucket' | 'project') => void; bucketName: string }) {
  return (
    <OptionCards
      label="Buckets"
      name="scope"
      value={value}
      onChange={onChange}
      options={[
        { value: 'bucket', title: 'This bucket', body: <span className={`${wizard.optionMeta} mono`}>{bucketName}</span> },
        { value: 'project', title: 'All buckets', body: <span className={wizard.optionMeta}>Every bucket of the project, present and future</span> },
      ]}
    />
  );
}

/** Issues a credential from a bucket's page; its secret is shown once, inside the command that uses it. */
export function NewCredentialDialog({ bucket, open, onClose }: { bucket: BucketView; open: boolean; onClose: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const invalidate = useInvalidateCredentials();
  const create = useMutation(trpc.storageCredentials.create.mutationOptions());
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | undefined>();
  const [scope, setScope] = useState<'bucket' | 'project'>('bucket');
  const [access, setAccess] = useState<CredentialAccess>('write');

  function close() {
    setName('');
    setNameError(undefined);
    setScope('bucket');
    setAccess('write');
    create.reset();
    onClose();
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsed = createCredentialInput.shape.name.safeParse(name.trim());
    setNameError(parsed.success ? undefined : parsed.error.issues[0]?.message);
    if (!parsed.success) return;
    try {
      await create.mutateAsync({ projectId: project.id, name: parsed.data, bucketIds: scope === 'bucket' ? [bucket.id] : null, access });
    } catch (error) {
      const refusal = appErrorOf(error);
      if (refusal.code === 'CONFLICT' || refusal.fields?.name) setNameError(refusal.fields?.name ?? refusal.message);
      return;
    }
    await invalidate();
  }

  const issued = create.data;
  if (issued) {
    return (
      <SecretDialog
        open={open}
        onClose={close}
        title={`Credential ${issued.name} created`}
        description={`Access key ID ${issued.accessKeyId}. Its secret access key is the AWS_SECRET_ACCESS_KEY value in this command, which uploads a file to ${bucket.name}.`}
        secret={awsCopyCommand(bucket.endpoint.url, bucket.name, issued.accessKeyId, issued.secretAccessKey)}
        secretTestId="new-credential-command"
      />
    );
  }
  const refusal = create.isError ? appErrorOf(create.error) : null;
  return (
    <Dialog open={open} onClose={close} title="New credential" description={`An access key for S3 clients; the secret is shown once.`}>
      <form className="form" onSubmit={submit} noValidate aria-label="New credential">
        {refusal && refusal.code !== 'CONFLICT' && !refusal.fields?.name ? (
          <Alert tone="danger" title="The credential was not created">
            {refusal.message}
          </Alert>
        ) : null}
        <Input
          label="Name"
          value={name}
          onChange={(event) => {
            setName(event.target.value);
            setNameError(undefined);
          }}
          placeholder="uploads-worker"
          hint="Letters, digits, dots, underscores and hyphens; unique in the project."
          error={nameError}
          autoComplete="off"
          spellCheck={false}
          maxLength={64}
        />
        <div className="field">
          <span className="field-label">Buckets</span>
          <ScopeChoice value={scope} onChange={setScope} bucketName={bucket.name} />
        </div>
        <div className="field">
          <span className="field-label">Access</span>
          <AccessChoice value={access} onChange={setAccess} />
        </div>
        <div className="form-actions" style={{ justifyContent: 'flex-end' }}>
          <Button variant="ghost" onClick={close}>
            Cancel
          </Button>
          <SubmitButton variant="primary" loading={create.isPending}>
            <Icon name="key" /> Create credential
          </SubmitButton>
        </div>
      </form>
    </Dialog>
  );
}

/** Changes which buckets a credential reaches and its access; legacy credentials never get here. */
export function RescopeDialog({ credential, buckets, onClose }: { credential: CredentialView | null; buckets: readonly BucketView[]; onClose: () => void }) {
  return (
    <Dialog
      open={credential !== null}
      onClose={onClose}
      title={`Re-scope ${credential?.name ?? 'credential'}`}
      description="Takes effect at the endpoint at once."
    >
      {credential ? <RescopeForm key={credential.id} credential={credential} buckets={buckets} onDone={onClose} /> : null}
    </Dialog>
  );
}

function RescopeForm({ credential, buckets, onDone }: { credential: CredentialView; buckets: readonly BucketView[]; onDone: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const invalidate = useInvalidateCredentials();
  const rescope = useMutation(trpc.storageCredentials.rescope.mutationOptions());
  const [everyBucket, setEveryBucket] = useState(credential.buckets === null);
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set(credential.buckets?.map((b) => b.id) ?? []));
  const [access, setAccess] = useState<CredentialAccess>(credential.access);
  const noBucket = !everyBucket && chosen.size === 0;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (noBucket) return;
    try {
      await rescope.mutateAsync({ projectId: project.id, credentialId: credential.id, bucketIds: everyBucket ? null : [...chosen], access });
    } catch {
      return;
    }
    toast.success(`Credential ${credential.name} was re-scoped`);
    await invalidate();
    onDone();
  }

  return (
    <form className="form" onSubmit={submit} noValidate aria-label="Re-scope credential">
      {rescope.isError ? (
        <Alert tone="danger" title="The scope was not changed">
          {errorMessage(rescope.error)}
        </Alert>
      ) : null}
      <div className="field">
        <span className="field-label">Buckets</span>
        <div className={wizard.options}>
          <label className={wizard.option}>
            <input type="checkbox" checked={everyBucket} onChange={(event) => setEveryBucket(event.target.checked)} />
            <span className={wizard.optionBody}>
              <span className={wizard.optionTitle}>All buckets</span>
              <span className={wizard.optionMeta}>Present and future</span>
            </span>
          </label>
          {buckets.map((bucket) => (
            <label key={bucket.id} className={wizard.option}>
              <input
                type="checkbox"
                disabled={everyBucket}
                checked={everyBucket || chosen.has(bucket.id)}
                onChange={(event) => {
                  const next = new Set(chosen);
                  if (event.target.checked) next.add(bucket.id);
                  else next.delete(bucket.id);
                  setChosen(next);
                }}
              />
              <span className={wizard.optionBody}>
                <span className={`${wizard.optionTitle} mono`}>{bucket.name}</span>
              </span>
            </label>
          ))}
        </div>
        {noBucket ? <p className="field-error">Choose at least one bucket, or all buckets.</p> : null}
      </div>
      <div className="field">
        <span className="field-label">Access</span>
        <AccessChoice value={access} onChange={setAccess} />
      </div>
      <div className="form-actions" style={{ justifyContent: 'flex-end' }}>
        <Button variant="ghost" onClick={onDone}>
          Cancel
        </Button>
        <SubmitButton variant="primary" loading={rescope.isPending} disabled={noBucket}>
          Save scope
        </SubmitButton>
      </div>
    </form>
  );
}
