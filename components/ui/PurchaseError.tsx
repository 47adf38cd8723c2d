import Link from 'next/link';
import { projectPath } from '../projects/areas';
import type { AppErrorInfo } from '../trpc/errors';
import { Alert } from './Alert';
import { ButtonLink } from './Button';

const BILLING_CODES = new Set(['ORG_PAYMENT_METHOD_REQUIRED', 'BILLER_PAYMENT_METHOD_REQUIRED', 'CARD_DECLINED', 'PROJECT_BLOCKED']);

/**
 * Why buying a resource failed, and what to do about it: a card to add (by the caller, or by the
 * biller), a declined card, refused settings field by field, or an upstream failure that was refunded.
 */
export function PurchaseError({ projectId, error, notCreated }: { projectId: string; error: AppErrorInfo; notCreated: string }) {
  const billing = projectPath(projectId, 'billing');
  const title =
    error.code === 'ORG_PAYMENT_METHOD_REQUIRED' || error.code === 'BILLER_PAYMENT_METHOD_REQUIRED'
      ? 'A payment card is needed'
      : error.code === 'CARD_DECLINED'
        ? 'The card was declined'
        : error.code === 'VALIDATION_ERROR' || error.code === 'BAD_REQUEST'
          ? 'The settings were refused'
          : notCreated;
  return (
    <Alert tone="danger" title={title}>
      <p>{error.message}</p>
      {error.fields ? (
        <ul>
          {Object.entries(error.fields).map(([field, message]) => (
            <li key={field}>
              <span className="mono">{field}</span>: {message}
            </li>
          ))}
        </ul>
      ) : null}
      {error.code === 'ORG_PAYMENT_METHOD_REQUIRED' ? (
        <p>
          <ButtonLink href={billing} size="sm">
            Add a card on the Billing page
          </ButtonLink>
        </p>
      ) : error.code === 'BILLER_PAYMENT_METHOD_REQUIRED' ? (
        <p>
          Only they can add it, on the <Link href={billing}>Billing page</Link>. Nothing was charged.
        </p>
      ) : BILLING_CODES.has(error.code) ? (
        <p>
          See the <Link href={billing}>Billing page</Link>. Nothing was charged.
        </p>
      ) : error.code === 'UPSTREAM_ERROR' ? (
        <p>The charge was refunded and nothing was kept. Creating it again is safe.</p>
      ) : null}
    </Alert>
  );
}
