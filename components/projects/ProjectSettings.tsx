'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { billingEmailInput, renameProjectInput } from '@/server/domains/projects/schema';
import { useZodForm } from '../forms/useZodForm';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { Input } from '../ui/Input';
import { SubmitButton } from '../ui/SubmitButton';
import { PageHeader } from '../ui/PageHeader';
import { TypedConfirmDialog } from '../ui/TypedConfirmDialog';
import { useToast } from '../ui/Toast';
import { hasRole, useProject, type Project } from './ProjectContext';

export function ProjectSettings() {
  const project = useProject();
  const canEdit = hasRole(project, 'admin');
  return (
    <main className="page page-narrow" style={{ maxWidth: 760 }}>
      <PageHeader eyebrow={project.name} title="Settings" description="Name, billing contact and deletion of this project." />
      <div className="stack-lg">
        {canEdit ? null : <Alert tone="info">Only owners and admins can change these settings. Your role is {project.role}.</Alert>}
        <RenameCard project={project} disabled={!canEdit} />
        <BillingEmailCard project={project} disabled={!canEdit} />
        <DeleteCard project={project} />
      </div>
    </main>
  );
}

/** Project data is shared by every page under the project; refresh it everywhere after a change. */
function useRefreshProject() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.projects.list.queryKey() }),
    ]);
  };
}

function RenameCard({ project, disabled }: { project: Project; disabled: boolean }) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useRefreshProject();
  const form = useZodForm(renameProjectInput);
  const rename = useMutation(trpc.projects.rename.mutationOptions());

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = form.parse({ name: new FormData(event.currentTarget).get('name') });
    if (!input) return;
    try {
      const renamed = await rename.mutateAsync({ projectId: project.id, name: input.name });
      await refresh();
      toast.success(`Project renamed to ${renamed.name}`);
    } catch (error) {
      form.fail(error);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate>
      <Card
        title="Project name"
        description="Shown across the panel. The slug in URLs and API paths does not change."
        footer={
          <>
            <span className="muted">1 to 100 characters, unique among your projects.</span>
            <SubmitButton variant="primary" loading={rename.isPending} disabled={disabled}>
              Save name
            </SubmitButton>
          </>
        }
      >
        <div className="form">
          {form.formError ? <Alert tone="danger">{form.formError}</Alert> : null}
          <Input label="Name" name="name" defaultValue={project.name} maxLength={100} disabled={disabled} error={form.errors.name} />
        </div>
      </Card>
    </form>
  );
}

function BillingEmailCard({ project, disabled }: { project: Project; disabled: boolean }) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useRefreshProject();
  const form = useZodForm(billingEmailInput);
  const save = useMutation(trpc.projects.setBillingEmail.mutationOptions());

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const raw = String(new FormData(event.currentTarget).get('billingEmail') ?? '').trim();
    const input = form.parse({ billingEmail: raw === '' ? null : raw });
    if (!input) return;
    try {
      const saved = await save.mutateAsync({ projectId: project.id, billingEmail: input.billingEmail });
      await refresh();
      toast.success(saved.billingEmail ? `Invoices will go to ${saved.billingEmail}` : 'Invoices will go to the biller’s account email');
    } catch (error) {
      form.fail(error);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate>
      <Card
        title="Billing email"
        description="Where invoices and payment notices are sent. Leave it empty to use the account email of the member who holds billing."
        footer={
          <>
            <span className="muted">Up to 320 characters.</span>
            <SubmitButton variant="primary" loading={save.isPending} disabled={disabled}>
              Save billing email
            </SubmitButton>
          </>
        }
      >
        <div className="form">
          {form.formError ? <Alert tone="danger">{form.formError}</Alert> : null}
          <Input
            label="Billing email"
            name="billingEmail"
            type="email"
            optional
            defaultValue={project.billingEmail ?? ''}
            placeholder="billing@example.com"
            disabled={disabled}
            error={form.errors.billingEmail}
          />
        </div>
      </Card>
    </form>
  );
}

function DeleteCard({ project }: { project: Project }) {
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const remove = useMutation(trpc.projects.delete.mutationOptions());
  const isOwner = project.role === 'owner';

  function close() {
    setOpen(false);
    remove.reset();
  }

  async function confirm() {
    try {
      await remove.mutateAsync({ projectId: project.id });
    } catch {
      return;
    }
    toast.success(`Project ${project.name} was deleted`);
    router.replace('/projects');
    await queryClient.invalidateQueries({ queryKey: trpc.projects.list.queryKey() });
  }

  return (
    <>
      <Card
        tone="danger"
        title="Delete project"
        description="Deletes the project with its members, invitations and API keys, immediately and for good. Servers, domains, apps, buckets, registries and databases must be deleted first."
        footer={
          <>
            <span className="muted">{isOwner ? 'This cannot be undone.' : 'Only the owner can delete the project.'}</span>
            <Button variant="danger" onClick={() => setOpen(true)} disabled={!isOwner}>
              Delete project
            </Button>
          </>
        }
      />
      <TypedConfirmDialog
        open={open}
        onClose={close}
        title={`Delete ${project.name}?`}
        description="This deletes the project, its memberships, invitations and API keys. It cannot be undone."
        expected={project.name}
        confirmLabel="Delete this project"
        onConfirm={confirm}
        pending={remove.isPending}
        errorTitle="The project was not deleted"
        error={remove.isError ? errorMessage(remove.error) : null}
      />
    </>
  );
}
