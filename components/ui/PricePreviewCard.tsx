import type { ReactNode } from 'react';
import type { z } from 'zod';
import type { previewSchema } from '@/server/domains/billing/schema';
import { Card } from './Card';
import { formatMinorUnits } from './money';
import { Skeleton } from './Skeleton';
import styles from './PricePreviewCard.module.css';

export type PricePreview = z.infer<typeof previewSchema>;

/** Billing dates are the first of a month in UTC; shown in UTC so no time zone moves them to the day before. */
const billingDateFormat = new Intl.DateTimeFormat('en', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });

/**
 * Every preview endpoint returns this one shape and each create call charges exactly its
 * `dueToday`, so the same card can stand before any purchase button.
 */
export function PricePreviewCard({
  preview,
  loading = false,
  title = 'Price',
  placeholder,
  error,
}: {
  preview: PricePreview | undefined;
  loading?: boolean;
  title?: ReactNode;
  /** Shown while there is nothing to price yet, e.g. before a size is chosen. */
  placeholder?: ReactNode;
  error?: ReactNode;
}) {
  return (
    <Card title={title} aria-label="Price preview">
      {error ? (
        error
      ) : loading ? (
        <div className="stack" aria-busy="true">
          <Skeleton height={18} />
          <Skeleton height={18} />
          <Skeleton height={28} width="60%" />
        </div>
      ) : preview ? (
        <PreviewLines preview={preview} />
      ) : (
        <p className="muted">{placeholder ?? 'Nothing to price yet.'}</p>
      )}
    </Card>
  );
}

function PreviewLines({ preview }: { preview: PricePreview }) {
  const money = (amount: number) => formatMinorUnits(amount, preview.currency);
  return (
    <div className="stack" style={{ gap: 12 }}>
      <div className={styles.total} data-testid="preview-due-today">
        <span className={styles.totalLabel}>Due today</span>
        <span className={styles.totalAmount}>{money(preview.dueToday)}</span>
      </div>
      <dl className={styles.lines}>
        <dt>Subtotal</dt>
        <dd>{money(preview.subtotal)}</dd>
        <dt>Tax</dt>
        <dd title={preview.tax === null ? 'The tax location of the project is not known' : undefined}>{preview.tax === null ? '—' : money(preview.tax)}</dd>
        <dt>Credit applied</dt>
        <dd>{preview.creditApplied > 0 ? `−${money(preview.creditApplied)}` : money(0)}</dd>
      </dl>
      <p className={styles.then}>
        then <strong>{money(preview.monthly)}/month</strong> from {billingDateFormat.format(new Date(preview.nextBillingDate))}
      </p>
    </div>
  );
}
