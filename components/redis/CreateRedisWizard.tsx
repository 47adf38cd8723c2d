'use client';

import { skipToken, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { PERSISTENCE_EXPLAINED, REDIS_DATA_PERSISTENCE, redisNameSchema, type RedisDataPersistence } from '@/server/domains/redis/schema';
import { formatMemory } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, errorMessage, type AppErrorInfo } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { PurchaseError } from '../ui/PurchaseError';
import { WizardStep } from '../ui/WizardStep';
import { Button, ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { EmptyState } from '../ui/EmptyState';
import { Input } from '../ui/Input';
import { OptionCards, tierOption } from '../ui/OptionCards';
import { PageHeader } from '../ui/PageHeader';
import { PricePreviewCard } from '../ui/PricePreviewCard';
import { Skeleton } from '../ui/Skeleton';
import { SubmitButton } from '../ui/SubmitButton';
import { formatMinorUnits } from '../ui/money';
import {
  formatCpu,
  formatPlanPrice,
  PERSISTENCE_LABELS,
  regionName,
  useRedisCatalog,
  type RedisPlan,
  type RedisProviderInfo,
  type RedisRegion,
} from './catalog';
import { SimulatorNotice } from './SimulatorNotice';
import wizard from '../ui/Wizard.module.css';

/** Refusals that a card on the Billing page resolves. */

/** The fields a 422 names that the wizard shows next to their step rather than in the summary. */
type StepField = 'region' | 'planSlug' | 'replication' | 'dataPersistence';

const NAME_RULES =
  'Lower-case letters, digits and hyphens, starting and ending with a letter or digit; at most 40 characters; unique among this project’s databases.';

export function CreateRedisWizard({ currency, provider }: { currency: string; provider: RedisProviderInfo }) {
  const project = useProject();
  if (!hasRole(project, 'member')) {
    return (
      <main className="page">
        <div className="card">
          <EmptyState
            icon="lock"
            title="Redis databases are created by members"
            description={`Your role in ${project.name} is ${project.role}. Ask an owner or admin for a member role to create databases.`}
            action={<ButtonLink href={projectPath(project.id, 'redis')}>Back to Redis</ButtonLink>}
          />
        </div>
      </main>
    );
  }
  return <Wizard currency={currency} provider={provider} />;
}

function Wizard({ currency, provider }: { currency: string; provider: RedisProviderInfo }) {
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { plans, regions } = useRedisCatalog();
  const create = useMutation(trpc.redis.create.mutationOptions());

  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | undefined>();
  const [chosenRegion, setChosenRegion] = useState<string | null>(null);
  const [planSlug, setPlanSlug] = useState<string | null>(null);
  const [wantsReplication, setWantsReplication] = useState(false);
  const [wantsPersistence, setWantsPersistence] = useState<RedisDataPersistence>('NONE');
  const [stepErrors, setStepErrors] = useState<Partial<Record<StepField, string>>>({});
  const [submitError, setSubmitError] = useState<AppErrorInfo | null>(null);

  const regionOptions = regions.data ?? [];
  const region = regionOptions.find((r) => r.slug === (chosenRegion ?? regionOptions.find((o) => o.available)?.slug));
  const plan = plans.data?.find((p) => p.slug === planSlug && region !== undefined && p.regions.includes(region.slug));
  // A plan without an option cannot carry it: the choice is kept for a plan that has it, but not sent.
  const replication = wantsReplication && plan?.supportsReplication === true;
  const persistence: RedisDataPersistence = plan?.supportsPersistence === false ? 'NONE' : wantsPersistence;
  const preview = useQuery(
    trpc.redis.preview.queryOptions(plan ? { projectId: project.id, planSlug: plan.slug, replication: replication ? 'true' : 'false' } : skipToken),
  );
  const catalogError = plans.error ?? regions.error;

  function clearErrors(field?: StepField) {
    setSubmitError(null);
    if (field) setStepErrors(({ [field]: _cleared, ...rest }) => rest);
  }

  function changeName(value: string) {
    setName(value);
    setSubmitError(null);
    // The rules are checked as soon as there is something to check, so they are met before the submit.
    const parsed = redisNameSchema.safeParse(value);
    setNameError(value === '' || parsed.success ? undefined : parsed.error.issues[0]?.message);
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubmitError(null);
    const parsedName = redisNameSchema.safeParse(name);
    setNameError(parsedName.success ? undefined : parsedName.error.issues[0]?.message);
    if (!parsedName.success || !region || !plan) return;
    let created;
    try {
      created = await create.mutateAsync({
        projectId: project.id,
        name: parsedName.data,
        planSlug: plan.slug,
        region: region.slug,
        replication,
        dataPersistence: persistence,
      });
    } catch (error) {
      const refusal = appErrorOf(error);
      if (refusal.fields?.name) setNameError(refusal.fields.name);
      else if (refusal.code === 'CONFLICT') setNameError(refusal.message);
      else if (refusal.fields && Object.keys(refusal.fields).some(isStepField)) setStepErrors(pickStepErrors(refusal.fields));
      else setSubmitError(refusal);
      return;
    }
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.redis.list.queryKey({ projectId: project.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
    ]);
    router.push(projectPath(project.id, `redis/${created.id}`));
  }

  const dueToday = preview.data ? formatMinorUnits(preview.data.dueToday, preview.data.currency) : null;

  return (
    <main className="page">
      <PageHeader
        eyebrow={
          <Link href={projectPath(project.id, 'redis')} className="muted">
            ← Redis
          </Link>
        }
        title="Create a Redis database"
        description="A Redis 7.2 compatible database billed monthly to this project. Today you pay for the rest of this month only."
      />
      {catalogError ? (
        <Alert
          tone="danger"
          title="The catalogue could not be loaded"
          action={
            <Button size="sm" onClick={() => void Promise.all([plans.refetch(), regions.refetch()])}>
              Try again
            </Button>
          }
        >
          {errorMessage(catalogError)}
        </Alert>
      ) : (
        <div className="stack-lg">
          <SimulatorNotice provider={provider} />
          <form className={wizard.wizard} onSubmit={onSubmit} noValidate aria-label="Create a Redis database">
            <div className={wizard.steps}>
              <WizardStep number={1} title="Name" description="How the database is listed; clients connect by address, not by name.">
                <Input
                  label="Database name"
                  name="name"
                  value={name}
                  onChange={(event) => changeName(event.target.value)}
                  maxLength={40}
                  autoComplete="off"
                  spellCheck={false}
                  placeholder="cache"
                  hint={NAME_RULES}
                  error={nameError}
                />
              </WizardStep>

              <WizardStep number={2} title="Region" description="Where the database runs. Choose the one closest to the servers that use it.">
                {regions.isPending ? (
                  <OptionSkeletons />
                ) : (
                  <RegionOptions
                    regions={regionOptions}
                    value={region?.slug ?? null}
                    onChange={(slug) => {
                      setChosenRegion(slug);
                      clearErrors('region');
                    }}
                  />
                )}
                <StepError message={stepErrors.region} />
              </WizardStep>

              <WizardStep
                number={3}
                title="Plan"
                description={
                  region
                    ? `Plans sold in ${region.name}, with their monthly price${replication ? ' for the primary and its replica' : ''}.`
                    : 'Choose a region first.'
                }
              >
                {!plans.data || !region ? (
                  <OptionSkeletons />
                ) : (
                  <PlanOptions
                    plans={plans.data}
                    regions={regionOptions}
                    region={region}
                    replication={replication}
                    currency={currency}
                    value={plan?.slug ?? null}
                    onChange={(slug) => {
                      setPlanSlug(slug);
                      clearErrors('planSlug');
                    }}
                  />
                )}
                <StepError message={stepErrors.planSlug} />
              </WizardStep>

              <WizardStep
                number={4}
                title="Replication"
                description="A replica on its own process, kept in sync, that takes over the data if the primary is lost."
              >
                <label className={`${wizard.option} ${wizard.toggle}`}>
                  <input
                    type="checkbox"
                    name="replication"
                    checked={replication}
                    disabled={!plan?.supportsReplication}
                    onChange={(event) => {
                      setWantsReplication(event.target.checked);
                      clearErrors('replication');
                    }}
                  />
                  <span className={wizard.optionBody}>
                    <span className={wizard.optionTitle}>Add a replica</span>
                    <span className={wizard.optionMeta}>
                      {!plan
                        ? 'Choose a plan first.'
                        : plan.supportsReplication
                          ? `Half of the ${formatMemory(plan.memoryMb)} is reserved for keeping the replica in sync, and the plan is billed twice: ${formatPlanPrice(plan, true, currency)}/month in all.`
                          : `${plan.name} has no replication; choose a Standard or Pro plan for it.`}
                    </span>
                  </span>
                </label>
                <StepError message={stepErrors.replication} />
              </WizardStep>

              <WizardStep
                number={5}
                title="Persistence"
                description="Whether and how often the data is written to disk, and so what a restart or a crash can lose."
              >
                <PersistenceOptions
                  plan={plan}
                  value={persistence}
                  onChange={(next) => {
                    setWantsPersistence(next);
                    clearErrors('dataPersistence');
                  }}
                />
                <StepError message={stepErrors.dataPersistence} />
              </WizardStep>
            </div>

            <aside className={wizard.summary} aria-label="Summary">
              <Card title="Summary">
                <dl className={wizard.summaryList}>
                  <dt>Name</dt>
                  <dd className="mono">{name || '—'}</dd>
                  <dt>Region</dt>
                  <dd>{region ? regionName(region.slug, regionOptions) : '—'}</dd>
                  <dt>Plan</dt>
                  <dd>{plan ? plan.name : '—'}</dd>
                  <dt>Usable memory</dt>
                  <dd>{plan ? formatMemory(replication ? plan.memoryMb / 2 : plan.memoryMb) : '—'}</dd>
                  <dt>Replication</dt>
                  <dd>{replication ? 'Replica' : 'None'}</dd>
                  <dt>Persistence</dt>
                  <dd>{PERSISTENCE_LABELS[persistence]}</dd>
                </dl>
              </Card>
              <PricePreviewCard
                preview={preview.data}
                loading={plan !== undefined && preview.isPending}
                placeholder="Choose a plan to see the price."
                error={preview.isError ? <Alert tone="danger">{errorMessage(preview.error)}</Alert> : null}
              />
              {submitError ? <PurchaseError projectId={project.id} error={submitError} notCreated="The database was not created" /> : null}
              <SubmitButton variant="primary" block loading={create.isPending} disabled={!plan || !region || !preview.data}>
                {dueToday ? `Create and pay ${dueToday}` : 'Create database'}
              </SubmitButton>
              <p className="muted" style={{ fontSize: 13 }}>
                The project&apos;s saved card is charged when you create the database. Deleting it stops billing.
              </p>
            </aside>
          </form>
        </div>
      )}
    </main>
  );
}

function isStepField(field: string): field is StepField {
  return field === 'region' || field === 'planSlug' || field === 'replication' || field === 'dataPersistence';
}

function pickStepErrors(fields: Record<string, string>): Partial<Record<StepField, string>> {
  return Object.fromEntries(Object.entries(fields).filter(([field]) => isStepField(field)));
}

function StepError({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <div style={{ marginTop: 12 }}>
      <Alert tone="danger">{message}</Alert>
    </div>
  );
}

function OptionSkeletons() {
  return (
    <div className={wizard.options} aria-busy="true">
      {[0, 1, 2].map((i) => (
        <Skeleton key={i} height={58} />
      ))}
    </div>
  );
}

function RegionOptions({ regions, value, onChange }: { regions: readonly RedisRegion[]; value: string | null; onChange: (slug: string) => void }) {
  return (
    <OptionCards
      label="Region"
      name="region"
      value={value}
      onChange={onChange}
      options={regions.map((r) => ({
        value: r.slug,
        title: r.name,
        disabled: !r.available,
        body: (
          <>
            <span className={wizard.optionMeta}>
              <span className="mono">{r.slug}</span> · {r.country}
            </span>
            {r.available ? null : <span className={wizard.unavailable}>Not taking new databases at the moment</span>}
          </>
        ),
      }))}
    />
  );
}

function PlanOptions({
  plans,
  regions,
  region,
  replication,
  currency,
  value,
  onChange,
}: {
  plans: readonly RedisPlan[];
  regions: readonly RedisRegion[];
  region: RedisRegion;
  replication: boolean;
  currency: string;
  value: string | null;
  onChange: (slug: string) => void;
}) {
  return (
    <OptionCards
      label="Plan"
      name="plan"
      layout="wide"
      value={value}
      onChange={onChange}
      options={plans.map((plan) => {
        const sold = plan.regions.includes(region.slug);
        const usableMb = replication && plan.supportsReplication ? plan.memoryMb / 2 : plan.memoryMb;
        return tierOption({
          value: plan.slug,
          label: plan.name,
          price: formatPlanPrice(plan, replication && plan.supportsReplication, currency),
          slug: plan.slug,
          disabled: !sold,
          specs: (
            <>
              <span className={wizard.specs}>
                <span>
                  {formatMemory(plan.memoryMb)} memory · {formatMemory(usableMb)} usable
                </span>
                <span>
                  {formatCpu(plan.cpuMilli)} · {plan.supportsPersistence ? 'persistence' : 'no persistence'}
                  {plan.supportsReplication ? ' · replica' : ''}
                </span>
              </span>
              {sold ? null : (
                <span className={wizard.unavailable}>
                  Not sold in {region.name}; sold in {plan.regions.map((slug) => regionName(slug, regions)).join(', ') || 'no region at the moment'}
                </span>
              )}
            </>
          ),
        });
      })}
    />
  );
}

function PersistenceOptions({
  plan,
  value,
  onChange,
}: {
  plan: RedisPlan | undefined;
  value: RedisDataPersistence;
  onChange: (next: RedisDataPersistence) => void;
}) {
  return (
    <>
      <OptionCards
        label="Persistence"
        name="dataPersistence"
        layout="wider"
        value={value}
        onChange={onChange}
        options={REDIS_DATA_PERSISTENCE.map((option) => ({
          value: option,
          title: PERSISTENCE_LABELS[option],
          disabled: option !== 'NONE' && plan?.supportsPersistence === false,
          body: <span className={wizard.optionMeta}>{PERSISTENCE_EXPLAINED[option]}</span>,
        }))}
      />
      {plan?.supportsPersistence === false ? (
        <p className={wizard.unavailable}>{plan.name} keeps its data in memory only; choose a Standard or Pro plan to write it to disk.</p>
      ) : null}
    </>
  );
}
