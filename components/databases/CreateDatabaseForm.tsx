'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { DATABASE_TIERS, POOL_MODES, type DatabaseTier } from '@/db/schema/databases';
import { dbNameSchema } from '@/server/domains/databases/schema';
import { formatBytes } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, errorMessage, type AppErrorInfo } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button, ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { EmptyState } from '../ui/EmptyState';
import { Input } from '../ui/Input';
import { OptionCards, tierOption } from '../ui/OptionCards';
import { PageHeader } from '../ui/PageHeader';
import { PricePreviewCard } from '../ui/PricePreviewCard';
import { PurchaseError } from '../ui/PurchaseError';
import { Skeleton } from '../ui/Skeleton';
import { SubmitButton } from '../ui/SubmitButton';
import { useToast } from '../ui/Toast';
import { WizardStep } from '../ui/WizardStep';
import { formatMinorUnits } from '../ui/money';
import { AvailabilityNotice } from './AvailabilityNotice';
import { CredentialsDialog } from './CredentialsDialog';
import { POOL_MODES_EXPLAINED, TIER_LABELS, type PoolMode, type TenantView } from './databases';
import { TierSpecs } from './TierSpecs';
import wizard from '../ui/Wizard.module.css';
import styles from './databases.module.css';

const NAME_RULES =
  '1 to 40 lower-case letters, digits and underscores, not starting with pg_. The name is the database’s on the shared cluster, so it must be free there.';

export function CreateDatabaseForm() {
  const project = useProject();
  if (!hasRole(project, 'member')) {
    return (
      <main className="page">
        <div className="card">
          <EmptyState
            icon="lock"
            title="Databases are created by members"
            description={`Your role in ${project.name} is ${project.role}. Ask an owner or admin for a member role to create databases.`}
            action={<ButtonLink href={projectPath(project.id, 'databases')}>Back to Databases</ButtonLink>}
          />
        </div>
      </main>
    );
  }
  return <Form />;
}

