'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { Scope } from '@/server/platform/auth/scopes';
import { createApiKeyInput } from '@/server/domains/apiKeys/schema';
import { useZodForm } from '../forms/useZodForm';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { Input } from '../ui/Input';
import { SubmitButton } from '../ui/SubmitButton';
import { ScopePicker } from './ScopePicker';

/** The last moment of the chosen day in the user's time zone, so "expires on 3 May" includes 3 May. */
function endOfLocalDay(date: string): string {
  return new Date(`${date}T23:59:59.999`).toISOString();
}

function todayLocal(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

export function CreateApiKeyDialog({
  projectId,
  open,
  onClose,
  onCreated,
}: {
  projectId: string;
  open: boolean;
  onClose: () => void;
  onCreated: (created: { name: string; key: string }) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useZodForm(createApiKeyInput);
  const create = useMutation(trpc.apiKeys.create.mutationOptions());
  const [scopes, setScopes] = useState<Set<Scope>>(new Set());

  function close() {
    setScopes(new Set());
    form.clear();
    onClose();
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const expiry = String(data.get('expiresOn') ?? '');
    const input = form.parse({
      name: data.get('name'),
      scopes: [...scopes],
      expiresAt: expiry ? endOfLocalDay(expiry) : undefined,
    });
    if (!input) return;
    try {
      const created = await create.mutateAsync({ projectId, ...input });
      await queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey({ projectId }) });
      setScopes(new Set());
      form.clear();
      onCreated({ name: created.name, key: created.key });
    } catch (error) {
      form.fail(error);
    }
  }

  return (
    <Dialog
      open={open}
      onClose={close}
      title="Create an API key"
      description="A key reaches only this project and can do only what its scopes allow, with your role in the project."
    >
      <form className="form" onSubmit={onSubmit} noValidate>
        {form.formError ? <Alert tone="danger">{form.formError}</Alert> : null}
        <div className="form-grid">
          <Input label="Name" name="name" placeholder="CI deploys" maxLength={64} autoFocus error={form.errors.name} />
          <Input
            label="Expires on"
            name="expiresOn"
            type="date"
            min={todayLocal()}
            optional
            error={form.errors.expiresAt}
            hint="Leave empty for a key that does not expire."
          />
        </div>
        <ScopePicker value={scopes} onChange={setScopes} error={form.errors.scopes} />
        <div className="form-actions" style={{ justifyContent: 'flex-end' }}>
          <Button variant="ghost" onClick={close}>
            Cancel
          </Button>
          <SubmitButton variant="primary" loading={create.isPending}>
            Create key
          </SubmitButton>
        </div>
      </form>
    </Dialog>
  );
}
