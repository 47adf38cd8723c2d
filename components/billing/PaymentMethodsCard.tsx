'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import type { Column } from '../ui/Table';
import { useToast } from '../ui/Toast';
import { CardBrand } from './CardBrand';
import { cardExpiry, cardLabel, isCardExpired } from './format';
import type { BillingOverview, SavedCard } from './types';
import { useBillingRefresh } from './useBillingRefresh';
import styles from './billing.module.css';

/** The biller's saved cards. They are the biller's own: anyone else is told only whether one is on file. */
export function PaymentMethodsCard({ projectId, overview, isBiller }: { projectId: string; overview: BillingOverview | undefined; isBiller: boolean }) {
  if (overview && !isBiller) return <SomeoneElsesCards overview={overview} />;
  return <BillersCards projectId={projectId} overview={overview} />;
}

function SomeoneElsesCards({ overview }: { overview: BillingOverview }) {
  const name = overview.biller.name;
  return (
    <Card title="Payment methods" aria-label="Payment methods" description={`The cards of ${name}, who holds billing.`}>
      <EmptyState
        icon="creditCard"
        title={overview.billerHasPaymentMethod ? `${name} has a default card on file` : `${name} has not saved a card yet`}
        description={`Cards are personal: only ${name} can see, add or remove them. ${overview.billerHasPaymentMethod ? 'Invoices and new resources are charged to it.' : 'Paid resources need one.'} An owner or ${name} can offer billing to another owner or admin, who takes it over by accepting.`}
      />
    </Card>
  );
}

function BillersCards({ projectId, overview }: { projectId: string; overview: BillingOverview | undefined }) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useBillingRefresh(projectId);
  // Only once the overview says the caller holds billing: anyone else is refused the list.
  const cards = useQuery(trpc.billing.listPaymentMethods.queryOptions({ projectId }, { enabled: overview !== undefined }));
  const makeDefault = useMutation(trpc.billing.setDefaultPaymentMethod.mutationOptions());
  const [removing, setRemoving] = useState<SavedCard | null>(null);

  async function setDefault(card: SavedCard) {
    try {
      await makeDefault.mutateAsync({ projectId, paymentMethodId: card.id });
      toast.success(`${cardLabel(card)} is now the default card`);
    } catch (error) {
      toast.error(errorMessage(error));
    }
    await refresh();
  }

  const columns: Column<SavedCard>[] = [
    {
      header: 'Card',
      cell: (card) => (
        <div className={styles.cardCell}>
          <CardBrand brand={card.brand} />
          <div style={{ minWidth: 0 }}>
            <div className="cell-primary row" style={{ gap: 6 }}>
              <span className={styles.cardNumber}>{cardLabel(card)}</span>
              {card.isDefault ? <Badge tone="success">Default</Badge> : null}
            </div>
            <div className={`cell-sub ${styles.onlyXs}`}>Expires {cardExpiry(card)}</div>
          </div>
        </div>
      ),
    },
    {
      header: 'Expires',
      className: 'hide-xs',
      cell: (card) => (isCardExpired(card) ? <Badge tone="danger">Expired {cardExpiry(card)}</Badge> : cardExpiry(card)),
    },
    {
      header: <span className="visually-hidden">Actions</span>,
      className: 'cell-actions',
      cell: (card) => (
        <div className={styles.cardActions}>
          {card.isDefault ? null : (
            <Button
              size="sm"
              variant="ghost"
              onClick={() => setDefault(card)}
              disabled={makeDefault.isPending}
              aria-label={`Make ${cardLabel(card)} the default`}
            >
              Make default
            </Button>
          )}
          <Button size="sm" variant="danger-ghost" onClick={() => setRemoving(card)} aria-label={`Remove ${cardLabel(card)}`}>
            Remove
          </Button>
        </div>
      ),
    },
  ];

  return (
    <>
      <Card
        flush
        title="Payment methods"
        aria-label="Payment methods"
        description={
          overview
            ? 'Your cards: you hold billing. The default card pays invoices and new resources. Nobody else in the project sees them.'
            : 'The cards of the member who holds billing.'
        }
      >
        <DataList
          label="Saved cards"
          query={cards}
          columns={columns}
          rowKey={(card) => card.id}
          empty={<EmptyState icon="creditCard" title="No cards saved" description="Add a card below. The first card becomes the default." />}
        />
      </Card>
      <RemoveCardDialog projectId={projectId} card={removing} onClose={() => setRemoving(null)} />
    </>
  );
}

function RemoveCardDialog({ projectId, card, onClose }: { projectId: string; card: SavedCard | null; onClose: () => void }) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useBillingRefresh(projectId);
  const remove = useMutation(trpc.billing.removePaymentMethod.mutationOptions());

  function close() {
    remove.reset();
    onClose();
  }

  async function confirm() {
    if (!card) return;
    try {
      await remove.mutateAsync({ projectId, paymentMethodId: card.id });
    } catch {
      return;
    }
    await refresh();
    toast.success(`${cardLabel(card)} was removed`);
    close();
  }

  return (
    <ConfirmDialog
      open={card !== null}
      onClose={close}
      title={`Remove ${card ? cardLabel(card) : 'card'}?`}
      description={
        card?.isDefault
          ? 'This is the default card. Without a card, invoices cannot be paid and paid resources cannot be created.'
          : 'It will no longer be charged. You can add it again later.'
      }
      confirmLabel="Remove card"
      onConfirm={confirm}
      pending={remove.isPending}
      error={remove.isError ? errorMessage(remove.error) : null}
      errorTitle="The card was not removed"
    />
  );
}
