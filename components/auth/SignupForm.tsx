'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { useZodForm } from '../forms/useZodForm';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Input } from '../ui/Input';
import { SubmitButton } from '../ui/SubmitButton';
import { withCallback } from './callbackUrl';
import { signUpForm } from './schemas';
import { signInWithPassword } from './signInWithPassword';

export function SignupForm({ callbackUrl }: { callbackUrl: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const form = useZodForm(signUpForm);
  const createAccount = useMutation(trpc.accounts.create.mutationOptions());
  const [signingIn, setSigningIn] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const input = form.parse({ name: data.get('name'), email: data.get('email'), password: data.get('password') });
    if (!input) return;
    try {
      await createAccount.mutateAsync(input);
    } catch (error) {
      form.fail(error);
      return;
    }
    setSigningIn(true);
    if ((await signInWithPassword(input.email, input.password)).ok) {
      router.replace(callbackUrl);
      router.refresh();
      return;
    }
    router.replace(withCallback('/login', callbackUrl));
  }

  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      {form.formError ? <Alert tone="danger">{form.formError}</Alert> : null}
      <Input label="Full name" name="name" autoComplete="name" autoFocus error={form.errors.name} />
      <Input label="Work email" name="email" type="email" autoComplete="email" error={form.errors.email} />
      <Input label="Password" name="password" type="password" autoComplete="new-password" error={form.errors.password} hint="At least 10 characters." />
      <SubmitButton variant="primary" block loading={createAccount.isPending || signingIn}>
        Create account
      </SubmitButton>
      <p className="auth-footer" style={{ marginTop: 4 }}>
        Already have an account? <Link href={withCallback('/login', callbackUrl)}>Sign in</Link>
      </p>
    </form>
  );
}
