import type { Metadata } from 'next';
import { connection } from 'next/server';
import { AuthCard } from '@/components/auth/AuthCard';
import { ForgotPasswordForm } from '@/components/auth/ForgotPasswordForm';
import { devMailboxReadable } from '@/server/providers/mailer';

export const metadata: Metadata = { title: 'Reset your password' };

export default async function ForgotPasswordPage() {
  // Which mailer runs is deployment configuration, read per request rather than baked in at build.
  await connection();
  return (
    <AuthCard title="Reset your password" subtitle="Enter the email of your account and we will send you a link to choose a new password.">
      <ForgotPasswordForm devMailbox={devMailboxReadable()} />
    </AuthCard>
  );
}
