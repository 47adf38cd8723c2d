'use client';

import { skipToken, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { formatDate } from '../format';
import { LoadFailed } from '../ui/LoadFailed';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Badge, type BadgeTone } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { DataList } from '../ui/DataList';
import { Dialog } from '../ui/Dialog';
import { EmptyState } from '../ui/EmptyState';
import { formatMinorUnits } from '../ui/money';
import { Skeleton } from '../ui/Skeleton';
import type { Column } from '../ui/Table';
import { CATEGORY_STYLE, CHARGE_CATEGORIES, type ChargeCategory } from './ChargeChart';
import { cardLabel, periodLabel } from './format';
import type { BillingOverview, Invoice, InvoiceWithLines } from './types';
import { usePayInvoice } from './usePayInvoice';
import styles from './billing.module.css';

const STATUS: Record<Invoice['status'], { label: string; tone: BadgeTone }> = {
  paid: { label: 'Paid', tone: 'success' },
  failed: { label: 'Failed', tone: 'danger' },
  open: { label: 'Open', tone: 'neutral' },
};

function isChargeCategory(value: string): value is ChargeCategory {
  return (CHARGE_CATEGORIES as readonly string[]).includes(value);
}

function categoryLabel(category: string): string {
  return isChargeCategory(category) ? CATEGORY_STYLE[category].label : category;
}

function InvoiceStatusBadge({ status }: { status: Invoice['status'] }) {
  return <Badge tone={STATUS[status].tone}>{STATUS[status].label}</Badge>;
}

export function InvoicesCard({ projectId, overview }: { projectId: string; overview: BillingOverview | undefined }) {
  const trpc = useTRPC();
  const invoices = useQuery(trpc.billing.listInvoices.queryOptions({ projectId }));
  const [openId, setOpenId] = useState<string | null>(null);

  const columns: Column<Invoice>[] = [
    {
      header: 'Period',
      cell: (invoice) => (
        <button type="button" className={styles.linkButton} onClick={() => setOpenId(invoice.id)} aria-label={`Invoice for ${periodLabel(invoice.period)}`}>
          {periodLabel(invoice.period)}
        </button>
      ),
    },
    {
      header: 'Status',
      cell: (invoice) => (
        <div>
          <InvoiceStatusBadge status={invoice.status} />
          {invoice.status === 'failed' && invoice.nextAttemptAt ? <div className="cell-sub">Next retry {formatDate(invoice.nextAttemptAt)}</div> : null}
        </div>
      ),
    },
    { header: 'Total', cell: (invoice) => <span className={styles.figure}>{formatMinorUnits(invoice.total, invoice.currency)}</span> },
    {
      header: 'Paid',
      className: 'hide-xs',
      cell: (invoice) => (invoice.paidAt ? formatDate(invoice.paidAt) : <span className="muted">—</span>),
    },
  ];

  return (
    <>
      <Card flush title="Invoices" aria-label="Invoices" description="One per month, newest first. Open an invoice to see its lines.">
        <DataList
          label="Invoices"
          query={invoices}
          columns={columns}
          rowKey={(invoice) => invoice.id}
          onRowClick={(invoice) => setOpenId(invoice.id)}
          empty={
            <EmptyState
              icon="receipt"
              title="No invoices yet"
              description="When a month closes, the resources that ran in it are invoiced and charged to the default card."
            />
          }
        />
      </Card>
      <InvoiceDialog projectId={projectId} invoiceId={openId} overview={overview} onClose={() => setOpenId(null)} />
    </>
  );
}

