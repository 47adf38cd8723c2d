'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { useZodForm } from '../forms/useZodForm';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Input } from '../ui/Input';
import { SubmitButton } from '../ui/SubmitButton';
import { restoreForm } from './schemas';

/** The server's locale rule; a browser language it would refuse falls back to English. */
const LOCALE_PATTERN = /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/;

function browserLocale(): string {
  const language = typeof navigator === 'undefined' ? '' : navigator.language;
  return LOCALE_PATTERN.test(language) && language.length <= 35 ? language : 'en';
}

export function ForgotPasswordForm({ devMailbox }: { devMailbox: boolean }) {
  const trpc = useTRPC();
  const form = useZodForm(restoreForm);
  const restore = useMutation(trpc.accounts.restore.mutationOptions());
  const [sentTo, setSentTo] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = form.parse({ email: new FormData(event.currentTarget).get('email') });
    if (!input) return;
    try {
      await restore.mutateAsync({ email: input.email, locale: browserLocale() });
      setSentTo(input.email);
    } catch (error) {
      form.fail(error);
    }
  }

  if (sentTo) {
    return (
      <div className="stack">
        <Alert tone="success" title="Check your inbox">
          If an account exists for <strong>{sentTo}</strong>, we have sent it a link to choose a new password. The link works once.
        </Alert>
        {devMailbox ? (
          <Alert tone="info">
            This installation keeps email in its <Link href="/dev/mailbox">development mailbox</Link>.
          </Alert>
        ) : null}
        <p className="auth-footer">
          <Link href="/login">Back to sign in</Link>
        </p>
      </div>
    );
  }

  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      {form.formError ? <Alert tone="danger">{form.formError}</Alert> : null}
      <Input label="Email" name="email" type="email" autoComplete="email" autoFocus error={form.errors.email} />
      <SubmitButton variant="primary" block loading={restore.isPending}>
        Send reset link
      </SubmitButton>
      <p className="auth-footer" style={{ marginTop: 4 }}>
        Remembered it? <Link href="/login">Sign in</Link>
      </p>
    </form>
  );
}
