'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { createWebhookEndpointInput, type WebhookEndpointWithSecret } from '@/server/domains/webhooks/schema';
import { useZodForm } from '../forms/useZodForm';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { Input } from '../ui/Input';
import { SecretDialog } from '../ui/SecretDialog';
import { SubmitButton } from '../ui/SubmitButton';
import { EventPicker } from './EventPicker';

/** Asks for a URL, the events and a description; then shows the signing secret, once. */
export function CreateEndpointDialog({ projectId, open, onClose }: { projectId: string; open: boolean; onClose: () => void }) {
  const [created, setCreated] = useState<WebhookEndpointWithSecret | null>(null);

  function close() {
    setCreated(null);
    onClose();
  }

  if (created) {
    return (
      <SecretDialog
        open
        title="Endpoint added"
        description={`Deliveries to ${created.url} are signed with this secret (Standard Webhooks). Use it to verify the webhook-signature header.`}
        secret={created.secret}
        secretTestId="webhook-secret"
        onClose={close}
      />
    );
  }
  return (
    <Dialog
      open={open}
      onClose={close}
      title="Add a webhook endpoint"
      description="We POST each subscribed event to this URL, signed, and retry failed deliveries for about a day."
    >
      {open ? <CreateForm projectId={projectId} onCancel={close} onCreated={setCreated} /> : null}
    </Dialog>
  );
}

function CreateForm({ projectId, onCancel, onCreated }: { projectId: string; onCancel: () => void; onCreated: (endpoint: WebhookEndpointWithSecret) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const catalogue = useQuery(trpc.webhooks.eventTypes.queryOptions({}));
  const create = useMutation(trpc.webhooks.create.mutationOptions());
  const form = useZodForm(createWebhookEndpointInput);
  const [events, setEvents] = useState<Set<string>>(new Set());

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const input = form.parse({ url: data.get('url'), description: data.get('description') || undefined, events: [...events] });
    if (!input) return;
    try {
      const endpoint = await create.mutateAsync({ projectId, ...input });
      await queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey({ projectId }) });
      onCreated(endpoint);
    } catch (error) {
      form.fail(error);
    }
  }

  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      {form.formError ? <Alert tone="danger">{form.formError}</Alert> : null}
      {catalogue.isError ? <Alert tone="danger">The event types could not be loaded. Choose “All events” or try again.</Alert> : null}
      <Input
        label="URL"
        name="url"
        type="url"
        placeholder="https://example.com/webhooks"
        autoFocus
        error={form.errors.url}
        hint="An https:// address on the public internet."
      />
      <Input label="Description" name="description" optional maxLength={500} placeholder="Order sync" error={form.errors.description} />
      <EventPicker catalogue={catalogue.data} value={events} onChange={setEvents} error={form.errors.events} />
      <div className="form-actions" style={{ justifyContent: 'flex-end' }}>
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <SubmitButton variant="primary" loading={create.isPending}>
          Add endpoint
        </SubmitButton>
      </div>
    </form>
  );
}
