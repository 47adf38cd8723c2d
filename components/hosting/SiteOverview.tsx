'use client';

import { skipToken, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import type { HostingTier } from '@/db/schema/hosting';
import { HOSTING_TIERS } from '@/server/domains/hosting/schema';
import { formatDate, formatDateTime, formatMemory } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { DeleteResourceCard } from '../ui/DeleteResourceCard';
import { OptionCards, tierOption } from '../ui/OptionCards';
import { TierChangePanel } from '../ui/TierChangePanel';
import { useToast } from '../ui/Toast';
import { FileIcon } from './FileIcon';
import { TIER_LABELS, type HostingCatalog, type HostingProviderInfo, type SiteView } from './hosting';
import { SiteStatus } from './SiteStatus';
import { WebSimulatorNotice } from './SimulatorNotice';
import { TierSpecs } from './TierSpecs';
import styles from './hosting.module.css';

export function SiteOverview({
  site,
  catalog,
  provider,
  checking,
  recheck,
}: {
  site: SiteView;
  catalog: HostingCatalog;
  provider: HostingProviderInfo;
  checking: boolean;
  recheck: () => void;
}) {
  const project = useProject();
  const canManage = hasRole(project, 'member');
  return (
    <div className="stack-lg">
      <WebSimulatorNotice provider={provider} />
      <div className={styles.detailGrid}>
        <Card
          title="Address"
          description="The site’s own address, served as long as the site exists. Attach your domains in the Domains tab."
          actions={
            <Button size="sm" onClick={recheck} loading={checking}>
              <FileIcon name="refresh" size={14} /> Check now
            </Button>
          }
        >
          <div className="stack">
            <a href={site.url} target="_blank" rel="noreferrer" className={`${styles.bigUrl} mono`} data-testid="site-url">
              {site.url}
              <FileIcon name="external" size={15} />
            </a>
            <div className={styles.readyLine} data-testid="site-ready">
              <SiteStatus site={site} />
              <span className="muted">
                {site.status === 'SUSPENDED'
                  ? 'Offline until the unpaid invoice is paid.'
                  : site.ready
                    ? provider.web.kind === 'simulator'
                      ? 'Serving, as the simulator reports it.'
                      : 'Serving: the address answers now.'
                    : 'Not answering yet; checked again every few seconds.'}
              </span>
            </div>
          </div>
        </Card>
        <Card title="Details">
          <dl className="details-list">
            <dt>Tier</dt>
            <dd>{TIER_LABELS[site.tier]}</dd>
            <dt>PHP</dt>
            <dd>{site.phpVersion}</dd>
            <dt>Disk</dt>
            <dd>
              {site.limits.diskGb} GB
              {site.extraStorageGb ? <span className="muted"> · {site.extraStorageGb} GB of it extra storage</span> : null}
            </dd>
            <dt>Site id</dt>
            <dd className="mono">{site.tenantId}</dd>
            <dt>Created</dt>
            <dd title={formatDateTime(site.createdAt)}>{formatDate(site.createdAt)}</dd>
          </dl>
        </Card>
      </div>
      <Card title="Limits" aria-label="Limits" description="What the tier allows the site. The disk was bought with the site and stays when the tier changes.">
        <div className={styles.limits}>
          <Limit label="Disk" value={`${site.limits.diskGb} GB`} />
          <Limit label="PHP workers" value={String(site.limits.phpWorkers)} />
          <Limit label="Memory" value={formatMemory(site.limits.memoryMb)} />
          <Limit label="Domains" value={String(site.limits.domains)} />
          <Limit label="Databases" value={String(site.limits.databases)} />
          <Limit label="Connections per database" value={String(site.limits.connectionsPerDatabase)} />
        </div>
      </Card>
      {canManage ? <TierCard site={site} catalog={catalog} /> : null}
      {canManage ? <DeleteCard site={site} /> : null}
    </div>
  );
}

function Limit({ label, value }: { label: string; value: string }) {
  return (
    <div className={styles.limit}>
      <span className={styles.label}>{label}</span>
      <span className={styles.limitValue}>{value}</span>
    </div>
  );
}

function TierCard({ site, catalog }: { site: SiteView; catalog: HostingCatalog }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [target, setTarget] = useState<HostingTier | null>(null);
  const prices = useQuery(trpc.hosting.prices.queryOptions({ projectId: project.id }, { staleTime: 5 * 60_000 }));
  const preview = useQuery(trpc.hosting.tierPreview.queryOptions(target ? { projectId: project.id, tenantId: site.tenantId, tier: target } : skipToken));
  const change = useMutation(trpc.hosting.changeTier.mutationOptions());

  async function confirm() {
    if (!target) return;
    try {
      await change.mutateAsync({ projectId: project.id, tenantId: site.tenantId, tier: target });
    } catch {
      return;
    }
    toast.success(`${site.siteName} is now on the ${TIER_LABELS[target]} tier`);
    setTarget(null);
    await Promise.all([queryClient.invalidateQueries(trpc.hosting.pathFilter()), queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() })]);
  }

  const refusal = change.isError ? appErrorOf(change.error) : null;
  const data = preview.data;
  return (
    <Card
      title="Tier"
      description="An upgrade is charged now for the rest of the month; a downgrade credits the difference back, if the site’s domains and databases fit the smaller tier. The new limits apply at once."
    >
      <div className="stack-lg">
        <OptionCards
          label="Tier"
          name="tier"
          layout="wide"
          value={target ?? site.tier}
          onChange={(slug) => {
            setTarget(slug === site.tier ? null : slug);
            change.reset();
          }}
          options={HOSTING_TIERS.map((slug) =>
            tierOption({
              value: slug,
              label: TIER_LABELS[slug],
              current: slug === site.tier,
              price: prices.data?.find((p) => p.tier === slug),
              specs: <TierSpecs limits={catalog.tiers[slug]} diskGb={site.limits.diskGb} />,
            }),
          )}
        />
        {target ? (
          <TierChangePanel
            className={styles.detailGrid}
            preview={data}
            loading={preview.isPending}
            previewError={preview.isError ? errorMessage(preview.error) : null}
            currentLabel={TIER_LABELS[site.tier]}
            targetLabel={TIER_LABELS[target]}
            subject="site"
            notFitTitle="The site does not fit that tier"
            note={extraStorageNote(site)}
            refusal={refusal}
            changing={change.isPending}
            onConfirm={() => void confirm()}
            onCancel={() => setTarget(null)}
          />
        ) : null}
      </div>
    </Card>
  );
}

function extraStorageNote(site: SiteView) {
  if (!site.extraStorageGb) return null;
  return <p className="muted">The {site.extraStorageGb} GB of extra storage stays with the site and is billed with the new tier.</p>;
}

function DeleteCard({ site }: { site: SiteView }) {
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.hosting.delete.mutationOptions());

  return (
    <DeleteResourceCard
      title="Delete site"
      description="Removes the site’s files, drops its databases, detaches its domains and stops billing for it."
      dialogTitle={`Delete ${site.siteName}?`}
      dialogDescription="The site stops being served, its files are removed, its MySQL databases dropped and its domains detached. This month is not refunded. This cannot be undone."
      name={site.siteName}
      confirmLabel="Delete this site"
      errorTitle="The site was not deleted"
      onDelete={() => remove.mutateAsync({ projectId: project.id, tenantId: site.tenantId })}
      onDeleted={async () => {
        toast.success(`Site ${site.siteName} was deleted`);
        router.replace(projectPath(project.id, 'hosting'));
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.hosting.list.queryKey({ projectId: project.id }) }),
          queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
        ]);
      }}
    />
  );
}
