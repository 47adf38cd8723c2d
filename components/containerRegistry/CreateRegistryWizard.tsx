'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { registryNameSchema } from '@/server/domains/containerRegistry/schema';
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
import { OptionCards } from '../ui/OptionCards';
import { PageHeader } from '../ui/PageHeader';
import { PricePreviewCard } from '../ui/PricePreviewCard';
import { Skeleton } from '../ui/Skeleton';
import { SubmitButton } from '../ui/SubmitButton';
import { formatMinorUnits } from '../ui/money';
import { ENCRYPTION_LABELS, MUTABILITY_LABELS, regionName, useRegistryRegions, type RegistryProviderInfo } from './registry';
import {
  DEFAULT_SETTINGS,
  EncryptionChoice,
  LifecycleFields,
  liveSettingsErrors,
  MutabilityChoice,
  ScanSwitch,
  settingsErrors,
  settingsValues,
  type SettingsDraft,
  type SettingsErrors,
  type SettingsField,
} from './SettingsFields';
import { SimulatorNotice } from './SimulatorNotice';
import wizard from '../ui/Wizard.module.css';

/** Refusals that a card on the Billing page resolves. */

const NAME_RULES =
  '3–63 lower-case letters, digits and hyphens, starting and ending with a letter or digit. Global: it is the first part of every image name, and no other registry on the platform may hold it.';

export function CreateRegistryWizard({ provider }: { provider: RegistryProviderInfo }) {
  const project = useProject();
  if (!hasRole(project, 'member')) {
    return (
      <main className="page">
        <div className="card">
          <EmptyState
            icon="lock"
            title="Registries are created by members"
            description={`Your role in ${project.name} is ${project.role}. Ask an owner or admin for a member role to create registries.`}
            action={<ButtonLink href={projectPath(project.id, 'container-registry')}>Back to Container registry</ButtonLink>}
          />
        </div>
      </main>
    );
  }
  return <Wizard provider={provider} />;
}

