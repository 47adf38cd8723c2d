'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import type { FormEvent } from 'react';
import { useZodForm } from '../forms/useZodForm';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Input } from '../ui/Input';
import { SubmitButton } from '../ui/SubmitButton';
import { newPasswordForm } from './schemas';

export function ResetPasswordForm({ token }: { token: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const form = useZodForm(newPasswordForm);
  const complete = useMutation(trpc.accounts.completeRestore.mutationOptions());

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const input = form.parse({ password: data.get('password'), confirmPassword: data.get('confirmPassword') });
    if (!input) return;
    try {
      await complete.mutateAsync({ token, password: input.password });
      router.replace('/login?reset=1');
    } catch (error) {
      form.fail(error);
    }
  }

  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      {form.formError ? (
        <Alert tone="danger">
          {form.formError} <Link href="/forgot-password">Request a new link</Link>
        </Alert>
      ) : null}
      <Input
        label="New password"
        name="password"
        type="password"
        autoComplete="new-password"
        autoFocus
        error={form.errors.password}
        hint="At least 10 characters. Every signed-in session will end."
      />
      <Input label="Confirm new password" name="confirmPassword" type="password" autoComplete="new-password" error={form.errors.confirmPassword} />
      <SubmitButton variant="primary" block loading={complete.isPending}>
        Set new password
      </SubmitButton>
    </form>
  );
}
