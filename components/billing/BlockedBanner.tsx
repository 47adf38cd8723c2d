'use client';

import { useQuery } from '@tanstack/react-query';
import { formatDate } from '../format';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { formatMinorUnits } from '../ui/money';
import { cardLabel, periodLabel } from './format';
import type { BillingOverview } from './types';
import { usePayInvoice } from './usePayInvoice';
import styles from './billing.module.css';

/** The server's reason is a phrase ("Unpaid invoice for 2026-10"); more text follows it here. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/**
 * Shown while the project is blocked. Unpaid invoices are paid oldest first: the project unblocks
 * once the last of them is paid, so the oldest is the one to point at.
 */
export function BlockedBanner({ projectId, overview }: { projectId: string; overview: BillingOverview }) {
  const trpc = useTRPC();
  const invoices = useQuery(trpc.billing.listInvoices.queryOptions({ projectId }));
  const payment = usePayInvoice(projectId);
  const unpaid = (invoices.data ?? []).filter((invoice) => invoice.status === 'failed').sort((a, b) => a.period.localeCompare(b.period));
  const invoice = unpaid[0];
  const card = overview.defaultPaymentMethod;

  return (
    <Alert tone="danger" title="This project is blocked">
      <div className={styles.blocked}>
        <p>
          {sentence(overview.blockedReason ?? 'Billing has stopped this project')}
          {overview.blockedAt ? ` Since ${formatDate(overview.blockedAt)}.` : null} New paid resources cannot be created until it is paid.
        </p>
        {invoice ? (
          <div className={styles.blockedInvoice}>
            <span>
              <strong>
                {periodLabel(invoice.period)}: {formatMinorUnits(invoice.total, invoice.currency)}
              </strong>
              {invoice.failureCode ? ` — ${invoice.failureCode.replace(/_/g, ' ')}` : null}
              {unpaid.length > 1 ? ` (${unpaid.length - 1} more unpaid after it)` : null}
              <br />
              <span>{card ? `Pay now charges ${cardLabel(card)}.` : 'Add a card below first, then pay.'}</span>
            </span>
            <Button variant="danger" onClick={() => payment.pay(invoice.id)} loading={payment.pending} disabled={!card}>
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
