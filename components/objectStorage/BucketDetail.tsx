'use client';

import { skipToken, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { BUCKET_TIERS, type BucketTierValue } from '@/server/domains/objectStorage/schema';
import { ProjectBillingAlert } from '../billing/ProjectBillingAlert';
import { formatBytes, formatDate, formatDateTime } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button, ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { CopyButton } from '../ui/CopyButton';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { LoadFailed } from '../ui/LoadFailed';
import { OptionCards, tierOption } from '../ui/OptionCards';
import { PageHeader } from '../ui/PageHeader';
import { TierChangePanel } from '../ui/TierChangePanel';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/Toast';
import { useHydrated } from '../ui/useHydrated';
import { DeleteResourceCard } from '../ui/DeleteResourceCard';
import { formatMinorUnits } from '../ui/money';
import { BucketStatus } from './BucketStatus';
import { CorsRulesEditor, draftsOf, rulesOf, type CorsDraft, type CorsErrors } from './CorsRulesEditor';
import { CredentialsList, NewCredentialDialog } from './Credentials';
import { DevelopmentEndpointNotice } from './DevelopmentEndpointNotice';
import { formatRequests, regionName, TIER_LABELS, type BucketView, type StorageProviderInfo, type TierPlans } from './storage';
import wizard from '../ui/Wizard.module.css';
import styles from './objectStorage.module.css';

/** The simulated CDN hands out its domain about 30 seconds after it is turned on; the page asks again until then. */
const CDN_POLL_MS = 5000;

export function BucketDetail({ bucketId, currency, tiers, provider }: { bucketId: string; currency: string; tiers: TierPlans; provider: StorageProviderInfo }) {
  const project = useProject();
  const trpc = useTRPC();
  // The API has no single-bucket read: the page picks its bucket out of the project's list.
  const buckets = useQuery(
    trpc.objectStorage.list.queryOptions(
      { projectId: project.id },
      { refetchInterval: (query) => (query.state.data?.some((b) => b.id === bucketId && b.cdnEnabled && !b.cdnDomain) ? CDN_POLL_MS : false) },
    ),
  );
  const listPath = projectPath(project.id, 'object-storage');

  if (buckets.isPending) {
    return (
      <main className="page" aria-busy="true">
        <Skeleton width={260} height={26} />
        <Skeleton width={360} style={{ marginTop: 12 }} />
        <Skeleton height={180} style={{ marginTop: 28 }} />
      </main>
    );
  }
  if (buckets.isError) {
    return (
      <main className="page">
        <LoadFailed title="The bucket could not be loaded" error={buckets.error} retry={buckets.refetch} retrying={buckets.isFetching} />
      </main>
    );
  }
  const bucket = buckets.data.find((b) => b.id === bucketId);
  if (!bucket) {
    return (
      <main className="page">
        <div className="card">
          <EmptyState
            icon="bucket"
            title="Bucket not found"
            description="It does not exist in this project, or it was deleted."
            action={<ButtonLink href={listPath}>Back to Object storage</ButtonLink>}
          />
        </div>
      </main>
    );
  }
  return <BucketOverview bucket={bucket} currency={currency} tiers={tiers} provider={provider} />;
}

function BucketOverview({ bucket, currency, tiers, provider }: { bucket: BucketView; currency: string; tiers: TierPlans; provider: StorageProviderInfo }) {
  const project = useProject();
  const canManage = hasRole(project, 'member');
  return (
    <main className="page">
      <PageHeader
        eyebrow={
          <Link href={projectPath(project.id, 'object-storage')} className="muted">
            ← Object storage
          </Link>
        }
        title={
          <span className={styles.titleRow}>
            <span className="mono">{bucket.name}</span>
            <BucketStatus bucket={bucket} />
          </span>
        }
        description={`${TIER_LABELS[bucket.tier]} tier in ${regionName(bucket.region)}, created ${formatDate(bucket.createdAt)}.`}
      />
      <div className="stack-lg">
        <ProjectBillingAlert project={project} />
        {bucket.endpoint.development ? <DevelopmentEndpointNotice provider={provider} /> : null}
        {bucket.status === 'suspended' ? (
          <Alert tone="danger" title="This bucket is suspended">
            Every request on it is refused, its credentials and public reads alike; nothing is deleted. A bucket more than 10% over an allowance of its tier
            reopens when it is upgraded; one suspended for an unpaid invoice reopens when the invoice is paid.
          </Alert>
        ) : null}
        <div className={styles.detailGrid}>
          <EndpointCard bucket={bucket} />
          <Card title="Details">
            <dl className="details-list">
              <dt>Status</dt>
              <dd>
                <BucketStatus bucket={bucket} />
              </dd>
              <dt>Tier</dt>
              <dd>
                {TIER_LABELS[bucket.tier]} <span className="muted">{formatMinorUnits(tiers[bucket.tier].monthly, currency)}/month</span>
              </dd>
              <dt>Region</dt>
              <dd>
                {regionName(bucket.region)} <span className="muted mono">{bucket.region}</span>
              </dd>
              <dt>Public access</dt>
              <dd>{bucket.publicAccess ? 'On: anyone may download objects by URL' : 'Off: every request needs a credential'}</dd>
              <dt>Versioning</dt>
              <dd>{bucket.versioning ? 'On' : 'Off'}</dd>
              <dt>Created</dt>
              <dd title={formatDateTime(bucket.createdAt)}>{formatDate(bucket.createdAt)}</dd>
            </dl>
          </Card>
        </div>
        <UsageCard bucket={bucket} />
        {canManage ? <TierCard bucket={bucket} tiers={tiers} currency={currency} /> : null}
        <CdnCard bucket={bucket} canManage={canManage} />
        <CorsCard bucket={bucket} canManage={canManage} />
        <BucketCredentialsCard bucket={bucket} canManage={canManage} />
        {canManage ? <DeleteCard bucket={bucket} /> : null}
      </div>
    </main>
  );
}

function EndpointCard({ bucket }: { bucket: BucketView }) {
  const { endpoint } = bucket;
  return (
    <Card title="S3 endpoint" description="Give these to any S3 client (aws CLI, SDKs, rclone) with a credential below.">
      <div className={styles.fields}>
        <Field label="Endpoint URL" value={endpoint.url} testId="s3-endpoint-url" />
        <div className={styles.fieldRow}>
          <Field label="Bucket" value={bucket.name} testId="s3-bucket" />
          <Field label="Region" value={endpoint.region} testId="s3-region" />
        </div>
        <div>
          <span className={styles.label}>Addressing</span>
          <div className={styles.plainValue} data-testid="s3-path-style">
            {endpoint.pathStyle ? (
              <>
                Path-style: <span className="mono">{`${endpoint.url}/${bucket.name}/<key>`}</span> (set forcePathStyle in SDKs)
              </>
            ) : (
              'Virtual-hosted style: the bucket name is part of the host'
            )}
          </div>
        </div>
      </div>
    </Card>
  );
}

function Field({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className={styles.field}>
      <span className={styles.label}>{label}</span>
      <div className={styles.command}>
        <code data-testid={testId}>{value}</code>
        <CopyButton value={value} label={`Copy ${label.toLowerCase()}`} />
      </div>
    </div>
  );
}

function UsageCard({ bucket }: { bucket: BucketView }) {
  const project = useProject();
  const trpc = useTRPC();
  const usage = useQuery(trpc.objectStorage.usage.queryOptions({ projectId: project.id, bucketId: bucket.id }));

  if (usage.isPending) {
    return (
      <Card title="Usage" aria-label="Usage">
        <Skeleton height={90} />
      </Card>
    );
  }
  if (usage.isError) {
    return <LoadFailed title="Usage could not be read" error={usage.error} retry={usage.refetch} retrying={usage.isFetching} />;
  }
  const { data } = usage;
  return (
    <Card
      title="Usage"
      aria-label="Usage"
      description={`Measured ${formatDateTime(data.measuredAt)}, and again on a visit once that is 5 minutes old. Egress and requests count from ${formatDate(data.periodStart)}.`}
    >
      <div className={styles.meters}>
        <Meter
          label="Storage"
          used={data.storageBytes}
          allowance={data.allowances.storageBytes}
          format={formatBytes}
          testId="usage-storage"
          extra={`${formatRequests(data.objects, true)} ${data.objects === 1 ? 'object' : 'objects'}`}
          extraTestId="usage-objects"
        />
        <Meter label="Egress" used={data.egressBytes} allowance={data.allowances.egressBytes} format={formatBytes} testId="usage-egress" />
        <Meter
          label="Requests"
          used={data.requests}
          allowance={data.allowances.requests}
          format={(n) => formatRequests(n, n < 10_000)}
          testId="usage-requests"
        />
      </div>
      {data.cdn.enabled ? (
        <p className="muted" style={{ marginTop: 16, fontSize: 13 }}>
          CDN delivery is billed on top: {formatMinorUnits(data.cdn.perGb, data.cdn.currency)} per GB and{' '}
          {formatMinorUnits(data.cdn.perMillionRequests, data.cdn.currency)} per million requests.
        </p>
      ) : null}
    </Card>
  );
}

function Meter({
  label,
  used,
  allowance,
  format,
  testId,
  extra,
  extraTestId,
}: {
  label: string;
  used: number;
  allowance: number;
  format: (value: number) => string;
  testId: string;
  extra?: string;
  extraTestId?: string;
}) {
  const share = allowance > 0 ? used / allowance : 0;
  return (
    <div className={styles.meter}>
      <span className={styles.label}>{label}</span>
      <div className={styles.figureValue} data-testid={testId} data-value={used}>
        {format(used)} <span className="muted">of {format(allowance)}</span>
      </div>
      <div
        className={styles.bar}
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={allowance}
        aria-valuenow={used}
        aria-valuetext={`${(share * 100).toFixed(1)}% of the allowance`}
      >
        <span className={share > 1 ? styles.barFillFull : styles.barFill} style={{ width: `${Math.min(100, Math.max(share * 100, 0.5))}%` }} />
      </div>
      <span className="muted" style={{ fontSize: 13 }}>
        {extra ? <span data-testid={extraTestId}>{extra} · </span> : null}
        {(share * 100).toFixed(share < 0.1 ? 2 : 1)}% of the tier’s allowance
      </span>
    </div>
  );
}

function TierCard({ bucket, tiers, currency }: { bucket: BucketView; tiers: TierPlans; currency: string }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [target, setTarget] = useState<BucketTierValue | null>(null);
  const preview = useQuery(trpc.objectStorage.planPreview.queryOptions(target ? { projectId: project.id, bucketId: bucket.id, tier: target } : skipToken));
  const change = useMutation(trpc.objectStorage.changeTier.mutationOptions());

  async function confirm() {
    if (!target) return;
    try {
      await change.mutateAsync({ projectId: project.id, bucketId: bucket.id, tier: target });
    } catch {
      return;
    }
    toast.success(`${bucket.name} is now on the ${TIER_LABELS[target]} tier`);
    setTarget(null);
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.objectStorage.list.queryKey({ projectId: project.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.objectStorage.usage.queryKey({ projectId: project.id, bucketId: bucket.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
    ]);
  }

  const refusal = change.isError ? appErrorOf(change.error) : null;
  const data = preview.data;
  return (
    <Card
      title="Tier"
      description="An upgrade is invoiced now for the rest of the month; a downgrade credits the difference back, if the usage fits the smaller tier."
    >
      <div className={styles.tierChange}>
        <OptionCards
          label="Tier"
          name="tier"
          layout="wide"
          value={target ?? bucket.tier}
          onChange={(slug) => {
            setTarget(slug === bucket.tier ? null : slug);
            change.reset();
          }}
          options={BUCKET_TIERS.map((slug) => {
            const plan = tiers[slug];
            return tierOption({
              value: slug,
              label: TIER_LABELS[slug],
              current: slug === bucket.tier,
              price: { monthly: plan.monthly, currency },
              specs: (
                <span className={wizard.specs}>
                  <span>
                    {formatBytes(plan.storageBytes)} storage · {formatBytes(plan.egressBytes)} egress
                  </span>
                  <span>{formatRequests(plan.requests)} requests</span>
                </span>
              ),
            });
          })}
        />
        {target ? (
          <TierChangePanel
            className={styles.detailGrid}
            preview={data}
            loading={preview.isPending}
            previewError={preview.isError ? errorMessage(preview.error) : null}
            currentLabel={TIER_LABELS[bucket.tier]}
            targetLabel={TIER_LABELS[target]}
            subject="bucket"
            notFitTitle="The usage does not fit that tier"
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

function CdnCard({ bucket, canManage }: { bucket: BucketView; canManage: boolean }) {
  const project = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const setCdn = useMutation(trpc.objectStorage.setCdn.mutationOptions());
  const hydrated = useHydrated();

  async function toggle(enabled: boolean) {
    try {
      await setCdn.mutateAsync({ projectId: project.id, bucketId: bucket.id, cdnEnabled: enabled });
    } catch {
      return;
    }
    await queryClient.invalidateQueries({ queryKey: trpc.objectStorage.list.queryKey({ projectId: project.id }) });
  }

  return (
    <Card
      title="CDN"
      description="Serves the bucket's public objects from a CDN domain. Delivery is metered: 12 cents per GB and 150 cents per million requests."
    >
      <div className="stack">
        <label className={`${wizard.option} ${wizard.toggle}`}>
          <input
            type="checkbox"
            role="switch"
            checked={bucket.cdnEnabled}
            disabled={!canManage || !hydrated || setCdn.isPending || (!bucket.publicAccess && !bucket.cdnEnabled)}
            onChange={(event) => void toggle(event.target.checked)}
          />
          <span className={wizard.optionBody}>
            <span className={wizard.optionTitle}>CDN {bucket.cdnEnabled ? 'on' : 'off'}</span>
            <span className={wizard.optionMeta}>
              {!bucket.publicAccess && !bucket.cdnEnabled ? (
                'The CDN serves public objects only, and this bucket is private.'
              ) : bucket.cdnEnabled ? (
                bucket.cdnDomain ? (
                  <span className={styles.command}>
                    <code data-testid="cdn-domain">{bucket.cdnDomain}</code>
                    <CopyButton value={bucket.cdnDomain} label="Copy CDN domain" />
                  </span>
                ) : (
                  'Provisioning: the domain is ready in about 30 seconds.'
                )
              ) : (
                'Turn it on to get a CDN domain.'
              )}
            </span>
          </span>
        </label>
        {setCdn.isError ? <Alert tone="danger">{errorMessage(setCdn.error)}</Alert> : null}
      </div>
    </Card>
  );
}

function CorsCard({ bucket, canManage }: { bucket: BucketView; canManage: boolean }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const save = useMutation(trpc.objectStorage.replaceCors.mutationOptions());
  const [drafts, setDrafts] = useState<CorsDraft[]>(() => draftsOf(bucket.corsRules));
  const [errors, setErrors] = useState<CorsErrors>({});
  const [dirty, setDirty] = useState(false);

  async function submit() {
    const parsed = rulesOf(drafts);
    setErrors(parsed.errors ?? {});
    if (parsed.errors) return;
    let saved;
    try {
      saved = await save.mutateAsync({ projectId: project.id, bucketId: bucket.id, corsRules: parsed.rules });
    } catch {
      return;
    }
    toast.success(parsed.rules.length === 0 ? 'The CORS configuration was cleared' : `${parsed.rules.length} CORS rule(s) saved`);
    setDrafts(draftsOf(saved.corsRules));
    setDirty(false);
    await queryClient.invalidateQueries({ queryKey: trpc.objectStorage.list.queryKey({ projectId: project.id }) });
  }

  return (
    <Card
      title="CORS"
      description="Which web origins may call the bucket from a browser. Saving replaces every rule; saving none clears the configuration."
      footer={
        canManage ? (
          <div className={styles.actionsRow} style={{ width: '100%' }}>
            <span className="muted">{dirty ? 'Unsaved changes' : `${bucket.corsRules.length} rule(s) in effect`}</span>
            <span className="row">
              {dirty ? (
                <Button
                  variant="ghost"
                  onClick={() => {
                    setDrafts(draftsOf(bucket.corsRules));
                    setErrors({});
                    setDirty(false);
                    save.reset();
                  }}
                >
                  Discard
                </Button>
              ) : null}
              <Button variant="primary" onClick={() => void submit()} loading={save.isPending} disabled={!dirty}>
                Save CORS rules
              </Button>
            </span>
          </div>
        ) : undefined
      }
    >
      <div className="stack">
        {save.isError ? (
          <Alert tone="danger" title="The CORS rules were not saved">
            {errorMessage(save.error)}
          </Alert>
        ) : null}
        <CorsRulesEditor
          drafts={drafts}
          onChange={(next) => {
            setDrafts(next);
            setErrors({});
            setDirty(true);
          }}
          errors={errors}
          disabled={!canManage}
        />
      </div>
    </Card>
  );
}

function BucketCredentialsCard({ bucket, canManage }: { bucket: BucketView; canManage: boolean }) {
  const project = useProject();
  const trpc = useTRPC();
  const credentials = useQuery(trpc.objectStorage.credentials.queryOptions({ projectId: project.id, bucketId: bucket.id }));
  const [creating, setCreating] = useState(false);
  return (
    <Card
      flush
      title="Credentials"
      description={
        <>
          The access keys that reach this bucket: its own and the project-wide ones. All of the project&apos;s are on the{' '}
          <Link href={projectPath(project.id, 'object-storage/credentials')}>credentials page</Link>.
        </>
      }
      actions={
        canManage ? (
          <Button variant="primary" size="sm" onClick={() => setCreating(true)}>
            <Icon name="plus" size={14} /> New credential
          </Button>
        ) : null
      }
    >
      <CredentialsList
        query={credentials}
        canManage={canManage}
        empty={{ title: 'No credential reaches this bucket', description: 'Create one to upload and download objects with an S3 client.' }}
      />
      <NewCredentialDialog bucket={bucket} open={creating} onClose={() => setCreating(false)} />
    </Card>
  );
}

function DeleteCard({ bucket }: { bucket: BucketView }) {
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.objectStorage.delete.mutationOptions());

  return (
    <DeleteResourceCard
      title="Delete bucket"
      description="Deletes the bucket and every object in it, and stops billing for it. The objects cannot be recovered."
      dialogTitle={`Delete ${bucket.name}?`}
      dialogDescription="Every object in the bucket is deleted and billing stops. This month is not refunded. The name becomes free for anyone. This cannot be undone."
      name={bucket.name}
      confirmLabel="Delete this bucket"
      errorTitle="The bucket was not deleted"
      onDelete={() => remove.mutateAsync({ projectId: project.id, bucketId: bucket.id })}
      onDeleted={async () => {
        toast.success(`Bucket ${bucket.name} was deleted`);
        router.replace(projectPath(project.id, 'object-storage'));
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.objectStorage.list.queryKey({ projectId: project.id }) }),
          queryClient.invalidateQueries({ queryKey: trpc.storageCredentials.list.queryKey({ projectId: project.id }) }),
          queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
        ]);
      }}
    />
  );
}
