import type { ReactNode } from 'react';
import type { z } from 'zod';
import type { tierChangePreviewSchema } from '@/server/domains/billing/schema';
import type { AppErrorInfo } from '../trpc/errors';
import { Alert } from './Alert';
import { Button } from './Button';
import { formatMinorUnits } from './money';
import { PricePreviewCard } from './PricePreviewCard';

type TierChangePreview = z.infer<typeof tierChangePreviewSchema>;

/**
 * The confirmation of a tier change: its price preview, the credit a downgrade gives back, why a
 * change was refused, and the buttons. The resource page owns the tier choice and the mutation.
 */
export function TierChangePanel({
  preview,
  loading,
  previewError,
  currentLabel,
  targetLabel,
  subject,
  notFitTitle,
  note,
  refusal,
  changing,
  onConfirm,
  onCancel,
  className,
}: {
  preview: TierChangePreview | undefined;
  loading: boolean;
  previewError: string | null;
  currentLabel: string;
  targetLabel: string;
  /** What changes tier, as the refusal of a declined card names it: "site", "bucket". */
  subject: string;
  /** The title when the resource does not fit the target tier (409). */
  notFitTitle: string;
  note?: ReactNode;
  refusal: AppErrorInfo | null;
  changing: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  className?: string;
}) {
  return (
    <div className={className}>
      <PricePreviewCard
        title={preview ? `${preview.direction === 'upgrade' ? 'Upgrade' : 'Downgrade'} to ${targetLabel}` : 'Tier change'}
        preview={preview}
        loading={loading}
        error={previewError ? <Alert tone="danger">{previewError}</Alert> : null}
      />
      <div className="stack">
        {preview?.direction === 'downgrade' ? (
          <Alert tone="info" title={`${formatMinorUnits(preview.creditBack, preview.currency)} back to the project's balance`}>
            Nothing is charged now: the unused part of this month at the {currentLabel} price is credited and paid from the next invoices.
          </Alert>
        ) : null}
        {note}
        {refusal ? (
          <Alert
            tone="danger"
            title={refusal.code === 'CONFLICT' ? notFitTitle : refusal.code === 'CARD_DECLINED' ? 'The card was declined' : 'The tier was not changed'}
          >
            {refusal.message}
            {refusal.code === 'CARD_DECLINED' ? ` The ${subject} stays on its tier; nothing was charged.` : null}
          </Alert>
        ) : null}
        <div className="row">
          <Button variant="primary" onClick={onConfirm} loading={changing} disabled={!preview}>
            {preview?.direction === 'upgrade'
              ? `Upgrade and pay ${formatMinorUnits(preview.dueToday, preview.currency)}`
              : preview
                ? `Downgrade to ${targetLabel}`
                : 'Change tier'}
          </Button>
          <Button variant="ghost" onClick={onCancel}>
            Cancel
          </Button>
        </div>
      </div>
    </div>
  );
}
