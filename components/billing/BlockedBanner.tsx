'use client';

import { useQuery } from '@tanstack/react-query';
import { formatDate } from '../format';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { formatMinorUnits } from '../ui/money';
import { cardLabel, periodLabel } from './format';
import { sentence } from './ProjectBillingAlert';
import type { BillingOverview } from './types';
import { usePayInvoice } from './usePayInvoice';
import styles from './billing.module.css';

/**
 * Shown while an invoice is unpaid: the project is blocked, and suspended once the grace period has
 * passed. Unpaid invoices are paid oldest first: the project is released once the last of them is
 * paid, so the oldest is the one to point at.
 */
export function BlockedBanner({ projectId, overview, isBiller }: { projectId: string; overview: BillingOverview; isBiller: boolean }) {
  const trpc = useTRPC();
  const invoices = useQuery(trpc.billing.listInvoices.queryOptions({ projectId }));
  const payment = usePayInvoice(projectId);
  const unpaid = (invoices.data ?? []).filter((invoice) => invoice.status === 'failed').sort((a, b) => a.period.localeCompare(b.period));
  const invoice = unpaid[0];
  const reason = sentence(overview.blockedReason ?? 'An invoice is unpaid');

  return (
    <Alert tone="danger" title={overview.suspendedAt ? 'This project is suspended' : 'This project is blocked'}>
      <div className={styles.blocked}>
        {overview.suspendedAt ? (
          <p>
            {reason} Since {formatDate(overview.suspendedAt)} its servers are powered off and cannot be started. Nothing has been deleted: paying the invoice
            powers them back on.
          </p>
        ) : (
          <p>
            {reason}
            {overview.blockedAt ? ` Since ${formatDate(overview.blockedAt)}.` : null} New paid resources cannot be created until it is paid.
            {overview.suspendsAt
              ? ` If it is still unpaid on ${formatDate(overview.suspendsAt)}, the project is suspended and its servers are powered off.`
              : null}
          </p>
        )}
        {invoice ? (
          <div className={styles.blockedInvoice}>
            <span>
              <strong>
                {periodLabel(invoice.period)}: {formatMinorUnits(invoice.total, invoice.currency)}
              </strong>
              {invoice.failureCode ? ` — ${invoice.failureCode.replace(/_/g, ' ')}` : null}
              {unpaid.length > 1 ? ` (${unpaid.length - 1} more unpaid after it)` : null}
              <br />
              <span>
                {payWith(overview, isBiller)}
                {invoice.nextAttemptAt ? ` Otherwise it is charged again automatically on ${formatDate(invoice.nextAttemptAt)}.` : null}
              </span>
            </span>
            <Button variant="danger" onClick={() => payment.pay(invoice.id)} loading={payment.pending} disabled={!overview.billerHasPaymentMethod}>
              Pay now
            </Button>
          </div>
        ) : null}
        {payment.error ? (
          <p className={styles.blockedError} role="alert">
            {errorMessage(payment.error)}
          </p>
        ) : null}
      </div>
    </Alert>
  );
}

/** What Pay now charges, as far as the caller may know: only the biller sees their card. */
function payWith(overview: BillingOverview, isBiller: boolean): string {
  if (overview.defaultPaymentMethod) return `Pay now charges ${cardLabel(overview.defaultPaymentMethod)}.`;
  if (overview.billerHasPaymentMethod) return `Pay now charges ${overview.biller.name}'s default card.`;
  return isBiller ? 'Add a card below first, then pay.' : `${overview.biller.name} holds billing and must add a card first.`;
}
