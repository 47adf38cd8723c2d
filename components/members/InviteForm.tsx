'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { createInvitationInput } from '@/server/domains/invitations/schema';
import { ROLE_LABELS } from '../format';
import { useZodForm } from '../forms/useZodForm';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Card } from '../ui/Card';
import { Input } from '../ui/Input';
import { SubmitButton } from '../ui/SubmitButton';
import { Select } from '../ui/Select';
import { useToast } from '../ui/Toast';

const INVITABLE_ROLES = createInvitationInput.shape.role.options;

export function InviteForm({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const form = useZodForm(createInvitationInput);
  const invite = useMutation(trpc.invitations.create.mutationOptions());

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const data = new FormData(element);
    const input = form.parse({ email: data.get('email'), role: data.get('role') });
    if (!input) return;
    try {
      const invitation = await invite.mutateAsync({ projectId, ...input });
      await queryClient.invalidateQueries({ queryKey: trpc.invitations.listForProject.queryKey({ projectId }) });
      toast.success(`Invitation sent to ${invitation.email}`);
      element.reset();
    } catch (error) {
      form.fail(error);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate>
      <Card title="Invite a teammate" description="They get an email with a link to accept. Invitations expire after a week.">
        <div className="form">
          {form.formError ? <Alert tone="danger">{form.formError}</Alert> : null}
          <div className="invite-row">
            <Input label="Email" name="email" type="email" placeholder="teammate@example.com" autoComplete="off" error={form.errors.email} />
            <Select
              label="Role"
              name="role"
              defaultValue="member"
              error={form.errors.role}
              options={INVITABLE_ROLES.map((role) => ({ value: role, label: ROLE_LABELS[role] }))}
            />
            <SubmitButton variant="primary" loading={invite.isPending}>
              Send invitation
            </SubmitButton>
          </div>
        </div>
      </Card>
    </form>
  );
}
