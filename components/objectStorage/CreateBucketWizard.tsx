'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent, type ReactNode } from 'react';
import {
  BUCKET_TIERS,
  bucketNameSchema,
  OBJECT_STORAGE_PROVIDER_NAME,
  OBJECT_STORAGE_REGIONS,
  type BucketTierValue,
} from '@/server/domains/objectStorage/schema';
import { formatBytes } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, errorMessage, type AppErrorInfo } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { PurchaseError } from '../ui/PurchaseError';
import { WizardStep } from '../ui/WizardStep';
import { ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { EmptyState } from '../ui/EmptyState';
import { Input } from '../ui/Input';
import { OptionCards, tierOption } from '../ui/OptionCards';
import { PageHeader } from '../ui/PageHeader';
import { PricePreviewCard } from '../ui/PricePreviewCard';
import { SubmitButton } from '../ui/SubmitButton';
import { formatMinorUnits } from '../ui/money';
import { CorsRulesEditor, rulesOf, type CorsDraft, type CorsErrors } from './CorsRulesEditor';
import { DevelopmentEndpointNotice } from './DevelopmentEndpointNotice';
import { formatRequests, regionName, TIER_LABELS, type StorageProviderInfo, type TierPlans } from './storage';
import wizard from '../ui/Wizard.module.css';

/** Refusals that a card on the Billing page resolves. */

const NAME_RULES =
  'S3 rules: 3–63 lower-case letters, digits and hyphens, starting and ending with a letter or digit; not starting with xn-- nor ending with -s3alias. Global: no other bucket on the platform may hold it.';

export function CreateBucketWizard(props: { currency: string; tiers: TierPlans; provider: StorageProviderInfo }) {
  const project = useProject();
  if (!hasRole(project, 'member')) {
    return (
      <main className="page">
        <div className="card">
          <EmptyState
            icon="lock"
            title="Buckets are created by members"
            description={`Your role in ${project.name} is ${project.role}. Ask an owner or admin for a member role to create buckets.`}
            action={<ButtonLink href={projectPath(project.id, 'object-storage')}>Back to Object storage</ButtonLink>}
          />
        </div>
      </main>
    );
  }
  return <Wizard {...props} />;
}

function Wizard({ currency, tiers, provider }: { currency: string; tiers: TierPlans; provider: StorageProviderInfo }) {
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const create = useMutation(trpc.objectStorage.create.mutationOptions());

  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | undefined>();
  const [region, setRegion] = useState<string>(OBJECT_STORAGE_REGIONS[0].slug);
  const [tier, setTier] = useState<BucketTierValue>('STARTER');
  const [publicAccess, setPublicAccess] = useState(false);
  const [versioning, setVersioning] = useState(false);
  const [wantsCdn, setWantsCdn] = useState(false);
  const [corsDrafts, setCorsDrafts] = useState<CorsDraft[]>([]);
  const [corsErrors, setCorsErrors] = useState<CorsErrors>({});
  const [submitError, setSubmitError] = useState<AppErrorInfo | null>(null);
  // The CDN serves public objects only; the choice is kept for when public access comes back, but not sent.
  const cdnEnabled = wantsCdn && publicAccess;

  const preview = useQuery(trpc.objectStorage.preview.queryOptions({ projectId: project.id, tier }));

  function changeName(value: string) {
    setName(value);
    setSubmitError(null);
    // The rules are checked as soon as there is something to check, so they are met before the submit.
    const parsed = bucketNameSchema.safeParse(value);
    setNameError(value === '' || parsed.success ? undefined : parsed.error.issues[0]?.message);
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubmitError(null);
    const parsedName = bucketNameSchema.safeParse(name);
    setNameError(parsedName.success ? undefined : parsedName.error.issues[0]?.message);
    const cors = rulesOf(corsDrafts);
    setCorsErrors(cors.errors ?? {});
    if (!parsedName.success || cors.errors) return;
    try {
      await create.mutateAsync({
        projectId: project.id,
        name: parsedName.data,
        provider: OBJECT_STORAGE_PROVIDER_NAME,
        region,
        tier,
        publicAccess,
        versioning,
        cdnEnabled,
        corsRules: cors.rules,
      });
    } catch (error) {
      const refusal = appErrorOf(error);
      if (refusal.fields?.name) setNameError(refusal.fields.name);
      else if (refusal.code === 'CONFLICT') setNameError(refusal.message);
      else setSubmitError(refusal);
      return;
    }
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.objectStorage.list.queryKey({ projectId: project.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
    ]);
    // The create answer carries no id; the list, read again, finds the bucket by its global name.
    const created = (await queryClient.fetchQuery(trpc.objectStorage.list.queryOptions({ projectId: project.id }))).find((b) => b.name === parsedName.data);
    router.push(projectPath(project.id, created ? `object-storage/${created.id}` : 'object-storage'));
  }

  const dueToday = preview.data ? formatMinorUnits(preview.data.dueToday, preview.data.currency) : null;

  return (
    <main className="page">
      <PageHeader
        eyebrow={
          <Link href={projectPath(project.id, 'object-storage')} className="muted">
            ← Object storage
          </Link>
        }
        title="Create a bucket"
        description="An S3-compatible bucket billed monthly to this project by tier. Today you pay for the rest of this month only."
      />
      <div className="stack-lg">
        <DevelopmentEndpointNotice provider={provider} />
        <form className={wizard.wizard} onSubmit={onSubmit} noValidate aria-label="Create a bucket">
          <div className={wizard.steps}>
            <WizardStep number={1} title="Name" description="S3 clients address the bucket by this name; it cannot be changed.">
              <Input
                label="Bucket name"
                name="name"
                value={name}
                onChange={(event) => changeName(event.target.value)}
                maxLength={63}
                autoComplete="off"
                spellCheck={false}
                placeholder="acme-uploads"
                hint={NAME_RULES}
                error={nameError}
              />
            </WizardStep>

            <WizardStep number={2} title="Region" description="Where the objects are kept, and the region S3 clients sign their requests for.">
              <OptionCards
                label="Region"
                name="region"
                value={region}
                onChange={setRegion}
                options={OBJECT_STORAGE_REGIONS.map((r) => ({
                  value: r.slug,
                  title: r.name,
                  body: <span className={`${wizard.optionMeta} mono`}>{r.slug}</span>,
                }))}
              />
            </WizardStep>

            <WizardStep
              number={3}
              title="Tier"
              description="The monthly price and what it allows each month. A bucket more than 10% over an allowance is suspended until it is upgraded."
            >
              <OptionCards
                label="Tier"
                name="tier"
                layout="wide"
                value={tier}
                onChange={setTier}
                options={BUCKET_TIERS.map((slug) => {
                  const plan = tiers[slug];
                  return tierOption({
                    value: slug,
                    label: TIER_LABELS[slug],
                    price: { monthly: plan.monthly, currency },
                    slug,
                    specs: (
                      <span className={wizard.specs}>
                        <span>{formatBytes(plan.storageBytes)} storage</span>
                        <span>{formatBytes(plan.egressBytes)} egress</span>
                        <span>{formatRequests(plan.requests)} requests</span>
                      </span>
                    ),
                  });
                })}
              />
            </WizardStep>

            <WizardStep number={4} title="Access" description="Who may read the objects, and what is kept of them.">
              <div className={`${wizard.options} ${wizard.optionsWider}`}>
                <Switch
                  name="publicAccess"
                  title="Public access"
                  checked={publicAccess}
                  onChange={setPublicAccess}
                  meta="Anyone may download objects by URL without a credential. Uploads and listing still need one."
                />
                <Switch
                  name="versioning"
                  title="Versioning"
                  checked={versioning}
                  onChange={setVersioning}
                  meta={
                    provider.kind === 'embedded'
                      ? 'Recorded with the bucket; the development endpoint keeps one version of each object.'
                      : 'Keeps earlier versions of overwritten and deleted objects.'
                  }
                />
                <Switch
                  name="cdnEnabled"
                  title="CDN"
                  checked={cdnEnabled}
                  disabled={!publicAccess}
                  onChange={setWantsCdn}
                  meta={
                    publicAccess
                      ? 'Serves the public objects from a CDN domain, ready about 30 seconds after creation. Delivery is metered: 12 cents per GB and 150 cents per million requests.'
                      : 'The CDN serves public objects only: turn on public access first.'
                  }
                />
              </div>
            </WizardStep>

            <WizardStep
              number={5}
              title="CORS"
              description="Optional: which web origins may call the bucket from a browser. Can be changed at any time on the bucket's page."
            >
              <CorsRulesEditor
                drafts={corsDrafts}
                onChange={(next) => {
                  setCorsDrafts(next);
                  setCorsErrors({});
                }}
                errors={corsErrors}
              />
            </WizardStep>
          </div>

          <aside className={wizard.summary} aria-label="Summary">
            <Card title="Summary">
              <dl className={wizard.summaryList}>
                <dt>Name</dt>
                <dd className="mono">{name || '—'}</dd>
                <dt>Region</dt>
                <dd>{regionName(region)}</dd>
                <dt>Tier</dt>
                <dd>{TIER_LABELS[tier]}</dd>
                <dt>Public access</dt>
                <dd>{publicAccess ? 'On' : 'Off'}</dd>
                <dt>Versioning</dt>
                <dd>{versioning ? 'On' : 'Off'}</dd>
                <dt>CDN</dt>
                <dd>{cdnEnabled ? 'On' : 'Off'}</dd>
                <dt>CORS rules</dt>
                <dd>{corsDrafts.length}</dd>
              </dl>
            </Card>
            <PricePreviewCard
              preview={preview.data}
              loading={preview.isPending}
              error={preview.isError ? <Alert tone="danger">{errorMessage(preview.error)}</Alert> : null}
            />
            {submitError ? <PurchaseError projectId={project.id} error={submitError} notCreated="The bucket was not created" /> : null}
            <SubmitButton variant="primary" block loading={create.isPending} disabled={!preview.data}>
              {dueToday ? `Create and pay ${dueToday}` : 'Create bucket'}
            </SubmitButton>
            <p className="muted" style={{ fontSize: 13 }}>
              The project&apos;s saved card is charged when you create the bucket. Deleting it stops billing.
            </p>
          </aside>
        </form>
      </div>
    </main>
  );
}

function Switch({
  name,
  title,
  meta,
  checked,
  disabled = false,
  onChange,
}: {
  name: string;
  title: string;
  meta: ReactNode;
  checked: boolean;
  disabled?: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <label className={`${wizard.option} ${wizard.toggle}`}>
      <input type="checkbox" role="switch" name={name} checked={checked} disabled={disabled} onChange={(event) => onChange(event.target.checked)} />
      <span className={wizard.optionBody}>
        <span className={wizard.optionTitle}>{title}</span>
        <span className={wizard.optionMeta}>{meta}</span>
      </span>
    </label>
  );
}
