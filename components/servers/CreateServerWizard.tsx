'use client';

import { skipToken, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { INFRA_PROVIDER_NAME, serverNameSchema } from '@/server/domains/servers/schema';
import { formatMemory } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, errorMessage, type AppErrorInfo } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Badge } from '../ui/Badge';
import { Button, ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { Input } from '../ui/Input';
import { PageHeader } from '../ui/PageHeader';
import { PricePreviewCard } from '../ui/PricePreviewCard';
import { Skeleton } from '../ui/Skeleton';
import { SubmitButton } from '../ui/SubmitButton';
import { formatMinorUnits } from '../ui/money';
import { formatTransfer, LAMP_IMAGE_SLUG, useServerCatalog, type OneClick, type ServerRegion, type ServerSize } from './catalog';
import styles from './servers.module.css';

/** Refusals that a card on the Billing page resolves. */
const BILLING_CODES = new Set(['ORG_PAYMENT_METHOD_REQUIRED', 'BILLER_PAYMENT_METHOD_REQUIRED', 'CARD_DECLINED', 'PROJECT_BLOCKED']);

/** A free name is suggested so most servers need no typing; the number keeps a second server in a region from a 409. */
function suggestName(region: string, taken: ReadonlySet<string>): string {
  for (let n = 1; n < 100; n += 1) {
    const candidate = `lamp-${region}-${String(n).padStart(2, '0')}`;
    if (!taken.has(candidate)) return candidate;
  }
  return `lamp-${region}`;
}

export function CreateServerWizard() {
  const project = useProject();
  if (!hasRole(project, 'member')) {
    return (
      <main className="page">
        <div className="card">
          <EmptyState
            icon="lock"
            title="Servers are created by members"
            description={`Your role in ${project.name} is ${project.role}. Ask an owner or admin for a member role to create servers.`}
            action={<ButtonLink href={projectPath(project.id, 'servers')}>Back to servers</ButtonLink>}
          />
        </div>
      </main>
    );
  }
  return <Wizard />;
}

function Wizard() {
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { regions, sizes, oneClicks } = useServerCatalog();
  const servers = useQuery(trpc.servers.list.queryOptions({ projectId: project.id }));
  const create = useMutation(trpc.servers.create.mutationOptions());

  const [chosenRegion, setChosenRegion] = useState<string | null>(null);
  const [slug, setSlug] = useState<string | null>(null);
  const [keyIds, setKeyIds] = useState<ReadonlySet<string>>(new Set());
  const [typedName, setTypedName] = useState<string | null>(null);
  const [nameError, setNameError] = useState<string | undefined>();
  const [submitError, setSubmitError] = useState<AppErrorInfo | null>(null);

  const lamp = oneClicks.data?.find((image) => image.slug === LAMP_IMAGE_SLUG);
  const regionOptions = regions.data?.filter((r) => r.available) ?? [];
  const region = regions.data?.find((r) => r.slug === (chosenRegion ?? regionOptions[0]?.slug));
  const size = sizes.data?.find((s) => s.slug === slug && region?.sizes.includes(s.slug));
  const name = typedName ?? (region ? suggestName(region.slug, new Set(servers.data?.map((s) => s.name))) : '');
  const preview = useQuery(trpc.servers.preview.queryOptions(size ? { projectId: project.id, provider: INFRA_PROVIDER_NAME, slug: size.slug } : skipToken));
  const catalogError = regions.error ?? sizes.error ?? oneClicks.error;

  function chooseRegion(next: ServerRegion) {
    setChosenRegion(next.slug);
    setSubmitError(null);
  }

  function toggleKey(id: string, checked: boolean) {
    const next = new Set(keyIds);
    if (checked) next.add(id);
    else next.delete(id);
    setKeyIds(next);
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubmitError(null);
    const parsedName = serverNameSchema.safeParse(name);
    setNameError(parsedName.success ? undefined : parsedName.error.issues[0]?.message);
    if (!parsedName.success || !region || !size) return;
    try {
      await create.mutateAsync({
        projectId: project.id,
        name: parsedName.data,
        slug: size.slug,
        provider: INFRA_PROVIDER_NAME,
        region: region.slug,
        sshKeyIds: [...keyIds],
      });
    } catch (error) {
      const refusal = appErrorOf(error);
      if (refusal.fields?.name) setNameError(refusal.fields.name);
      else setSubmitError(refusal);
      return;
    }
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.servers.list.queryKey({ projectId: project.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
    ]);
    router.push(`${projectPath(project.id, 'servers')}?created=${encodeURIComponent(parsedName.data)}`);
  }

  const dueToday = preview.data ? formatMinorUnits(preview.data.dueToday, preview.data.currency) : null;

  return (
    <main className="page">
      <PageHeader
        eyebrow={
          <Link href={projectPath(project.id, 'servers')} className="muted">
            ← Servers
          </Link>
        }
        title="Create a server"
        description="A LAMP server billed monthly to this project. Today you pay for the rest of this month only."
      />
      {catalogError ? (
        <Alert
          tone="danger"
          title="The catalogue could not be loaded"
          action={
            <Button size="sm" onClick={() => void Promise.all([regions.refetch(), sizes.refetch(), oneClicks.refetch()])}>
              Try again
            </Button>
          }
        >
          {errorMessage(catalogError)}
        </Alert>
      ) : (
        <form className={styles.wizard} onSubmit={onSubmit} noValidate aria-label="Create a server">
          <div className={styles.steps}>
            <Step number={1} title="Region" description="Where the machine runs. Choose the one closest to your visitors.">
              {regions.isPending ? (
                <OptionSkeletons />
              ) : (
                <div className={styles.options} role="radiogroup" aria-label="Region">
                  {regionOptions.map((r) => (
                    <label key={r.slug} className={styles.option}>
                      <input type="radio" name="region" value={r.slug} checked={region?.slug === r.slug} onChange={() => chooseRegion(r)} />
                      <span className={styles.optionBody}>
                        <span className={styles.optionTitle}>{r.name}</span>
                        <span className={styles.optionMeta}>
                          <span className="mono">{r.slug}</span> · {r.country}
                        </span>
                      </span>
                    </label>
                  ))}
                </div>
              )}
            </Step>

            <Step number={2} title="Size" description={region ? `Sizes sold in ${region.name}, with their monthly price.` : 'Choose a region first.'}>
              {!sizes.data || oneClicks.isPending || !region ? (
                <OptionSkeletons />
              ) : (
                <SizeOptions sizes={sizes.data.filter((s) => region.sizes.includes(s.slug))} lamp={lamp} value={size?.slug ?? null} onChange={setSlug} />
              )}
            </Step>

            <Step number={3} title="Image" description="Servers are built from the LAMP one-click image.">
              <LampImage lamp={lamp} loading={oneClicks.isPending} />
            </Step>

            <Step number={4} title="SSH keys" description="Keys written to the server at first boot, for root logins. They cannot be added here later.">
              <KeyPicker projectId={project.id} value={keyIds} onToggle={toggleKey} />
            </Step>

            <Step number={5} title="Name" description="The server's hostname.">
              <Input
                label="Server name"
                name="name"
                value={name}
                onChange={(event) => {
                  setTypedName(event.target.value);
                  setNameError(undefined);
                }}
                maxLength={63}
                autoComplete="off"
                spellCheck={false}
                hint="Lower-case letters, digits and hyphens; unique among this project's servers."
                error={nameError}
              />
            </Step>
          </div>

          <aside className={styles.summary} aria-label="Summary">
            <Card title="Summary">
              <dl className={styles.summaryList}>
                <dt>Region</dt>
                <dd>{region ? region.name : '—'}</dd>
                <dt>Size</dt>
                <dd className="mono" style={{ fontSize: 12.5 }}>
                  {size ? size.slug : '—'}
                </dd>
                <dt>Image</dt>
                <dd>LAMP</dd>
                <dt>SSH keys</dt>
                <dd>{keyIds.size === 0 ? <span style={{ color: 'var(--warning)' }}>None</span> : keyIds.size}</dd>
                <dt>Name</dt>
                <dd className="mono" style={{ fontSize: 12.5 }}>
                  {name || '—'}
                </dd>
              </dl>
            </Card>
            <PricePreviewCard
              preview={preview.data}
              loading={size !== undefined && preview.isPending}
              placeholder="Choose a size to see the price."
              error={preview.isError ? <Alert tone="danger">{errorMessage(preview.error)}</Alert> : null}
            />
            {submitError ? <SubmitError projectId={project.id} error={submitError} /> : null}
            <SubmitButton variant="primary" block loading={create.isPending} disabled={!size || !region || !preview.data}>
              {dueToday ? `Create and pay ${dueToday}` : 'Create server'}
            </SubmitButton>
            <p className="muted" style={{ fontSize: 13 }}>
              The project&apos;s saved card is charged when you create the server. Deleting the server stops billing.
            </p>
          </aside>
        </form>
      )}
    </main>
  );
}

function Step({ number, title, description, children }: { number: number; title: string; description: ReactNode; children: ReactNode }) {
  const headingId = useId();
  return (
    <section className={styles.step} aria-labelledby={headingId}>
      <h2 id={headingId} className={styles.stepHeader}>
        <span className={styles.stepNumber} aria-hidden>
          {number}
        </span>
        {title}
      </h2>
      <p className={styles.stepDescription}>{description}</p>
      {children}
    </section>
  );
}

function OptionSkeletons() {
  return (
    <div className={styles.options} aria-busy="true">
      {[0, 1, 2, 3].map((i) => (
        <Skeleton key={i} height={58} />
      ))}
    </div>
  );
}

function SizeOptions({
  sizes,
  lamp,
  value,
  onChange,
}: {
  sizes: readonly ServerSize[];
  lamp: OneClick | undefined;
  value: string | null;
  onChange: (slug: string) => void;
}) {
  if (sizes.length === 0) return <Alert tone="info">No size is on sale in this region at the moment; choose another region.</Alert>;
  return (
    <div className={`${styles.options} ${styles.sizeOptions}`} role="radiogroup" aria-label="Size">
      {sizes.map((size) => {
        const tooSmall = lamp !== undefined && size.diskGb < lamp.minDiskGb;
        return (
          <label key={size.slug} className={styles.option}>
            <input type="radio" name="size" value={size.slug} checked={value === size.slug} disabled={tooSmall} onChange={() => onChange(size.slug)} />
            <span className={styles.optionBody}>
              <span className={styles.price}>
                <span className={styles.priceAmount}>{formatMinorUnits(size.priceMonthly, size.currency)}</span>
                <span className="muted">/month</span>
              </span>
              <span className={styles.optionMeta}>
                {size.description} · <span className={styles.slug}>{size.slug}</span>
              </span>
              <span className={styles.specs}>
                <span>
                  {size.vcpus} vCPU{size.vcpus === 1 ? '' : 's'}
                </span>
                <span>{formatMemory(size.memoryMb)} memory</span>
                <span>{size.diskGb} GB disk</span>
                <span>{formatTransfer(size.transferTb)} transfer</span>
              </span>
              {tooSmall ? <span className={styles.unavailable}>Too small: LAMP needs {lamp.minDiskGb} GB of disk</span> : null}
            </span>
          </label>
        );
      })}
    </div>
  );
}

function LampImage({ lamp, loading }: { lamp: OneClick | undefined; loading: boolean }) {
  if (loading) return <Skeleton height={64} />;
  return (
    <div className={styles.image}>
      <span className={styles.imageIcon}>
        <Icon name="box" size={20} />
      </span>
      <div className="stack" style={{ gap: 4, minWidth: 0 }}>
        <div className="row">
          <span className={styles.optionTitle}>{lamp?.name ?? 'LAMP'}</span>
          <Badge tone="accent">Type LAMP</Badge>
        </div>
        {lamp ? <span className="secondary">{lamp.description}</span> : null}
        {lamp ? (
          <span className="muted" style={{ fontSize: 13 }}>
            Needs at least {lamp.minDiskGb} GB of disk.
          </span>
        ) : null}
      </div>
    </div>
  );
}

function KeyPicker({ projectId, value, onToggle }: { projectId: string; value: ReadonlySet<string>; onToggle: (id: string, checked: boolean) => void }) {
  const trpc = useTRPC();
  // The link below opens the SSH keys page in another tab; coming back should show the key added there.
  const keys = useQuery(trpc.sshKeys.list.queryOptions({ projectId }, { refetchOnWindowFocus: true }));
  const addKey = (
    <Link href={projectPath(projectId, 'ssh-keys')} target="_blank">
      Add an SSH key
    </Link>
  );
  return (
    <DataList label="SSH keys" query={keys} loading={<Skeleton height={48} />}>
      {(items) => (
        <div>
          {items.length > 0 ? (
            <div className={styles.keyList} role="group" aria-label="SSH keys">
              {items.map((key) => (
                <label key={key.id} className={styles.keyRow}>
                  <input
                    type="checkbox"
                    name="sshKeyIds"
                    value={key.id}
                    checked={value.has(key.id)}
                    onChange={(event) => onToggle(key.id, event.target.checked)}
                  />
                  <span className={styles.optionBody}>
                    <span className={styles.optionTitle}>{key.name}</span>
                    <span className={styles.fingerprint}>{key.fingerprint}</span>
                  </span>
                </label>
              ))}
            </div>
          ) : null}
          {value.size === 0 ? (
            <Alert tone="warning" title="No SSH key chosen">
              A server created without SSH keys cannot be reached. {addKey} (it opens in a new tab), then come back and choose it here.
            </Alert>
          ) : (
            <p className="muted" style={{ fontSize: 13 }}>
              Need another key? {addKey}.
            </p>
          )}
        </div>
      )}
    </DataList>
  );
}

function SubmitError({ projectId, error }: { projectId: string; error: AppErrorInfo }) {
  const billing = projectPath(projectId, 'billing');
  const title =
    error.code === 'ORG_PAYMENT_METHOD_REQUIRED' || error.code === 'BILLER_PAYMENT_METHOD_REQUIRED'
      ? 'A payment card is needed'
      : error.code === 'CARD_DECLINED'
        ? 'The card was declined'
        : 'The server was not created';
  return (
    <Alert tone="danger" title={title}>
      <p>{error.message}</p>
      {error.code === 'ORG_PAYMENT_METHOD_REQUIRED' ? (
        <p>
          <ButtonLink href={billing} size="sm">
            Add a card on the Billing page
          </ButtonLink>
        </p>
      ) : error.code === 'BILLER_PAYMENT_METHOD_REQUIRED' ? (
        <p>
          Only they can add it, on the <Link href={billing}>Billing page</Link>. Nothing was charged.
        </p>
      ) : BILLING_CODES.has(error.code) ? (
        <p>
          See the <Link href={billing}>Billing page</Link>. Nothing was charged.
        </p>
      ) : null}
    </Alert>
  );
}
