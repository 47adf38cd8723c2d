'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { useZodForm } from '../forms/useZodForm';
import { Alert } from '../ui/Alert';
import { Input } from '../ui/Input';
import { SubmitButton } from '../ui/SubmitButton';
import { withCallback } from './callbackUrl';
import { signInForm } from './schemas';
import { signInWithPassword, type SignInOutcome } from './signInWithPassword';

export type LoginNotice = 'reset' | 'expired' | 'password-changed' | null;

const NOTICES: Record<Exclude<LoginNotice, null>, { tone: 'success' | 'info'; text: string }> = {
  reset: { tone: 'success', text: 'Your password has been changed. Sign in with the new one.' },
  'password-changed': { tone: 'success', text: 'Your password has been changed. Sign in again to continue.' },
  expired: { tone: 'info', text: 'Your session has ended. Sign in again to continue.' },
};

export function LoginForm({ callbackUrl, notice }: { callbackUrl: string; notice: LoginNotice }) {
  const router = useRouter();
  const form = useZodForm(signInForm);
  const [submitting, setSubmitting] = useState(false);
  const [failure, setFailure] = useState<SignInOutcome | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const input = form.parse({ email: data.get('email'), password: data.get('password') });
    if (!input) return;
    setSubmitting(true);
    setFailure(null);
    try {
      const outcome = await signInWithPassword(input.email, input.password);
      if (outcome.ok) {
        router.replace(callbackUrl);
        router.refresh();
        return;
      }
      setFailure(outcome);
    } catch {
      form.fail(new Error('Could not reach the server. Check your connection and try again.'));
    }
    setSubmitting(false);
  }

  const shownNotice = notice ? NOTICES[notice] : null;
  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      {shownNotice ? <Alert tone={shownNotice.tone}>{shownNotice.text}</Alert> : null}
      {failure?.retryAfterSeconds ? (
        <Alert tone="danger" title="Sign-in paused">
          Too many failed attempts for this account or from your network. Try again in {waitText(failure.retryAfterSeconds)}, or reset your password.
        </Alert>
      ) : failure ? (
        <Alert tone="danger">The email or password is not correct.</Alert>
      ) : null}
      {form.formError ? <Alert tone="danger">{form.formError}</Alert> : null}
      <Input label="Email" name="email" type="email" autoComplete="email" autoFocus error={form.errors.email} />
      <Input
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        error={form.errors.password}
        hint={<Link href="/forgot-password">Forgot your password?</Link>}
      />
      <SubmitButton variant="primary" block loading={submitting}>
        Sign in
      </SubmitButton>
      <p className="auth-footer" style={{ marginTop: 4 }}>
        New here? <Link href={withCallback('/signup', callbackUrl)}>Create an account</Link>
      </p>
    </form>
  );
}

/** "45 seconds", "1 minute", "2 minutes": rounded up, so waiting that long is enough. */
function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
