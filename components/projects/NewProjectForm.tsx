'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import type { FormEvent } from 'react';
import { createProjectInput } from '@/server/domains/projects/schema';
import { useZodForm } from '../forms/useZodForm';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { ButtonLink } from '../ui/Button';
import { Input } from '../ui/Input';
import { SubmitButton } from '../ui/SubmitButton';

export function NewProjectForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const form = useZodForm(createProjectInput);
  const create = useMutation(trpc.projects.create.mutationOptions());

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = form.parse({ name: new FormData(event.currentTarget).get('name') });
    if (!input) return;
    try {
      const created = await create.mutateAsync(input);
      await queryClient.invalidateQueries({ queryKey: trpc.projects.list.queryKey() });
      router.push(`/projects/${created.projectId}`);
    } catch (error) {
      form.fail(error);
    }
  }

  return (
    <form className="card" onSubmit={onSubmit} noValidate>
      <div className="card-body form">
        {form.formError ? <Alert tone="danger">{form.formError}</Alert> : null}
        <Input
          label="Project name"
          name="name"
          autoFocus
          maxLength={100}
          placeholder="Acme production"
          error={form.errors.name}
          hint="Up to 100 characters. You can rename it later; its URL slug stays the same."
        />
      </div>
      <footer className="card-footer">
        <span className="muted">You will be the owner and the biller of this project.</span>
        <div className="row">
          <ButtonLink href="/projects" variant="ghost">
            Cancel
          </ButtonLink>
          <SubmitButton variant="primary" loading={create.isPending}>
            Create project
          </SubmitButton>
        </div>
      </footer>
    </form>
  );
}
