'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { SECRET_PACKS_PER_UPGRADE_MAX } from '@/server/domains/secrets/schema';
import { projectPath } from '../projects/areas';
import { appErrorOf } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { Dialog } from '../ui/Dialog';
import { Icon } from '../ui/Icon';
import { Input } from '../ui/Input';
import { LoadFailed } from '../ui/LoadFailed';
import { formatMinorUnits } from '../ui/money';
import { PricePreviewCard } from '../ui/PricePreviewCard';
import { Skeleton } from '../ui/Skeleton';
import { SubmitButton } from '../ui/SubmitButton';
import styles from './secrets.module.css';

/** How many secrets the project holds against its limit, and (for owners and admins) buying packs of more. */
export function SecretsUsageCard({ projectId, canUpgrade }: { projectId: string; canUpgrade: boolean }) {
  const trpc = useTRPC();
  const usage = useQuery(trpc.secrets.usage.queryOptions({ projectId }));
  const [upgrading, setUpgrading] = useState(false);
  const data = usage.data;
  const full = data ? data.used >= data.limit : false;

  return (
    <Card
      title="Usage"
      description={
        data
          ? `${data.freeLimit} secrets are free; each pack adds ${data.packSize}${data.packPrice ? ` for ${formatMinorUnits(data.packPrice.monthly, data.packPrice.currency)} a month` : ''}. Every environment counts.`
          : 'Secrets of every environment count against the limit.'
      }
      actions={
        canUpgrade && data?.packPrice ? (
          <Button variant={full ? 'primary' : 'secondary'} onClick={() => setUpgrading(true)}>
            <Icon name="plus" /> Buy more secrets
          </Button>
        ) : null
      }
    >
      {usage.error ? (
        <LoadFailed title="Could not load the usage" error={usage.error} retry={() => usage.refetch()} retrying={usage.isFetching} />
      ) : !data ? (
        <div className="stack" aria-busy="true">
          <Skeleton height={24} width="30%" />
          <Skeleton height={8} />
        </div>
      ) : (
        <div className={styles.usage} data-testid="secrets-usage">
          <div className={styles.usageFigures}>
            <span>
              <span className={styles.usageCount}>{data.used}</span> <span className="secondary">of {data.limit} secrets used</span>
            </span>
            <span className="secondary">
              {data.paidPacks === 0 ? 'Free allowance only' : `${data.paidPacks} ${data.paidPacks === 1 ? 'pack' : 'packs'} bought`}
            </span>
          </div>
          <div className={styles.bar} role="progressbar" aria-label="Secrets used" aria-valuemin={0} aria-valuemax={data.limit} aria-valuenow={data.used}>
            <div
              className={`${styles.barFill} ${full ? styles.barFull : ''}`}
              style={{ width: `${data.limit === 0 ? 100 : Math.min(100, (data.used / data.limit) * 100)}%` }}
            />
          </div>
          {full ? (
            <p className="secondary">
              The limit is reached: {canUpgrade && data.packPrice ? 'buy a pack' : 'an owner or admin can buy a pack'} or delete a secret to add another.
            </p>
          ) : null}
        </div>
      )}
      {canUpgrade ? <UpgradeDialog projectId={projectId} open={upgrading} onClose={() => setUpgrading(false)} /> : null}
    </Card>
  );
}

function UpgradeDialog({ projectId, open, onClose }: { projectId: string; open: boolean; onClose: () => void }) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Buy more secrets"
      description="Packs are billed monthly with your other resources; the rest of this month is charged now to the project's card. Deleting secrets does not refund packs."
    >
      {open ? <UpgradeForm projectId={projectId} onClose={onClose} /> : null}
    </Dialog>
  );
}

function UpgradeForm({ projectId, onClose }: { projectId: string; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [packs, setPacks] = useState(1);
  const valid = Number.isInteger(packs) && packs >= 1 && packs <= SECRET_PACKS_PER_UPGRADE_MAX;
  const preview = useQuery({ ...trpc.secrets.previewUpgrade.queryOptions({ projectId, packs }), enabled: valid });
  const upgrade = useMutation(trpc.secrets.upgrade.mutationOptions());
  const refusal = upgrade.error ? appErrorOf(upgrade.error) : null;
  const needsCard = refusal?.code === 'ORG_PAYMENT_METHOD_REQUIRED' || refusal?.code === 'BILLER_PAYMENT_METHOD_REQUIRED';

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!valid) return;
    try {
      await upgrade.mutateAsync({ projectId, packs });
    } catch {
      return;
    }
    await queryClient.invalidateQueries({ queryKey: trpc.secrets.usage.queryKey({ projectId }) });
    onClose();
  }

  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      {refusal ? (
        <Alert tone="danger" title={needsCard ? 'A payment card is needed' : undefined}>
          {refusal.message}
          {needsCard ? (
            <>
              . Cards are saved on the <Link href={projectPath(projectId, 'billing')}>Billing page</Link>.
            </>
          ) : null}
        </Alert>
      ) : null}
      <Input
        label="Packs of 5 secrets"
        name="packs"
        type="number"
        min={1}
        max={SECRET_PACKS_PER_UPGRADE_MAX}
        step={1}
        value={Number.isNaN(packs) ? '' : packs}
        onChange={(event) => setPacks(event.currentTarget.valueAsNumber)}
        error={valid ? undefined : `Choose 1 to ${SECRET_PACKS_PER_UPGRADE_MAX} packs`}
        hint={valid ? `Adds ${packs * 5} secrets to the limit.` : undefined}
      />
      <PricePreviewCard
        title="Charge"
        preview={valid ? preview.data : undefined}
        loading={valid && preview.isPending}
        error={preview.error ? <Alert tone="danger">{appErrorOf(preview.error).message}</Alert> : undefined}
        placeholder="Choose how many packs to buy."
      />
      <div className="form-actions" style={{ justifyContent: 'flex-end' }}>
        <Button variant="ghost" onClick={onClose}>
          Cancel
        </Button>
        <SubmitButton variant="primary" loading={upgrade.isPending} disabled={!valid || !preview.data}>
          {preview.data ? `Pay ${formatMinorUnits(preview.data.dueToday, preview.data.currency)} and add ${packs * 5} secrets` : 'Buy packs'}
        </SubmitButton>
      </div>
    </form>
  );
}
