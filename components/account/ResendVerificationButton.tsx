'use client';

import { useMutation } from '@tanstack/react-query';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Button, type ButtonVariant } from '../ui/Button';
import { useToast } from '../ui/Toast';

/** Mails a new verification link to the signed-in account; the answer shows as a toast. */
export function ResendVerificationButton({ email, variant = 'secondary', size }: { email: string; variant?: ButtonVariant; size?: 'sm' | 'md' }) {
  const trpc = useTRPC();
  const toast = useToast();
  const resend = useMutation(trpc.accounts.resendVerification.mutationOptions());

  async function onClick() {
    try {
      await resend.mutateAsync({});
      toast.success(`We sent a new verification link to ${email}`);
    } catch (error) {
      toast.error(errorMessage(error));
    }
  }

  return (
    <Button variant={variant} size={size} onClick={onClick} loading={resend.isPending}>
      Resend verification email
    </Button>
  );
}
