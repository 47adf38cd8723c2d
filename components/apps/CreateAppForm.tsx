'use client';

import { skipToken, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { GIT_HOSTS, type GitHost } from '@/db/schema/gitIntegrations';
import { appNameSchema, serviceInputSchema, MAX_INSTANCES } from '@/server/domains/apps/schema';
import { BranchSelect } from '../integrations/BranchSelect';
import { GIT_HOST_NAMES, GIT_HOST_TITLES, repositoriesQuery, templateQuery, type RepositorySource } from '../integrations/gitHosts';
import { TemplatePreview } from '../integrations/TemplatePreview';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, errorMessage, type AppErrorInfo } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { BackLink } from '../ui/BackLink';
import { ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { EmptyState } from '../ui/EmptyState';
import { Input } from '../ui/Input';
import { LoadFailed } from '../ui/LoadFailed';
import { OptionCards, tierOption } from '../ui/OptionCards';
import { PageHeader } from '../ui/PageHeader';
import { PricePreviewCard } from '../ui/PricePreviewCard';
import { PurchaseError } from '../ui/PurchaseError';
import { Select } from '../ui/Select';
import { Skeleton } from '../ui/Skeleton';
import { SubmitButton } from '../ui/SubmitButton';
import { useToast } from '../ui/Toast';
import { WizardStep } from '../ui/WizardStep';
import { formatMinorUnits } from '../ui/money';
import { appNameFromRepository, regionName, servicesSummary, sizeName, sizeSpecs, type AppRegion, type AppSize } from './apps';
import { useAppCatalog } from './useAppCatalog';
import { NEW_SERVICE, ServiceFields, type FieldErrors, type ServiceDraft } from './ServiceFields';
import wizard from '../ui/Wizard.module.css';
import styles from './apps.module.css';

/** Where the form starts when it is opened from a repository (the Integrations page's browser). */
export interface NewAppStart {
  gitHost: GitHost | null;
  repository: string | null;
  branch: string | null;
}

const NAME_RULES = '1 to 40 lower-case letters, digits and hyphens, starting with a letter; unique among this project’s apps.';

/** The fields the form shows next to their own input; a refusal naming any other is shown in the summary. */
const FIELDS_SHOWN_INLINE =
  /^(name|repository|branch|fromTemplate|service\.(name|sourceDir|buildCommand|runCommand|outputDir|internalPort|instanceSize|instances|region|envVars(\.\d+\.(key|value))?))$/;

export function CreateAppForm({ start }: { start: NewAppStart }) {
  const project = useProject();
  if (!hasRole(project, 'member')) {
    return (
      <main className="page">
        <div className="card">
          <EmptyState
            icon="lock"
            title="Apps are created by members"
            description={`Your role in ${project.name} is ${project.role}. Ask an owner or admin for a member role to create apps.`}
            action={<ButtonLink href={projectPath(project.id, 'apps')}>Back to Apps</ButtonLink>}
          />
        </div>
      </main>
    );
  }
  return <Form start={start} />;
}

function useConnectedHosts() {
  const project = useProject();
  const trpc = useTRPC();
  const host1 = useQuery(trpc.gitHost1.status.queryOptions({ projectId: project.id }));
  const host2 = useQuery(trpc.gitHost2.status.queryOptions({ projectId: project.id }));
  const host3 = useQuery(trpc.gitHost3.status.queryOptions({ projectId: project.id }));
  const statuses = { 'git-host-1': host1, 'git-host-2': host2, 'git-host-3': host3 } as const;
  const pending = host1.isPending || host2.isPending || host3.isPending;
  const failed = [host1, host2, host3].find((query) => query.isError);
  const connected = GIT_HOSTS.filter((host) => statuses[host].data?.connected === true);
  const accountOf = (host: GitHost): string | null =>
    host === 'git-host-1'
      ? host1.data?.accounts.map((account) => account.accountLogin).join(', ') || null
      : ((host === 'git-host-2' ? host2 : host3).data?.accountLogin ?? null);
  return { pending, failed, connected, accountOf };
}

function Form({ start }: { start: NewAppStart }) {
  const hosts = useConnectedHosts();
  const project = useProject();
  // A repository named by the address is read only through a host the project is connected to.
  const startHost = start.gitHost && hosts.connected.includes(start.gitHost) ? start.gitHost : null;
  return (
    <main className="page">
      <PageHeader
        eyebrow={<BackLink href={projectPath(project.id, 'apps')}>Apps</BackLink>}
        title="New app"
        description="An app builds a branch of a repository and runs it as services in a region, billed monthly per instance. Today you pay for the rest of this month only."
      />
      {hosts.failed ? (
        <LoadFailed
          title="The git connections could not be loaded"
          error={hosts.failed.error}
          retry={hosts.failed.refetch}
          retrying={hosts.failed.isFetching}
        />
      ) : hosts.pending ? (
        <Skeleton height={240} />
      ) : hosts.connected.length === 0 ? (
        <div className="card">
          <EmptyState
            icon="folder"
            title="Connect a git host first"
            description="Apps are built from a repository. Install the app on git host 1, or connect git host 2 or 3, on the Integrations page; then come back to choose a repository."
            action={
              <ButtonLink variant="primary" href={projectPath(project.id, 'integrations')}>
                Go to Integrations
              </ButtonLink>
            }
          />
        </div>
      ) : (
        <div className="stack-lg">
          {start.gitHost && !startHost ? (
            <Alert tone="warning" title={`${GIT_HOST_NAMES[start.gitHost]} is not connected to this project`}>
              Its repository cannot be read. Connect it on the <Link href={projectPath(project.id, 'integrations')}>Integrations page</Link>, or choose a
              repository of a connected host.
            </Alert>
          ) : null}
          <Wizard
            start={
              startHost
                ? { gitHost: startHost, repository: start.repository, branch: start.branch }
                : { gitHost: hosts.connected[0]!, repository: null, branch: null }
            }
            hosts={hosts}
          />
        </div>
      )}
    </main>
  );
}

type ConnectedHosts = ReturnType<typeof useConnectedHosts>;

function Wizard({ start, hosts }: { start: NewAppStart & { gitHost: GitHost }; hosts: ConnectedHosts }) {
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const { sizes, regions } = useAppCatalog();
  const create = useMutation(trpc.apps.create.mutationOptions());

  const [host, setHost] = useState<GitHost>(start.gitHost);
  const [repository, setRepository] = useState(start.repository ?? '');
  const [chosenBranch, setChosenBranch] = useState(start.branch ?? '');
  const [modeChoice, setModeChoice] = useState<'template' | 'form' | null>(null);
  const [typedName, setTypedName] = useState<string | null>(null);
  const [service, setService] = useState<ServiceDraft>(NEW_SERVICE);
  const [chosenSize, setChosenSize] = useState<string | null>(null);
  const [instances, setInstances] = useState('1');
  const [chosenRegion, setChosenRegion] = useState<string | null>(null);
  const [autoDeploy, setAutoDeploy] = useState(true);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [submitError, setSubmitError] = useState<AppErrorInfo | null>(null);

  const repositories = useQuery(repositoriesQuery(trpc, project.id, host));
  const picked = repositories.data?.find((candidate) => candidate.fullName === repository);
  const branch = chosenBranch || picked?.defaultBranch || '';
  const source: RepositorySource | null = repository && branch ? { host, repository, branch } : null;
  const template = useQuery(templateQuery(trpc, project.id, source));
  const validTemplate = template.data?.found && template.data.valid ? template.data : null;
  const mode = validTemplate ? (modeChoice ?? 'template') : 'form';

  const size = sizes.data?.find((candidate) => candidate.slug === chosenSize) ?? sizes.data?.[0];
  const region = regions.data?.find((candidate) => candidate.slug === chosenRegion) ?? regions.data?.find((candidate) => candidate.available);
  const instanceCount = Number(instances);
  const instancesValid = Number.isInteger(instanceCount) && instanceCount >= 1 && instanceCount <= MAX_INSTANCES;
  const suggestedName = mode === 'template' && validTemplate ? validTemplate.name : appNameFromRepository(repository);
  const name = typedName ?? suggestedName;
  const nameCheck = appNameSchema.safeParse(name);
  const nameError = errors.name ?? (name !== '' && !nameCheck.success ? nameCheck.error.issues[0]?.message : undefined);

  const preview = useQuery(
    trpc.apps.preview.queryOptions(
      mode === 'template' && source
        ? { projectId: project.id, gitHost: source.host, repository: source.repository, branch: source.branch }
        : mode === 'form' && template.data && size && instancesValid
          ? { projectId: project.id, instanceSize: size.slug, instances: instanceCount }
          : skipToken,
    ),
  );

  function clear(...fields: string[]) {
    setSubmitError(null);
    if (fields.length > 0) setErrors((current) => Object.fromEntries(Object.entries(current).filter(([field]) => !fields.some((f) => field.startsWith(f)))));
  }

  function chooseHost(next: GitHost) {
    setHost(next);
    setRepository('');
    setChosenBranch('');
    setModeChoice(null);
    clear('repository', 'branch', 'fromTemplate');
  }

  function chooseRepository(next: string) {
    setRepository(next);
    setChosenBranch('');
    setModeChoice(null);
    clear('repository', 'branch', 'fromTemplate');
  }

  /** The service as the API takes it, checked with the API's own rules first. */
  function serviceBody() {
    const body = {
      name: service.name,
      appType: service.appType,
      sourceDir: service.sourceDir,
      buildStrategy: service.buildStrategy,
      buildCommand: service.buildCommand.trim(),
      runCommand: service.appType === 'STATIC' ? '' : service.runCommand.trim(),
      outputDir: service.appType === 'STATIC' ? service.outputDir : null,
      internalPort: service.appType === 'STATIC' || service.internalPort.trim() === '' ? undefined : Number(service.internalPort),
      instanceSize: size?.slug ?? '',
      instances: instanceCount,
      region: region?.slug ?? '',
      autoDeploy,
      envVars: service.envVars.map(({ key, value, secret }) => ({ key, value, secret })),
    };
    const checked = serviceInputSchema.safeParse(body);
    if (checked.success) return { body, problems: {} };
    const problems: FieldErrors = {};
    for (const issue of checked.error.issues) problems[['service', ...issue.path.map(String)].join('.')] ??= issue.message;
    return { body, problems };
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubmitError(null);
    if (!source) return;
    const problems: FieldErrors = {};
    if (!nameCheck.success) problems.name = nameCheck.error.issues[0]?.message ?? 'Check the name';
    const built = mode === 'form' ? serviceBody() : null;
    Object.assign(problems, built?.problems);
    setErrors(problems);
    if (Object.keys(problems).length > 0) return;
    let created;
    try {
      created = await create.mutateAsync({
        projectId: project.id,
        name,
        gitHost: source.host,
        repository: source.repository,
        branch: source.branch,
        autoDeploy,
        ...(built ? { service: built.body } : { fromTemplate: true }),
      });
    } catch (error) {
      const refusal = appErrorOf(error);
      if (refusal.code === 'CONFLICT') {
        setErrors({ name: refusal.message });
        return;
      }
      const fields = refusal.fields ?? {};
      setErrors(fields);
      if (Object.keys(fields).length === 0 || Object.keys(fields).some((field) => !FIELDS_SHOWN_INLINE.test(field))) setSubmitError(refusal);
      return;
    }
    toast.success(`App ${created.name} was created; its first deployment is queued`);
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.apps.list.queryKey({ projectId: project.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
    ]);
    router.push(projectPath(project.id, `apps/${created.id}`));
  }

  const dueToday = preview.data ? formatMinorUnits(preview.data.dueToday, preview.data.currency) : null;
  const catalogError = sizes.error ?? regions.error;
  // Steps appear as the choices before them are made; their numbers follow.
  const describesService = source !== null && mode === 'form' && template.data !== undefined;
  const nameStep = 2 + (source ? 1 : 0) + (describesService ? 3 : 0);

  return (
    <form className={wizard.wizard} onSubmit={onSubmit} noValidate aria-label="Create an app">
      <div className={wizard.steps}>
        <WizardStep
          number={1}
          title="Repository"
          description="The repository and branch the app builds. Each push to the branch deploys it again, unless you turn that off."
        >
          <div className="stack-lg">
            <OptionCards
              label="Git host"
              name="gitHost"
              layout="wide"
              value={host}
              onChange={chooseHost}
              options={GIT_HOSTS.map((candidate) => {
                const connected = hosts.connected.includes(candidate);
                const account = hosts.accountOf(candidate);
                return {
                  value: candidate,
                  title: GIT_HOST_TITLES[candidate],
                  disabled: !connected,
                  body: <span className={wizard.optionMeta}>{connected ? (account ? `Connected as ${account}` : 'Connected') : 'Not connected'}</span>,
                };
              })}
            />
            <div className={styles.sourceFields}>
              <Select
                label="Repository"
                name="repository"
                value={repository}
                disabled={!repositories.data}
                onChange={(event) => chooseRepository(event.target.value)}
                options={[
                  { value: '', label: repositories.data ? 'Choose a repository' : repositories.isError ? 'No repositories' : 'Loading repositories…' },
                  ...(repository && !picked ? [{ value: repository, label: repository }] : []),
                  ...(repositories.data ?? []).map((candidate) => ({ value: candidate.fullName, label: candidate.fullName })),
                ]}
                hint="The repositories the connection reaches, most recently updated first."
                error={errors.repository ?? (repositories.isError ? errorMessage(repositories.error) : undefined)}
              />
              {repository ? (
                <BranchSelect
                  key={`${host}:${repository}`}
                  host={host}
                  repository={repository}
                  value={branch}
                  onChange={(next) => {
                    setChosenBranch(next);
                    setModeChoice(null);
                    clear('branch', 'fromTemplate');
                  }}
                  error={errors.branch}
                />
              ) : null}
            </div>
            <p className="muted" style={{ margin: 0, fontSize: 13 }}>
              Not the host you need? Connect it on the <Link href={projectPath(project.id, 'integrations')}>Integrations page</Link>.
            </p>
          </div>
        </WizardStep>

        {source ? (
          <WizardStep
            number={2}
            title="Services"
            description="What the app runs. A template in the repository (.cloudpanel/app.yaml) describes its services; without one, describe a service here."
          >
            {template.isPending ? (
              <Skeleton height={120} />
            ) : template.isError ? (
              <LoadFailed title="The template could not be read" error={template.error} retry={template.refetch} retrying={template.isFetching} />
            ) : (
              <div className="stack-lg">
                {validTemplate ? (
                  <OptionCards
                    label="Services from"
                    name="servicesFrom"
                    layout="wider"
                    value={mode}
                    onChange={(next) => {
                      setModeChoice(next);
                      clear('fromTemplate', 'service');
                    }}
                    options={[
                      {
                        value: 'template',
                        title: 'Use the template’s services',
                        body: (
                          <span className={wizard.optionMeta}>
                            {validTemplate.services.length} {validTemplate.services.length === 1 ? 'service' : 'services'} from {validTemplate.path}
                          </span>
                        ),
                      },
                      { value: 'form', title: 'Describe one service here', body: <span className={wizard.optionMeta}>The template is left aside.</span> },
                    ]}
                  />
                ) : null}
                {mode === 'template' || !validTemplate ? <TemplatePreview template={template.data} /> : null}
                {errors.fromTemplate ? <Alert tone="danger">{errors.fromTemplate}</Alert> : null}
              </div>
            )}
          </WizardStep>
        ) : null}

        {describesService ? (
          <>
            <WizardStep number={3} title="Service" description="How the service is built and run. Empty commands take the build strategy’s defaults.">
              <ServiceFields
                draft={service}
                onChange={(next) => {
                  setService(next);
                  clear(
                    'service.name',
                    'service.appType',
                    'service.sourceDir',
                    'service.build',
                    'service.run',
                    'service.outputDir',
                    'service.internalPort',
                    'service.envVars',
                  );
                }}
                errors={errors}
              />
            </WizardStep>
            <WizardStep number={4} title="Size" description="What each instance of the service gets, and its monthly price. Every instance is billed.">
              {catalogError ? (
                <Alert tone="danger" title="The catalogue could not be loaded">
                  {errorMessage(catalogError)}
                </Alert>
              ) : (
                <div className="stack-lg">
                  <SizeOptions
                    sizes={sizes.data}
                    value={size?.slug ?? null}
                    onChange={(slug) => {
                      setChosenSize(slug);
                      clear('service.instanceSize');
                    }}
                  />
                  {errors['service.instanceSize'] ? <Alert tone="danger">{errors['service.instanceSize']}</Alert> : null}
                  <div className={styles.instances}>
                    <Input
                      label="Instances"
                      name="instances"
                      inputMode="numeric"
                      value={instances}
                      error={errors['service.instances'] ?? (instancesValid ? undefined : `Instances must be a whole number from 1 to ${MAX_INSTANCES}`)}
                      onChange={(event) => {
                        setInstances(event.target.value);
                        clear('service.instances');
                      }}
                    />
                  </div>
                </div>
              )}
            </WizardStep>
            <WizardStep number={5} title="Region" description="Where the app runs. Choose the one closest to its users and to the services it calls.">
              <RegionOptions
                regions={regions.data}
                value={region?.slug ?? null}
                onChange={(slug) => {
                  setChosenRegion(slug);
                  clear('service.region');
                }}
              />
              {errors['service.region'] ? (
                <div style={{ marginTop: 12 }}>
                  <Alert tone="danger">{errors['service.region']}</Alert>
                </div>
              ) : null}
            </WizardStep>
          </>
        ) : null}

        <WizardStep number={nameStep} title="Name" description="How the app is listed in the project.">
          <div className="stack-lg">
            <div style={{ maxWidth: 420 }}>
              <Input
                label="App name"
                name="name"
                value={name}
                maxLength={40}
                autoComplete="off"
                spellCheck={false}
                placeholder="my-app"
                hint={NAME_RULES}
                error={nameError}
                onChange={(event) => {
                  setTypedName(event.target.value);
                  clear('name');
                }}
              />
            </div>
            <label className={`${wizard.option} ${wizard.toggle}`}>
              <input type="checkbox" name="autoDeploy" checked={autoDeploy} onChange={(event) => setAutoDeploy(event.target.checked)} />
              <span className={wizard.optionBody}>
                <span className={wizard.optionTitle}>Deploy on push</span>
                <span className={wizard.optionMeta}>
                  Each push to {branch ? <span className="mono">{branch}</span> : 'the branch'} builds and deploys the app. Off, it deploys only when you ask.
                </span>
              </span>
            </label>
          </div>
        </WizardStep>
      </div>

      <aside className={wizard.summary} aria-label="Summary">
        <Card title="Summary">
          <dl className={wizard.summaryList}>
            <dt>Name</dt>
            <dd className="mono">{name || '—'}</dd>
            <dt>Repository</dt>
            <dd className="mono">{repository || '—'}</dd>
            <dt>Branch</dt>
            <dd className="mono">{branch || '—'}</dd>
            <dt>Services</dt>
            <dd>
              {mode === 'template' && validTemplate
                ? servicesSummary(validTemplate.services)
                : size
                  ? servicesSummary([{ name: service.name || 'web', instanceSize: size.slug, instances: instancesValid ? instanceCount : 1 }])
                  : '—'}
            </dd>
            <dt>Region</dt>
            <dd>
              {mode === 'template' && validTemplate
                ? regionName(validTemplate.services[0]?.region ?? '', regions.data)
                : region
                  ? regionName(region.slug, regions.data)
                  : '—'}
            </dd>
            <dt>Deploys on push</dt>
            <dd>{autoDeploy ? 'Yes' : 'No'}</dd>
          </dl>
        </Card>
        <PricePreviewCard
          preview={preview.data}
          loading={preview.isLoading}
          placeholder="Choose a repository and its services to see the price."
          error={preview.isError ? <Alert tone="danger">{errorMessage(preview.error)}</Alert> : null}
        />
        {submitError ? <PurchaseError projectId={project.id} error={submitError} notCreated="The app was not created" /> : null}
        <SubmitButton variant="primary" block loading={create.isPending} disabled={!source || !preview.data}>
          {dueToday ? `Create and pay ${dueToday}` : 'Create app'}
        </SubmitButton>
        <p className="muted" style={{ fontSize: 13 }}>
          The project&apos;s saved card is charged when you create the app. Deleting it stops billing.
        </p>
      </aside>
    </form>
  );
}

function SizeOptions({ sizes, value, onChange }: { sizes: readonly AppSize[] | undefined; value: string | null; onChange: (slug: string) => void }) {
  if (!sizes) return <OptionSkeletons />;
  return (
    <OptionCards
      label="Size"
      name="instanceSize"
      layout="wide"
      value={value}
      onChange={onChange}
      options={sizes.map((size) =>
        tierOption({
          value: size.slug,
          label: sizeName(size.slug, sizes),
          price: { monthly: size.priceMonthly, currency: size.currency },
          slug: size.slug,
          specs: <span className={wizard.specs}>{sizeSpecs(size)}</span>,
        }),
      )}
    />
  );
}

function RegionOptions({ regions, value, onChange }: { regions: readonly AppRegion[] | undefined; value: string | null; onChange: (slug: string) => void }) {
  if (!regions) return <OptionSkeletons />;
  return (
    <OptionCards
      label="Region"
      name="region"
      value={value}
      onChange={onChange}
      options={regions.map((region) => ({
        value: region.slug,
        title: region.name,
        disabled: !region.available,
        body: (
          <>
            <span className={wizard.optionMeta}>
              <span className="mono">{region.slug}</span> · {region.country}
            </span>
            {region.available ? null : <span className={wizard.unavailable}>Not taking new apps at the moment</span>}
          </>
        ),
      }))}
    />
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
