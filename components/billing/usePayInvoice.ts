'use client';

import { useMutation } from '@tanstack/react-query';
import { formatMinorUnits } from '../ui/money';
import { useToast } from '../ui/Toast';
import { useTRPC } from '../trpc/TrpcProvider';
import { periodLabel } from './format';
import { useBillingRefresh } from './useBillingRefresh';

/** Charges the biller's default card for a failed invoice; a refusal stays in `error` for the caller to show. */
export function usePayInvoice(projectId: string) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useBillingRefresh(projectId);
  const mutation = useMutation(trpc.billing.payInvoice.mutationOptions());

  function pay(invoiceId: string): void {
    mutation.mutate(
      { projectId, invoiceId },
      {
        onSuccess: (paid) => toast.success(`Invoice for ${periodLabel(paid.period)} paid: ${formatMinorUnits(paid.total, paid.currency)}`),
        // A declined retry is recorded on the invoice as well (attempts, failure code), so both outcomes refresh.
        onSettled: () => refresh(),
      },
    );
  }

  return { pay, pending: mutation.isPending, error: mutation.error, reset: mutation.reset };
}
