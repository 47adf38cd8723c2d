'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import type { FormEvent } from 'react';
import { accountNameForm, changePasswordForm } from '../auth/schemas';
import { AccountInvoicesCard } from '../billing/AccountInvoicesCard';
import { formatDate } from '../format';
import { signInWithPassword } from '../auth/signInWithPassword';
import { useZodForm } from '../forms/useZodForm';
import { useSignedInAccount, type SignedInAccount } from '../shell/SignedInAccount';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Badge } from '../ui/Badge';
import { Card } from '../ui/Card';
import { Input } from '../ui/Input';
import { SubmitButton } from '../ui/SubmitButton';
import { PageHeader } from '../ui/PageHeader';
import { useToast } from '../ui/Toast';
import { ResendVerificationButton } from './ResendVerificationButton';

export function AccountSettings() {
  const account = useSignedInAccount();
  return (
    <main className="page page-narrow" style={{ maxWidth: 760 }}>
      <PageHeader title="Account" description="Your profile, sign-in details and billing history. They apply to every project you belong to." />
      <div className="stack-lg">
        <ProfileCard account={account} />
        <EmailCard account={account} />
        <PasswordCard account={account} />
        <AccountInvoicesCard />
      </div>
    </main>
  );
}

function ProfileCard({ account }: { account: SignedInAccount }) {
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const form = useZodForm(accountNameForm);
  const updateName = useMutation(trpc.accounts.updateName.mutationOptions());

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = form.parse({ name: new FormData(event.currentTarget).get('name') });
    if (!input) return;
    try {
      const updated = await updateName.mutateAsync(input);
      toast.success(`Your name is now ${updated.name}`);
      router.refresh();
    } catch (error) {
      form.fail(error);
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate>
      <Card
        title="Profile"
        description="Your name is shown to the members of your projects and on invitations you send."
        footer={
          <>
            <span className="muted">Up to 100 characters.</span>
            <SubmitButton variant="primary" loading={updateName.isPending}>
              Save name
            </SubmitButton>
          </>
        }
      >
        <div className="form">
          {form.formError ? <Alert tone="danger">{form.formError}</Alert> : null}
          <div className="form-grid">
            <Input label="Name" name="name" autoComplete="name" defaultValue={account.name} maxLength={100} error={form.errors.name} />
            <Input label="Email" name="email" type="email" value={account.email} readOnly disabled hint="Used to sign in and to receive invitations." />
          </div>
        </div>
      </Card>
    </form>
  );
}

function EmailCard({ account }: { account: SignedInAccount }) {
  const verifiedAt = account.emailVerifiedAt;
  return (
    <Card
      aria-label="Email address"
      title="Email address"
      description="Verifying it proves the address is yours."
      actions={verifiedAt ? <Badge tone="success">Verified</Badge> : <Badge tone="warning">Not verified</Badge>}
    >
      {verifiedAt ? (
        <p className="secondary">
          <strong>{account.email}</strong> was verified on {formatDate(verifiedAt)}.
        </p>
      ) : (
        <div className="stack">
          <p className="secondary">
            We sent a link to <strong>{account.email}</strong>. Open it to verify the address: until then, invitations sent to it cannot be accepted. Each link
            works once and expires after 24 hours.
          </p>
          <div>
            <ResendVerificationButton email={account.email} />
          </div>
        </div>
      )}
    </Card>
  );
}

function PasswordCard({ account }: { account: SignedInAccount }) {
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const form = useZodForm(changePasswordForm);
  const changePassword = useMutation(trpc.accounts.changePassword.mutationOptions());

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const data = new FormData(element);
    const input = form.parse({
      currentPassword: data.get('currentPassword'),
      newPassword: data.get('newPassword'),
      confirmPassword: data.get('confirmPassword'),
    });
    if (!input) return;
    try {
      await changePassword.mutateAsync({ currentPassword: input.currentPassword, newPassword: input.newPassword });
    } catch (error) {
      form.fail(error);
      return;
    }
    // The change ended every session, this one included; sign in again with the new password.
    if ((await signInWithPassword(account.email, input.newPassword)).ok) {
      element.reset();
      toast.success('Password changed. Other devices have been signed out.');
      router.refresh();
      return;
    }
    window.location.assign('/login?passwordChanged=1');
  }

  return (
    <form onSubmit={onSubmit} noValidate>
      <Card
        title="Password"
        description="Changing it signs you out everywhere else."
        footer={
          <>
            <span className="muted">At least 10 characters.</span>
            <SubmitButton variant="primary" loading={changePassword.isPending}>
              Change password
            </SubmitButton>
          </>
        }
      >
        <div className="form">
          {form.formError ? <Alert tone="danger">{form.formError}</Alert> : null}
          <input type="email" name="username" autoComplete="username" value={account.email} readOnly hidden />
          <Input label="Current password" name="currentPassword" type="password" autoComplete="current-password" error={form.errors.currentPassword} />
          <div className="form-grid">
            <Input label="New password" name="newPassword" type="password" autoComplete="new-password" error={form.errors.newPassword} />
            <Input label="Confirm new password" name="confirmPassword" type="password" autoComplete="new-password" error={form.errors.confirmPassword} />
          </div>
        </div>
      </Card>
    </form>
  );
}
