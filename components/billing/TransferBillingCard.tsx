'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ROLE_LABELS } from '../format';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Card } from '../ui/Card';
import { DataList } from '../ui/DataList';
import { Select } from '../ui/Select';
import { Skeleton } from '../ui/Skeleton';
import { SubmitButton } from '../ui/SubmitButton';
import { useToast } from '../ui/Toast';
import type { BillingOverview } from './types';
import { useBillingRefresh } from './useBillingRefresh';
import styles from './billing.module.css';

/**
 * Owners and the biller offer billing to another owner or admin; it moves only once they accept,
 * so a card is never put to work without its holder's consent.
 */
export function TransferBillingCard({ projectId, overview }: { projectId: string; overview: BillingOverview }) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useBillingRefresh(projectId);
  const candidates = useQuery(
    trpc.members.list.queryOptions(
      { projectId },
      { select: (members) => members.filter((member) => (member.role === 'owner' || member.role === 'admin') && member.userId !== overview.biller.id) },
    ),
  );
  const transfer = useMutation(trpc.billing.transferBiller.mutationOptions());
  const [chosen, setChosen] = useState('');
  const selected = candidates.data?.some((member) => member.userId === chosen) ? chosen : (candidates.data?.[0]?.userId ?? '');

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!selected) return;
    transfer.mutate(
      { projectId, userId: selected },
      {
        onSuccess: async (updated) => {
          toast.success(`Billing offered to ${updated.pendingTransfer?.to.name ?? 'the member'}; it moves when they accept`);
          await refresh();
        },
      },
    );
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Transfer billing">
      <Card
        title="Hand billing to another member"
        description={`${overview.biller.name} holds billing now. The member you choose is asked first: billing moves, and their default card starts paying, only once they accept. They must be an owner or admin.`}
      >
        <DataList
          label="Members"
          query={candidates}
          loading={<Skeleton height={38} width="100%" />}
          empty={<p className="muted">No other owner or admin to hand billing to. Invite someone or raise a member to admin on the Members page first.</p>}
        >
          {(items) => (
            <div className="form">
              <div className={styles.transferRow}>
                <Select
                  label="Member"
                  name="userId"
                  value={selected}
                  onChange={(event) => setChosen(event.target.value)}
                  options={items.map((member) => ({ value: member.userId, label: `${member.name} (${ROLE_LABELS[member.role]}) · ${member.email}` }))}
                />
                <SubmitButton variant="primary" loading={transfer.isPending}>
                  Offer billing
                </SubmitButton>
              </div>
              {transfer.isError ? (
                <Alert tone="danger" title="Billing was not offered">
                  {errorMessage(transfer.error)}
                </Alert>
              ) : null}
            </div>
          )}
        </DataList>
      </Card>
    </form>
  );
}
