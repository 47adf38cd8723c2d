'use client';

import { useMutation } from '@tanstack/react-query';
import { formatDate } from '../format';
import type { Project } from '../projects/ProjectContext';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { useToast } from '../ui/Toast';
import type { BillingOverview } from './types';
import { useBillingRefresh } from './useBillingRefresh';
import styles from './billing.module.css';

type Transfer = NonNullable<BillingOverview['pendingTransfer']>;

/**
 * An offer of billing waiting for its answer. The member it names accepts or declines it here;
 * everyone else sees that it waits, and whoever made it, the biller or an owner can withdraw it.
 */
export function PendingTransferCard({ project, overview, myUserId }: { project: Project; overview: BillingOverview; myUserId: string }) {
  const transfer = overview.pendingTransfer;
  if (!transfer) return null;
  if (transfer.to.id === myUserId) return <OfferToMe projectId={project.id} transfer={transfer} />;
  const mayCancel = transfer.proposedBy.id === myUserId || overview.biller.id === myUserId || project.role === 'owner';
  return <OfferWaiting projectId={project.id} transfer={transfer} mayCancel={mayCancel} />;
}

function OfferToMe({ projectId, transfer }: { projectId: string; transfer: Transfer }) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useBillingRefresh(projectId);
  const accept = useMutation(trpc.billing.acceptBillerTransfer.mutationOptions());
  const decline = useMutation(trpc.billing.declineBillerTransfer.mutationOptions());
  const pending = accept.isPending || decline.isPending;
  const failure = accept.error ?? decline.error;
  const offeredBy = transfer.proposedBy.id === transfer.from.id ? transfer.from.name : `${transfer.proposedBy.name}, on behalf of ${transfer.from.name},`;

  return (
    <Card title="You are offered billing for this project" aria-label="Billing offer" className={styles.offer}>
      <div className="stack">
        <p>
          {offeredBy} asks you to hold billing. If you accept, your default card pays for this project&apos;s resources and invoices from then on, and only you
          manage its cards. Nothing changes if you decline.
        </p>
        <p className="muted">The offer lapses on {formatDate(transfer.expiresAt)}.</p>
        {failure ? (
          <Alert tone="danger" title="Your answer was not recorded">
            {errorMessage(failure)}
          </Alert>
        ) : null}
        <div className="row">
          <Button
            variant="primary"
            loading={accept.isPending}
            disabled={pending}
            onClick={() =>
              accept.mutate(
                { projectId, transferId: transfer.id },
                {
                  onSuccess: async () => {
                    toast.success('You now hold billing for this project');
                    await refresh();
                  },
                },
              )
            }
          >
            Accept billing
          </Button>
          <Button
            loading={decline.isPending}
            disabled={pending}
            onClick={() =>
              decline.mutate(
                { projectId, transferId: transfer.id },
                {
                  onSuccess: async () => {
                    toast.success(`You declined; ${transfer.from.name} still holds billing`);
                    await refresh();
                  },
                },
              )
            }
          >
            Decline
          </Button>
        </div>
      </div>
    </Card>
  );
}

function OfferWaiting({ projectId, transfer, mayCancel }: { projectId: string; transfer: Transfer; mayCancel: boolean }) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useBillingRefresh(projectId);
  const cancel = useMutation(trpc.billing.cancelBillerTransfer.mutationOptions());

  return (
    <Card title="Billing offer waiting for an answer" aria-label="Billing offer" className={styles.offer}>
      <div className="stack">
        <p>
          {transfer.proposedBy.name} offered billing to <strong>{transfer.to.name}</strong> ({transfer.to.email}) on {formatDate(transfer.createdAt)}. Billing
          stays with {transfer.from.name} until {transfer.to.name} accepts; the offer lapses on {formatDate(transfer.expiresAt)}.
        </p>
        {cancel.isError ? (
          <Alert tone="danger" title="The offer was not cancelled">
            {errorMessage(cancel.error)}
          </Alert>
        ) : null}
        {mayCancel ? (
          <div>
            <Button
              loading={cancel.isPending}
              onClick={() =>
                cancel.mutate(
                  { projectId, transferId: transfer.id },
                  {
                    onSuccess: async () => {
                      toast.success(`The offer to ${transfer.to.name} was cancelled`);
                      await refresh();
                    },
                  },
                )
              }
            >
              Cancel offer
            </Button>
          </div>
        ) : null}
      </div>
    </Card>
  );
}