function InvoiceDialog({
  projectId,
  invoiceId,
  overview,
  onClose,
}: {
  projectId: string;
  invoiceId: string | null;
  overview: BillingOverview | undefined;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const invoice = useQuery(trpc.billing.getInvoice.queryOptions(invoiceId ? { projectId, invoiceId } : skipToken));
  const payment = usePayInvoice(projectId);
  const data = invoice.data;

  function close() {
    payment.reset();
    onClose();
  }

  const card = overview?.defaultPaymentMethod ?? null;
  const payable = overview?.billerHasPaymentMethod ?? false;
  const charges = card ? `Charges ${cardLabel(card)}` : overview ? `Charges ${overview.biller.name}'s default card` : undefined;
  return (
    <Dialog
      open={invoiceId !== null}
      onClose={close}
      title={data ? `Invoice for ${periodLabel(data.period)}` : 'Invoice'}
      description={data ? <InvoiceState invoice={data} /> : undefined}
      footer={
        <>
          <Button variant="ghost" onClick={close}>
            Close
          </Button>
          {data?.status === 'failed' ? (
            <Button
              variant="primary"
              onClick={() => payment.pay(data.id)}
              loading={payment.pending}
              disabled={!payable}
              title={payable ? charges : 'The member who holds billing must add a card first'}
            >
              Pay now
            </Button>
          ) : null}
        </>
      }
    >
      {invoice.isPending ? (
        <div className="stack" aria-busy="true">
          <Skeleton height={18} />
          <Skeleton height={18} />
          <Skeleton height={18} width="60%" />
        </div>
      ) : invoice.isError ? (
        <LoadFailed title="The invoice could not be loaded" error={invoice.error} retry={invoice.refetch} retrying={invoice.isFetching} />
      ) : (
        <>
          {payment.error ? (
            <Alert tone="danger" title="The invoice was not paid">
              {errorMessage(payment.error)}
            </Alert>
          ) : null}
          <InvoiceLines invoice={invoice.data} />
        </>
      )}
    </Dialog>
  );
}

function InvoiceState({ invoice }: { invoice: InvoiceWithLines }) {
  return (
    <span className="row" style={{ gap: 6 }}>
      <InvoiceStatusBadge status={invoice.status} />
      {invoice.status === 'paid' && invoice.paidAt
        ? `Paid on ${formatDate(invoice.paidAt)}`
        : invoice.status === 'failed'
          ? `The charge failed${invoice.failureCode ? ` (${invoice.failureCode.replace(/_/g, ' ')})` : ''}${invoice.nextAttemptAt ? `; retried automatically on ${formatDate(invoice.nextAttemptAt)}` : ''}`
          : `Issued ${formatDate(invoice.createdAt)}, not charged yet`}
    </span>
  );
}

function InvoiceLines({ invoice }: { invoice: InvoiceWithLines }) {
  const money = (amount: number) => formatMinorUnits(amount, invoice.currency);
  return (
    <div className="stack" style={{ gap: 12 }}>
      {invoice.lines.length === 0 ? (
        <p className="muted">This invoice has no lines.</p>
      ) : (
        <div className={styles.linesBox}>
          <table className="table" aria-label="Invoice lines">
            <thead>
              <tr>
                <th scope="col">Item</th>
                <th scope="col" className={styles.numeric}>
                  Amount
                </th>
              </tr>
            </thead>
            <tbody>
              {invoice.lines.map((line) => (
                <tr key={line.id}>
                  <td>
                    <div>{line.description}</div>
                    <div className="cell-sub">{categoryLabel(line.category)}</div>
                  </td>
                  <td className={styles.numeric}>{money(line.amount)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <dl className={styles.totals}>
        <dt>Subtotal</dt>
        <dd>{money(invoice.subtotal)}</dd>
        <dt>Tax</dt>
        <dd title={invoice.tax === null ? 'The card had no country, so the tax location was unknown' : undefined}>
          {invoice.tax === null ? '—' : money(invoice.tax)}
        </dd>
        <dt>Credit applied</dt>
        <dd>{invoice.creditApplied > 0 ? `−${money(invoice.creditApplied)}` : money(0)}</dd>
        <dt className={styles.totalRow}>Total</dt>
        <dd className={styles.totalRow}>{money(invoice.total)}</dd>
      </dl>
    </div>
  );
}
