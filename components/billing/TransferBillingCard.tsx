'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ROLE_LABELS } from '../format';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { Select } from '../ui/Select';
import { Skeleton } from '../ui/Skeleton';
import { SubmitButton } from '../ui/SubmitButton';
import { useToast } from '../ui/Toast';
import type { BillingOverview } from './types';
import { useBillingRefresh } from './useBillingRefresh';
import styles from './billing.module.css';

/** Owners only: the server refuses everyone else, and a new biller must be an owner or admin. */
export function TransferBillingCard({ projectId, overview }: { projectId: string; overview: BillingOverview | undefined }) {
  const trpc = useTRPC();
  const toast = useToast();
  const refresh = useBillingRefresh(projectId);
  const members = useQuery(trpc.members.list.queryOptions({ projectId }));
  const transfer = useMutation(trpc.billing.transferBiller.mutationOptions());
  const [chosen, setChosen] = useState('');

  const billerId = overview?.biller.id;
  const candidates = (members.data ?? []).filter((member) => (member.role === 'owner' || member.role === 'admin') && member.userId !== billerId);
  const selected = candidates.some((member) => member.userId === chosen) ? chosen : (candidates[0]?.userId ?? '');

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!selected) return;
    transfer.mutate(
      { projectId, userId: selected },
      {
        onSuccess: async (updated) => {
          toast.success(`${updated.biller.name} now holds billing; their default card pays from now on`);
          await refresh();
        },
      },
    );
  }

  const description = overview
    ? `${overview.biller.name} holds billing now. The new biller's default card pays from the moment billing moves; they must be an owner or admin.`
    : 'The new biller must be an owner or admin.';

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Transfer billing">
      <Card title="Transfer billing" description={description}>
        {members.isPending || !overview ? (
          <div aria-busy="true">
            <Skeleton height={38} width="100%" />
          </div>
        ) : members.isError ? (
          <Alert tone="danger" title="Members could not be loaded" action={<Button size="sm" onClick={() => members.refetch()}>Try again</Button>}>
            {errorMessage(members.error)}
          </Alert>
        ) : candidates.length === 0 ? (
          <p className="muted">No other owner or admin to hand billing to. Invite someone or raise a member to admin on the Members page first.</p>
        ) : (
          <div className="form">
            <div className={styles.transferRow}>
              <Select
                label="New biller"
                name="userId"
                value={selected}
                onChange={(event) => setChosen(event.target.value)}
                options={candidates.map((member) => ({ value: member.userId, label: `${member.name} (${ROLE_LABELS[member.role]}) · ${member.email}` }))}
              />
              <SubmitButton variant="primary" loading={transfer.isPending}>
                Make biller
              </SubmitButton>
            </div>
            {transfer.isError ? (
              <Alert tone="danger" title="Billing was not transferred">
                {errorMessage(transfer.error)}
              </Alert>
            ) : null}
          </div>
        )}
      </Card>
    </form>
  );
}