function Wizard({ provider }: { provider: RegistryProviderInfo }) {
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const regions = useRegistryRegions(project.id);
  const preview = useQuery(trpc.containerRegistry.preview.queryOptions({ projectId: project.id }));
  const create = useMutation(trpc.containerRegistry.create.mutationOptions());

  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | undefined>();
  const [chosenRegion, setChosenRegion] = useState<string | null>(null);
  const [draft, setDraft] = useState<SettingsDraft>(DEFAULT_SETTINGS);
  const [errors, setErrors] = useState<SettingsErrors>({});
  const [submitError, setSubmitError] = useState<AppErrorInfo | null>(null);
  const region = chosenRegion ?? regions.data?.[0]?.value ?? null;

  function changeName(value: string) {
    setName(value);
    setSubmitError(null);
    // The rules are checked as soon as there is something to check, so they are met before the submit.
    const parsed = registryNameSchema.safeParse(value);
    setNameError(value === '' || parsed.success ? undefined : parsed.error.issues[0]?.message);
  }

  function changeSettings(next: SettingsDraft, field?: SettingsField) {
    setDraft(next);
    setSubmitError(null);
    setErrors((previous) => liveSettingsErrors(previous, next, field));
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubmitError(null);
    const parsedName = registryNameSchema.safeParse(name);
    setNameError(parsedName.success ? undefined : parsedName.error.issues[0]?.message);
    const found = settingsErrors(draft);
    setErrors(found);
    if (!parsedName.success || Object.keys(found).length > 0 || !region) return;
    const { kmsKeyArn, ...settings } = settingsValues(draft);
    let created;
    try {
      created = await create.mutateAsync({
        projectId: project.id,
        name: parsedName.data,
        region,
        ...settings,
        ...(kmsKeyArn ? { kmsKeyArn } : {}),
      });
    } catch (error) {
      const refusal = appErrorOf(error);
      if (refusal.fields?.name) setNameError(refusal.fields.name);
      else if (refusal.code === 'CONFLICT') setNameError(refusal.message);
      else if (refusal.fields?.kmsKeyArn) setErrors({ kmsKeyArn: refusal.fields.kmsKeyArn });
      else setSubmitError(refusal);
      return;
    }
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.containerRegistry.list.queryKey({ projectId: project.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
    ]);
    router.push(projectPath(project.id, `container-registry/${created.id}`));
  }

  const dueToday = preview.data ? formatMinorUnits(preview.data.dueToday, preview.data.currency) : null;
  const imagePrefix = `${provider.host}/${name || '<registry>'}/`;

  return (
    <main className="page">
      <PageHeader
        eyebrow={
          <Link href={projectPath(project.id, 'container-registry')} className="muted">
            ← Container registry
          </Link>
        }
        title="Create a registry"
        description="A private Docker registry for this project's images, at USD 1 a month, with storage and egress included for now. Today you pay for the rest of this month only."
      />
      <div className="stack-lg">
        <SimulatorNotice provider={provider} />
        <form className={wizard.wizard} onSubmit={onSubmit} noValidate aria-label="Create a registry">
          <div className={wizard.steps}>
            <WizardStep number={1} title="Name" description="Images in the registry are named after it; it cannot be changed.">
              <div className="stack">
                <Input
                  label="Registry name"
                  name="name"
                  value={name}
                  onChange={(event) => changeName(event.target.value)}
                  maxLength={63}
                  autoComplete="off"
                  spellCheck={false}
                  placeholder="acme"
                  hint={NAME_RULES}
                  error={nameError}
                />
                <p className="muted" style={{ fontSize: 13 }}>
                  Images will be pushed as{' '}
                  <span className="mono" data-testid="image-name-preview">
                    {imagePrefix}
                    {'<repository>:<tag>'}
                  </span>
                </p>
              </div>
            </WizardStep>

            <WizardStep number={2} title="Region" description="Where the images are stored. It is fixed for the life of the registry.">
              {regions.isError ? (
                <Alert tone="danger" title="The regions could not be loaded">
                  {errorMessage(regions.error)}
                </Alert>
              ) : regions.data ? (
                <OptionCards
                  label="Region"
                  name="region"
                  value={region}
                  onChange={setChosenRegion}
                  options={regions.data.map((r) => ({ value: r.value, title: r.label, body: <span className={`${wizard.optionMeta} mono`}>{r.value}</span> }))}
                />
              ) : (
                <div className={wizard.options} aria-busy="true">
                  {[0, 1, 2, 3, 4].map((i) => (
                    <Skeleton key={i} height={58} />
                  ))}
                </div>
              )}
            </WizardStep>

            <WizardStep
              number={3}
              title="Tags and scanning"
              description="Apply to every repository of the registry; both can be changed later, and the change reaches every repository at once."
            >
              <div className="stack">
                <MutabilityChoice draft={draft} errors={errors} onChange={changeSettings} />
                <ScanSwitch draft={draft} errors={errors} onChange={changeSettings} />
              </div>
            </WizardStep>

            <WizardStep
              number={4}
              title="Encryption"
              description="How images are encrypted at rest. A repository keeps the encryption it was created with; a later change applies to new repositories only."
            >
              <EncryptionChoice draft={draft} errors={errors} onChange={changeSettings} />
            </WizardStep>

            <WizardStep
              number={5}
              title="Retention"
              description="The retention policy new repositories start with. Each repository's own policy can be changed on its page."
            >
              <LifecycleFields draft={draft} errors={errors} onChange={changeSettings} />
            </WizardStep>
          </div>

          <aside className={wizard.summary} aria-label="Summary">
            <Card title="Summary">
              <dl className={wizard.summaryList}>
                <dt>Name</dt>
                <dd className="mono">{name || '—'}</dd>
                <dt>Region</dt>
                <dd>{region ? regionName(region, regions.data) : '—'}</dd>
                <dt>Tags</dt>
                <dd>{MUTABILITY_LABELS[draft.imageTagMutability].label}</dd>
                <dt>Scan on push</dt>
                <dd>{draft.scanOnPush ? 'On' : 'Off'}</dd>
                <dt>Encryption</dt>
                <dd>{ENCRYPTION_LABELS[draft.encryptionType].label}</dd>
                <dt>Retention</dt>
                <dd>
                  {draft.lifecycleEnabled
                    ? `Keep ${draft.lifecycleKeepLastN || '?'} tagged; untagged after ${draft.lifecycleUntaggedAfterDays || '?'} days`
                    : 'Off'}
                </dd>
              </dl>
            </Card>
            <PricePreviewCard
              preview={preview.data}
              loading={preview.isPending}
              error={preview.isError ? <Alert tone="danger">{errorMessage(preview.error)}</Alert> : null}
            />
            {submitError ? <PurchaseError projectId={project.id} error={submitError} notCreated="The registry was not created" /> : null}
            <SubmitButton variant="primary" block loading={create.isPending} disabled={!preview.data || !region}>
              {dueToday ? `Create and pay ${dueToday}` : 'Create registry'}
            </SubmitButton>
            <p className="muted" style={{ fontSize: 13 }}>
              The project&apos;s saved card is charged when you create the registry. Storage and egress are measured and included for now. Deleting the registry
              stops billing.
            </p>
          </aside>
        </form>
      </div>
    </main>
  );
}
