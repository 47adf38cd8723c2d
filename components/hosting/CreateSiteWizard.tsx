'use client';

import { skipToken, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import type { HostingTier, PhpVersion } from '@/db/schema/hosting';
import { databaseNameSchema, extraStorageSchema, HOSTING_TIERS, PHP_VERSIONS, siteNameSchema } from '@/server/domains/hosting/schema';
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
import { TIER_LABELS, type HostingCatalog, type HostingProviderInfo } from './hosting';
import { WebSimulatorNotice } from './SimulatorNotice';
import { TierSpecs } from './TierSpecs';
import wizard from '../ui/Wizard.module.css';

const NAME_RULES =
  '3 to 40 characters: a lower-case letter, then lower-case letters, digits or underscores. Names are shared by every project: it is the SFTP username and the first label of the site’s address.';

const PHP_NOTES: Record<PhpVersion, string> = {
  '8.1': 'Security fixes only; for older applications',
  '8.2': 'Supported',
  '8.3': 'The newest; recommended',
};

type FieldErrors = Partial<Record<'siteName' | 'extraStorageGb' | 'database', string>>;

export function CreateSiteWizard({ catalog, platformDomain, provider }: { catalog: HostingCatalog; platformDomain: string; provider: HostingProviderInfo }) {
  const project = useProject();
  if (!hasRole(project, 'member')) {
    return (
      <main className="page">
        <div className="card">
          <EmptyState
            icon="lock"
            title="Sites are created by members"
            description={`Your role in ${project.name} is ${project.role}. Ask an owner or admin for a member role to create sites.`}
            action={<ButtonLink href={projectPath(project.id, 'hosting')}>Back to Hosting</ButtonLink>}
          />
        </div>
      </main>
    );
  }
  return <Wizard catalog={catalog} platformDomain={platformDomain} provider={provider} />;
}

function Wizard({ catalog, platformDomain, provider }: { catalog: HostingCatalog; platformDomain: string; provider: HostingProviderInfo }) {
  const { tiers, extraStorageBlockGb, maxExtraStorageGb } = catalog;
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const prices = useQuery(trpc.hosting.prices.queryOptions({ projectId: project.id }, { staleTime: 5 * 60_000 }));
  const features = useQuery(trpc.hosting.features.queryOptions({ projectId: project.id }, { staleTime: 5 * 60_000 }));
  const create = useMutation(trpc.hosting.create.mutationOptions());

  const [siteName, setSiteName] = useState('');
  const [tier, setTier] = useState<HostingTier>('STARTER');
  const [phpVersion, setPhpVersion] = useState<PhpVersion>('8.3');
  const [extraStorage, setExtraStorage] = useState('0');
  const [databaseName, setDatabaseName] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [submitError, setSubmitError] = useState<AppErrorInfo | null>(null);

  const storage = extraStorageSchema.safeParse(extraStorage === '' ? 0 : extraStorage);
  const extraStorageGb = storage.success ? storage.data : null;
  const storageError = storage.success ? undefined : storage.error.issues[0]?.message;
  const preview = useQuery(trpc.hosting.preview.queryOptions(extraStorageGb === null ? skipToken : { projectId: project.id, tier, extraStorageGb }));
  const blockPrice = features.data?.extraStorage;

  function check(field: 'siteName' | 'database', value: string) {
    setSubmitError(null);
    // Checked as typed, once there is something to check, so the rules are met before the submit.
    const parsed = (field === 'siteName' ? siteNameSchema : databaseNameSchema).safeParse(value);
    setErrors((current) => ({ ...current, [field]: value === '' || parsed.success ? undefined : parsed.error.issues[0]?.message }));
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubmitError(null);
    const name = siteNameSchema.safeParse(siteName);
    const database = databaseName === '' ? null : databaseNameSchema.safeParse(databaseName);
    setErrors({
      siteName: name.success ? undefined : name.error.issues[0]?.message,
      database: database && !database.success ? database.error.issues[0]?.message : undefined,
    });
    if (!name.success || (database && !database.success) || extraStorageGb === null) return;
    let created;
    try {
      created = await create.mutateAsync({
        projectId: project.id,
        siteName: name.data,
        tier,
        phpVersion,
        extraStorageGb,
        ...(database ? { database: { name: database.data } } : {}),
      });
    } catch (error) {
      const refusal = appErrorOf(error);
      const fields = refusal.fields ?? {};
      if (fields.siteName || refusal.code === 'CONFLICT') setErrors({ siteName: fields.siteName ?? refusal.message });
      else if (fields['database.name']) setErrors({ database: fields['database.name'] });
      else if (fields.extraStorageGb) setErrors({ extraStorageGb: fields.extraStorageGb });
      else setSubmitError(refusal);
      return;
    }
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.hosting.list.queryKey({ projectId: project.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
    ]);
    const sitePath = projectPath(project.id, `hosting/${created.tenantId}`);
    if (created.databaseError) {
      // The site was bought and kept; its page says what went wrong with the database.
      router.push(`${sitePath}?databaseError=${encodeURIComponent(created.databaseError)}`);
      return;
    }
    toast.success(created.database ? `Site ${name.data} was created with the database ${created.database.dbName}` : `Site ${name.data} was created`);
    router.push(sitePath);
  }

  const dueToday = preview.data ? formatMinorUnits(preview.data.dueToday, preview.data.currency) : null;
  const diskGb = tiers[tier].diskGb + (extraStorageGb ?? 0);

  return (
    <main className="page">
      <PageHeader
        eyebrow={
          <Link href={projectPath(project.id, 'hosting')} className="muted">
            ← Hosting
          </Link>
        }
        title="Create a site"
        description="A PHP site billed monthly to this project, with its own files, domains, MySQL databases and SFTP access. Today you pay for the rest of this month only."
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
          <WebSimulatorNotice provider={provider} />
          <form className={wizard.wizard} onSubmit={onSubmit} noValidate aria-label="Create a site">
            <div className={wizard.steps}>
              <WizardStep number={1} title="Name" description={`The site’s own address is <name>.${platformDomain}; attach your domains once it exists.`}>
                <Input
                  label="Site name"
                  name="siteName"
                  value={siteName}
                  onChange={(event) => {
                    setSiteName(event.target.value);
                    check('siteName', event.target.value);
                  }}
                  maxLength={40}
                  autoComplete="off"
                  spellCheck={false}
                  placeholder="acme_blog"
                  hint={NAME_RULES}
                  error={errors.siteName}
                />
              </WizardStep>

              <WizardStep
                number={2}
                title="Tier"
                description="What the site may use, and its monthly price. The tier can be changed later; the disk stays as bought."
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
                    options={HOSTING_TIERS.map((slug) =>
                      tierOption({
                        value: slug,
                        label: TIER_LABELS[slug],
                        price: prices.data.find((p) => p.tier === slug),
                        slug,
                        specs: <TierSpecs limits={tiers[slug]} />,
                      }),
                    )}
                  />
                ) : (
                  <div className={`${wizard.options} ${wizard.optionsWide}`} aria-busy="true">
                    {HOSTING_TIERS.map((slug) => (
                      <Skeleton key={slug} height={150} />
                    ))}
                  </div>
                )}
              </WizardStep>

              <WizardStep number={3} title="PHP version" description="The PHP that runs the site’s scripts, in a pool of its own.">
                <OptionCards
                  label="PHP version"
                  name="phpVersion"
                  value={phpVersion}
                  onChange={setPhpVersion}
                  options={PHP_VERSIONS.map((version) => ({
                    value: version,
                    title: <>PHP {version}</>,
                    body: <span className={wizard.optionMeta}>{PHP_NOTES[version]}</span>,
                  }))}
                />
              </WizardStep>

              <WizardStep
                number={4}
                title="Extra storage"
                description={`Disk beyond the tier’s, in blocks of ${extraStorageBlockGb} GB${
                  blockPrice ? ` at ${formatMinorUnits(blockPrice.monthly, blockPrice.currency)} a month each` : ''
                }. It stays with the site when the tier changes.`}
              >
                <div style={{ maxWidth: 320 }}>
                  <Input
                    label="Extra storage (GB)"
                    name="extraStorageGb"
                    type="number"
                    inputMode="numeric"
                    min={0}
                    max={maxExtraStorageGb}
                    step={extraStorageBlockGb}
                    value={extraStorage}
                    onChange={(event) => {
                      setExtraStorage(event.target.value);
                      setErrors((current) => ({ ...current, extraStorageGb: undefined }));
                    }}
                    hint={`0 to ${maxExtraStorageGb} GB. The site gets ${diskGb} GB in all.`}
                    error={storageError ?? errors.extraStorageGb}
                  />
                </div>
              </WizardStep>

              <WizardStep
                number={5}
                title="Database"
                description="Optional: a MySQL database made with the site. More can be added on the site’s page, up to the tier’s limit."
              >
                <div style={{ maxWidth: 420 }}>
                  <Input
                    label="Database name"
                    name="databaseName"
                    optional
                    value={databaseName}
                    onChange={(event) => {
                      setDatabaseName(event.target.value);
                      check('database', event.target.value);
                    }}
                    maxLength={16}
                    autoComplete="off"
                    spellCheck={false}
                    placeholder="wordpress"
                    hint={
                      databaseName && !errors.database && siteName ? (
                        <>
                          The database is created as <span className="mono">{`${siteName}_${databaseName}`}</span>, with a user of its own.
                        </>
                      ) : (
                        '1 to 16 lower-case letters and digits, starting with a letter. Leave it empty for no database.'
                      )
                    }
                    error={errors.database}
                  />
                </div>
              </WizardStep>
            </div>

            <aside className={wizard.summary} aria-label="Summary">
              <Card title="Summary">
                <dl className={wizard.summaryList}>
                  <dt>Name</dt>
                  <dd className="mono">{siteName || '—'}</dd>
                  <dt>Address</dt>
                  <dd className="mono">{siteName ? `${siteName}.${platformDomain}` : '—'}</dd>
                  <dt>Tier</dt>
                  <dd>{TIER_LABELS[tier]}</dd>
                  <dt>PHP</dt>
                  <dd>{phpVersion}</dd>
                  <dt>Disk</dt>
                  <dd>{diskGb} GB</dd>
                  <dt>Database</dt>
                  <dd className={databaseName ? 'mono' : undefined}>{databaseName || 'None'}</dd>
                </dl>
              </Card>
              <PricePreviewCard
                preview={preview.data}
                loading={extraStorageGb !== null && preview.isPending}
                placeholder="Choose the extra storage in blocks of 10 GB to see the price."
                error={preview.isError ? <Alert tone="danger">{errorMessage(preview.error)}</Alert> : null}
              />
              {submitError ? <PurchaseError projectId={project.id} error={submitError} notCreated="The site was not created" /> : null}
              <SubmitButton variant="primary" block loading={create.isPending} disabled={!preview.data || extraStorageGb === null}>
                {dueToday ? `Create and pay ${dueToday}` : 'Create site'}
              </SubmitButton>
              <p className="muted" style={{ fontSize: 13 }}>
                The project&apos;s saved card is charged when you create the site. Deleting it stops billing.
              </p>
            </aside>
          </form>
        </div>
      )}
    </main>
  );
}
