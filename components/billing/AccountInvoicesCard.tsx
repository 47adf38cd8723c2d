'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { formatDate } from '../format';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { Card } from '../ui/Card';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { formatMinorUnits } from '../ui/money';
import type { Column } from '../ui/Table';
import { periodLabel } from './format';
import type { AccountInvoice } from './types';
import styles from './billing.module.css';

/** Every invoice the account's cards paid, in any project: the one place a deleted project's invoices stay readable. */
export function AccountInvoicesCard() {
  const trpc = useTRPC();
  const invoices = useQuery(trpc.billing.accountInvoices.queryOptions({}));

  const columns: Column<AccountInvoice>[] = [
    {
      header: 'Project',
      cell: (invoice) =>
        invoice.projectId ? (
          <Link href={`/projects/${invoice.projectId}/billing`}>{invoice.projectName}</Link>
        ) : (
          <span className="row" style={{ gap: 6 }}>
            {invoice.projectName}
            <Badge tone="neutral">Deleted</Badge>
          </span>
        ),
    },
    { header: 'Period', cell: (invoice) => periodLabel(invoice.period) },
    { header: 'Total', cell: (invoice) => <span className={styles.figure}>{formatMinorUnits(invoice.total, invoice.currency)}</span> },
    { header: 'Paid', className: 'hide-xs', cell: (invoice) => (invoice.paidAt ? formatDate(invoice.paidAt) : null) },
  ];

  return (
    <Card
      flush
      title="Billing history"
      aria-label="Billing history"
      description="Invoices paid with your cards, in every project you held billing for. Invoices are kept after a project is deleted."
    >
      <DataList
        label="Invoices"
        query={invoices}
        columns={columns}
        rowKey={(invoice) => invoice.id}
        empty={<EmptyState icon="receipt" title="No invoices paid yet" description="Invoices your cards pay at each month's close appear here." />}
      />
    </Card>
  );
}
