'use client';

import { useQuery } from '@tanstack/react-query';
import { ROLE_LABELS } from '../format';
import { LoadFailed } from '../ui/LoadFailed';
import { hasRole, useProject, type Project } from '../projects/ProjectContext';
import { useSignedInAccount } from '../shell/SignedInAccount';
import { appErrorOf } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { EmptyState } from '../ui/EmptyState';
import { PageHeader } from '../ui/PageHeader';
import { AddCardCard } from './AddCardForm';
import { BillingSummary, BillingSummarySkeleton } from './BillingSummary';
import { BlockedBanner } from './BlockedBanner';
import { ChargeHistoryCard } from './ChargeHistoryCard';
import { InvoicesCard } from './InvoicesCard';
import { PaymentMethodsCard } from './PaymentMethodsCard';
import { PendingTransferCard } from './PendingTransferCard';
import { TransferBillingCard } from './TransferBillingCard';

export function BillingPage() {
  const project = useProject();
  return (
    <main className="page">
      <PageHeader eyebrow={project.name} title="Billing" description="Who pays for this project, the cards on file, invoices and what each month has cost." />
      {hasRole(project, 'admin') ? <BillingSections project={project} /> : <OwnersAndAdminsOnly project={project} />}
    </main>
  );
}

/** Members and viewers reach the page from the sidebar too; the server answers 403 to all of its billing calls. */
function OwnersAndAdminsOnly({ project }: { project: Project }) {
  return (
    <div className="stack-lg">
      <div className="card">
        <EmptyState
          icon="lock"
          title="Billing is managed by owners and admins"
          description={`Your role in ${project.name} is ${ROLE_LABELS[project.role].toLowerCase()}. Ask an owner or admin about cards, invoices or who pays for the project.`}
        />
      </div>
      <ChargeHistoryCard projectId={project.id} title="Charge history" description="What the project cost in each of the last six months." />
    </div>
  );
}

function BillingSections({ project }: { project: Project }) {
  const trpc = useTRPC();
  const me = useSignedInAccount();
  const overview = useQuery(trpc.billing.overview.queryOptions({ projectId: project.id }));

  if (overview.isError) {
    const { code } = appErrorOf(overview.error);
    if (code === 'FORBIDDEN') return <OwnersAndAdminsOnly project={project} />;
    return <LoadFailed title="Billing could not be loaded" error={overview.error} retry={overview.refetch} retrying={overview.isFetching} />;
  }

  const billing = overview.data;
  const isBiller = billing ? billing.biller.id === me.id : false;
  const mayOfferBilling = billing ? !billing.pendingTransfer && (isBiller || project.role === 'owner') : false;
  return (
    <div className="stack-lg">
      {billing?.blockedAt || billing?.suspendedAt ? <BlockedBanner projectId={project.id} overview={billing} isBiller={isBiller} /> : null}
      {billing ? <PendingTransferCard project={project} overview={billing} myUserId={me.id} /> : null}
      {billing ? <BillingSummary projectId={project.id} overview={billing} isBiller={isBiller} /> : <BillingSummarySkeleton />}
      <PaymentMethodsCard projectId={project.id} overview={billing} isBiller={isBiller} />
      {billing ? <AddCardCard projectId={project.id} overview={billing} isBiller={isBiller} /> : null}
      <InvoicesCard projectId={project.id} overview={billing} />
      <ChargeHistoryCard
        projectId={project.id}
        title="Charge history"
        description="The last five months and the month in progress, by category."
        currency={billing?.currency}
      />
      {billing && mayOfferBilling ? <TransferBillingCard projectId={project.id} overview={billing} /> : null}
    </div>
  );
}