function Form() {
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const prices = useQuery(trpc.databases.prices.queryOptions({ projectId: project.id }, { staleTime: 5 * 60_000 }));
  const availability = useQuery(trpc.databases.availability.queryOptions({ projectId: project.id }));
  const create = useMutation(trpc.databases.create.mutationOptions());

  const [dbName, setDbName] = useState('');
  const [tier, setTier] = useState<DatabaseTier>('STARTER');
  const [poolMode, setPoolMode] = useState<PoolMode>('TRANSACTION');
  const [nameError, setNameError] = useState<string | undefined>();
  const [submitError, setSubmitError] = useState<AppErrorInfo | null>(null);
  const [created, setCreated] = useState<TenantView | null>(null);
  const preview = useQuery(trpc.databases.preview.queryOptions({ projectId: project.id, tier }));
  const unavailable = availability.data?.available === false;
  // The pool mode's note changes only where databases can be made but no PgBouncer runs.
  const pooler = availability.data?.available !== true || availability.data.pooler;

  function changeName(value: string) {
    setDbName(value);
    setSubmitError(null);
    // Checked as typed, once there is something to check, so the rules are met before the submit.
    const parsed = dbNameSchema.safeParse(value);
    setNameError(value === '' || parsed.success ? undefined : parsed.error.issues[0]?.message);
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubmitError(null);
    const name = dbNameSchema.safeParse(dbName);
    setNameError(name.success ? undefined : name.error.issues[0]?.message);
    if (!name.success) return;
    let tenant;
    try {
      tenant = await create.mutateAsync({ projectId: project.id, dbName: name.data, tier, poolMode });
    } catch (error) {
      const refusal = appErrorOf(error);
      if (refusal.fields?.dbName || refusal.code === 'CONFLICT') setNameError(refusal.fields?.dbName ?? refusal.message);
      else setSubmitError(refusal);
      return;
    }
    setCreated(tenant);
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.databases.list.queryKey({ projectId: project.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
    ]);
  }

  function leave() {
    if (!created) return;
    // The password goes with the dialog: the database's page reads the tenant afresh, without it.
    toast.success(`Database ${created.dbName} was created`);
    router.push(projectPath(project.id, `databases/${created.tenantId}`));
  }

  const dueToday = preview.data ? formatMinorUnits(preview.data.dueToday, preview.data.currency) : null;
  const limits = prices.data?.find((p) => p.tier === tier);

  return (
    <main className="page">
      <PageHeader
        eyebrow={
          <Link href={projectPath(project.id, 'databases')} className="muted">
            ← Databases
          </Link>
        }
        title="New database"
        description="A PostgreSQL database on the shared cluster, with its own user and a PgBouncer pool, billed monthly to this project. Today you pay for the rest of this month only."
      />
      {prices.isError ? (
        <Alert
          tone="danger"
          title="The prices could not be loaded"
          action={
            <Button size="sm" onClick={() => void prices.refetch()}>
              Try again
            </Button>
          }
        >
          {errorMessage(prices.error)}
        </Alert>
      ) : (
        <div className="stack-lg">
          <AvailabilityNotice availability={availability} />
          <form className={wizard.wizard} onSubmit={onSubmit} noValidate aria-label="Create a database">
            <div className={wizard.steps}>
              <WizardStep number={1} title="Name" description="The name of the database, which applications put in their connection string.">
                <div style={{ maxWidth: 420 }}>
                  <Input
                    label="Database name"
                    name="dbName"
                    value={dbName}
                    onChange={(event) => changeName(event.target.value)}
                    maxLength={40}
                    autoComplete="off"
                    spellCheck={false}
                    placeholder="acme_app"
                    hint={NAME_RULES}
                    error={nameError}
                  />
                </div>
              </WizardStep>

              <WizardStep
                number={2}
                title="Tier"
                description="Direct connections, storage and the pool’s size, and the monthly price. The tier can be changed later, if the data fits."
              >
                {prices.data ? (
                  <OptionCards
                    label="Tier"
                    name="tier"
                    layout="wide"
                    value={tier}
                    onChange={(slug) => {
                      setTier(slug);
                      setSubmitError(null);
                    }}
                    options={DATABASE_TIERS.map((slug) => {
                      const price = prices.data.find((p) => p.tier === slug);
                      return tierOption({ value: slug, label: TIER_LABELS[slug], price, slug, specs: price ? <TierSpecs price={price} /> : null });
                    })}
                  />
                ) : (
                  <div className={`${wizard.options} ${wizard.optionsWide}`} aria-busy="true">
                    {DATABASE_TIERS.map((slug) => (
                      <Skeleton key={slug} height={140} />
                    ))}
                  </div>
                )}
              </WizardStep>

              <WizardStep
                number={3}
                title="Pool mode"
                description={
                  pooler
                    ? 'How PgBouncer hands its server connections to your application’s clients. Direct connections are plain PostgreSQL whatever the mode.'
                    : 'How PgBouncer would hand its server connections to your application’s clients. No pooler runs on this installation yet: the mode applies once one does.'
                }
              >
                <OptionCards
                  label="Pool mode"
                  name="poolMode"
                  className={styles.stackedOptions}
                  value={poolMode}
                  onChange={setPoolMode}
                  options={POOL_MODES.map((mode) => ({
                    value: mode,
                    title: (
                      <>
                        {POOL_MODES_EXPLAINED[mode].label}
                        {mode === 'TRANSACTION' ? <span className="muted"> · recommended</span> : null}
                      </>
                    ),
                    body: (
                      <>
                        <span className={wizard.slug}>{mode}</span>
                        <span className={wizard.optionMeta}>{POOL_MODES_EXPLAINED[mode].explained}</span>
                      </>
                    ),
                  }))}
                />
              </WizardStep>
            </div>

            <aside className={wizard.summary} aria-label="Summary">
              <Card title="Summary">
                <dl className={wizard.summaryList}>
                  <dt>Name</dt>
                  <dd className="mono">{dbName || '—'}</dd>
                  <dt>Tier</dt>
                  <dd>{TIER_LABELS[tier]}</dd>
                  <dt>Direct connections</dt>
                  <dd>{limits ? limits.maxConnections : '—'}</dd>
                  <dt>Storage</dt>
                  <dd>{limits ? formatBytes(limits.storageGb * 1_000_000_000) : '—'}</dd>
                  <dt>Pool</dt>
                  <dd>{limits ? `${POOL_MODES_EXPLAINED[poolMode].label}, ${limits.poolSize} connections` : POOL_MODES_EXPLAINED[poolMode].label}</dd>
                </dl>
              </Card>
              <PricePreviewCard
                preview={preview.data}
                loading={preview.isPending}
                error={preview.isError ? <Alert tone="danger">{errorMessage(preview.error)}</Alert> : null}
              />
              {submitError ? <PurchaseError projectId={project.id} error={submitError} notCreated="The database was not created" /> : null}
              <SubmitButton variant="primary" block loading={create.isPending} disabled={!preview.data || unavailable}>
                {dueToday ? `Create and pay ${dueToday}` : 'Create database'}
              </SubmitButton>
              <p className="muted" style={{ fontSize: 13 }}>
                The project&apos;s saved card is charged when you create the database. Deleting it stops billing.
              </p>
            </aside>
          </form>
        </div>
      )}
      <CredentialsDialog tenant={created} title={created ? `Database ${created.dbName} created` : ''} onClose={leave} />
    </main>
  );
}
