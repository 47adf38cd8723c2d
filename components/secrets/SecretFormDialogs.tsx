'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { createSecretInput, ENVIRONMENTS, SECRET_VALUE_MAX, updateSecretInput, type Environment } from '@/server/domains/secrets/schema';
import { useZodForm } from '../forms/useZodForm';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { Input } from '../ui/Input';
import { SecretDialog } from '../ui/SecretDialog';
import { Select } from '../ui/Select';
import { SubmitButton } from '../ui/SubmitButton';
import { ENVIRONMENT_LABELS } from '../configuration/environments';
import type { SecretRow } from './secretRow';
import styles from './secrets.module.css';

interface Revealed {
  title: string;
  value: string;
}

const ONCE = 'You will not see this value again: copy it now. To change it later, replace it with a new value.';

/** Creates a secret, then shows its value once; the value is dropped from memory when the dialog closes. */
export function CreateSecretDialog({
  projectId,
  environment,
  open,
  onClose,
}: {
  projectId: string;
  environment: Environment;
  open: boolean;
  onClose: () => void;
}) {
  const [revealed, setRevealed] = useState<Revealed | null>(null);

  function close() {
    setRevealed(null);
    onClose();
  }

  if (revealed) {
    return <SecretDialog open title={revealed.title} description={ONCE} secret={revealed.value} secretTestId="secret-value-once" onClose={close} />;
  }
  return (
    <Dialog open={open} onClose={close} title="New secret" description="Encrypted at rest. Deployments receive it as an environment variable of the same name.">
      {open ? <CreateForm projectId={projectId} environment={environment} onCancel={close} onCreated={setRevealed} /> : null}
    </Dialog>
  );
}

function CreateForm({
  projectId,
  environment,
  onCancel,
  onCreated,
}: {
  projectId: string;
  environment: Environment;
  onCancel: () => void;
  onCreated: (revealed: Revealed) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(trpc.secrets.create.mutationOptions());
  const form = useZodForm(createSecretInput);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const description = String(data.get('description') ?? '');
    const input = form.parse({
      name: data.get('name'),
      value: data.get('value'),
      description: description === '' ? undefined : description,
      environment: data.get('environment'),
    });
    if (!input) return;
    try {
      const created = await create.mutateAsync({ projectId, ...input });
      await queryClient.invalidateQueries({ queryKey: trpc.secrets.pathKey() });
      onCreated({ title: `Secret ${created.name} created (${created.maskedValue})`, value: created.value });
    } catch (error) {
      form.fail(error);
    }
  }

  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      {form.formError ? <Alert tone="danger">{form.formError}</Alert> : null}
      <Input
        label="Name"
        name="name"
        placeholder="DATABASE_URL"
        autoFocus
        autoComplete="off"
        spellCheck={false}
        error={form.errors.name}
        hint="Upper-case letters, digits and underscores, starting with a letter."
      />
      <ValueField error={form.errors.value} />
      <Input label="Description" name="description" optional maxLength={500} error={form.errors.description} />
      <Select
        label="Environment"
        name="environment"
        defaultValue={environment}
        options={ENVIRONMENTS.map((env) => ({ value: env, label: ENVIRONMENT_LABELS[env] }))}
        error={form.errors.environment}
        hint="Default applies to every environment that has no secret of the same name."
      />
      <div className="form-actions" style={{ justifyContent: 'flex-end' }}>
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <SubmitButton variant="primary" loading={create.isPending}>
          Create secret
        </SubmitButton>
      </div>
    </form>
  );
}

/** Replaces a secret's value (one version up), then shows the new value once. */
export function UpdateSecretDialog({ projectId, secret, onClose }: { projectId: string; secret: SecretRow | null; onClose: () => void }) {
  const [revealed, setRevealed] = useState<Revealed | null>(null);

  function close() {
    setRevealed(null);
    onClose();
  }

  if (revealed) {
    return <SecretDialog open title={revealed.title} description={ONCE} secret={revealed.value} secretTestId="secret-value-once" onClose={close} />;
  }
  return (
    <Dialog
      open={secret !== null}
      onClose={close}
      title={`Update ${secret?.name ?? ''}`}
      description="The new value replaces the old one for good; deployments receive it from their next start."
    >
      {secret ? <UpdateForm key={secret.id} projectId={projectId} secret={secret} onCancel={close} onUpdated={setRevealed} /> : null}
    </Dialog>
  );
}

function UpdateForm({
  projectId,
  secret,
  onCancel,
  onUpdated,
}: {
  projectId: string;
  secret: SecretRow;
  onCancel: () => void;
  onUpdated: (revealed: Revealed) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const update = useMutation(trpc.secrets.update.mutationOptions());
  const form = useZodForm(updateSecretInput);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const input = form.parse({ value: data.get('value'), description: String(data.get('description') ?? '') });
    if (!input) return;
    try {
      const updated = await update.mutateAsync({ projectId, secretId: secret.id, ...input });
      await queryClient.invalidateQueries({ queryKey: trpc.secrets.pathKey() });
      onUpdated({ title: `Secret ${updated.name} updated to version ${updated.version}`, value: updated.value });
    } catch (error) {
      form.fail(error);
    }
  }

  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      {form.formError ? <Alert tone="danger">{form.formError}</Alert> : null}
      <ValueField error={form.errors.value} label="New value" />
      <Input label="Description" name="description" optional maxLength={500} defaultValue={secret.description} error={form.errors.description} />
      <div className="form-actions" style={{ justifyContent: 'flex-end' }}>
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <SubmitButton variant="primary" loading={update.isPending}>
          Replace value
        </SubmitButton>
      </div>
    </form>
  );
}

function ValueField({ error, label = 'Value' }: { error?: string; label?: string }) {
  const id = useId();
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <textarea
        id={id}
        name="value"
        className={styles.textarea}
        maxLength={SECRET_VALUE_MAX}
        autoComplete="off"
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
      />
      <p id={`${id}-hint`} className="field-hint">
        Up to {SECRET_VALUE_MAX.toLocaleString('en')} characters. Shown once after saving, then never again.
      </p>
      {error ? (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
