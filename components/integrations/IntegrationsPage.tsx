'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { GitHost } from '@/db/schema/gitIntegrations';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, type AppErrorInfo } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Card } from '../ui/Card';
import { Icon } from '../ui/Icon';
import { Input } from '../ui/Input';
import { LoadFailed } from '../ui/LoadFailed';
import { PageHeader } from '../ui/PageHeader';
import { Skeleton } from '../ui/Skeleton';
import { SubmitButton } from '../ui/SubmitButton';
import { useToast } from '../ui/Toast';
import { useHydrated } from '../ui/useHydrated';
import { ConnectedSince, ConnectionCard } from './ConnectionCard';
import { CONNECTION_LABELS, oauthConnectUrl, type DnsProviderInfo, type DnsProviderStatus, type DnsRecordRules } from './dnsProvider';
import { DnsSimulatorNotice } from './DnsSimulatorNotice';
import { DnsZones } from './DnsZones';
import { GitHostCards, gitHostOutcome } from './GitHostCards';
import type { GitHostOutcome, GitHostsInfo, GitRepositoryView, UpstreamInfo } from './gitHosts';
import { ImageHubCard } from './ImageHubCard';
import { OutcomeAlert, type RoundTripOutcome } from './OutcomeAlert';
import { RepositoryBrowser } from './RepositoryBrowser';
import { RepositoryPicker } from './RepositoryPicker';
import styles from './integrations.module.css';

/** What the OAuth callback appends to the page it returns to (`?dns-provider=…`). */
export type OAuthOutcome = 'connected' | 'denied' | 'error';

export interface IntegrationsPageProps {
  provider: DnsProviderInfo;
  rules: DnsRecordRules;
  oauthOutcome: OAuthOutcome | null;
  gitHosts: GitHostsInfo;
  imageHub: UpstreamInfo;
  /** How a git host's connect round trip ended, when the page is where it returned. */
  gitHostReturn: { host: GitHost; outcome: GitHostOutcome } | null;
}

export function IntegrationsPage({ provider, rules, oauthOutcome, gitHosts, imageHub, gitHostReturn }: IntegrationsPageProps) {
  const project = useProject();
  const trpc = useTRPC();
  const status = useQuery(trpc.dnsProvider.status.queryOptions({ projectId: project.id }));

  return (
    <main className="page">
      <PageHeader
        eyebrow={project.name}
        title="Integrations"
        description="Accounts you hold elsewhere, connected to this project: the git hosts your apps build from, your image hub account, and your DNS provider, whose zones you manage here."
      />
      <div className="stack-lg">
        {oauthOutcome ? <OutcomeAlert outcome={DNS_OUTCOMES[oauthOutcome]} /> : null}
        {gitHostReturn ? <OutcomeAlert outcome={gitHostOutcome(gitHostReturn.host, gitHostReturn.outcome)} /> : null}
        <GitHostsSection info={gitHosts} />
        <Section title="Container images" description="Images your servers and apps pull from the public image hub, private ones included.">
          <ImageHubCard info={imageHub} />
        </Section>
        <Section title="DNS" description="Connect your DNS provider to manage its zones here and to publish domain verification records in one click.">
          <DnsSimulatorNotice provider={provider} />
          {status.isPending ? (
            <Card title="DNS provider">
              <Skeleton height={120} />
            </Card>
          ) : status.isError ? (
            <LoadFailed title="The DNS provider connection could not be loaded" error={status.error} retry={status.refetch} retrying={status.isFetching} />
          ) : (
            <>
              <DnsProviderCard status={status.data} />
              {status.data.connected ? <DnsZones rules={rules} /> : null}
            </>
          )}
        </Section>
      </div>
    </main>
  );
}

function Section({ title, description, children }: { title: string; description: string; children: ReactNode }) {
  const headingId = useId();
  return (
    <section className={styles.section} aria-labelledby={headingId}>
      <header className={styles.sectionHeader}>
        <h2 id={headingId} className={styles.sectionTitle}>
          {title}
        </h2>
        <p className={styles.sectionDescription}>{description}</p>
      </header>
      {children}
    </section>
  );
}

/** The hosts, the picker of a connected host's repositories, and the repository chosen in it. */
function GitHostsSection({ info }: { info: GitHostsInfo }) {
  const [picking, setPicking] = useState<GitHost | null>(null);
  const [browsing, setBrowsing] = useState<{ host: GitHost; repository: GitRepositoryView } | null>(null);
  const browserRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (browsing) browserRef.current?.scrollIntoView({ behavior: 'smooth', block: 'start' });
  }, [browsing]);

  return (
    <Section
      title="Git hosts"
      description="Where your apps’ code lives. Connect a host to create apps from its repositories; each push to an app’s branch deploys it again."
    >
      <GitHostCards info={info} onBrowse={setPicking} />
      <RepositoryPicker
        host={picking}
        onClose={() => setPicking(null)}
        onPick={(repository) => {
          if (picking) setBrowsing({ host: picking, repository });
          setPicking(null);
        }}
      />
      {browsing ? (
        <div ref={browserRef} className={styles.browserAnchor}>
          <RepositoryBrowser
            key={`${browsing.host}:${browsing.repository.fullName}`}
            host={browsing.host}
            repository={browsing.repository}
            onClose={() => setBrowsing(null)}
          />
        </div>
      ) : null}
    </Section>
  );
}

const DNS_OUTCOMES: Record<OAuthOutcome, RoundTripOutcome> = {
  connected: { tone: 'success', title: 'Your DNS provider is connected', text: 'Its zones are listed below.' },
  denied: { tone: 'warning', title: 'The DNS provider was not connected', text: 'Access was not granted on the provider’s page. Nothing changed.' },
  error: {
    tone: 'danger',
    title: 'The DNS provider could not be connected',
    text: 'The provider did not complete the sign-in. Try again, or connect with an API token.',
  },
};

function DnsProviderCard({ status }: { status: DnsProviderStatus }) {
  const project = useProject();
  const trpc = useTRPC();
  const canManage = hasRole(project, 'member');

  return (
    <ConnectionCard
      name="DNS provider"
      connected={status.connected}
      canManage={canManage}
      description="Your own DNS account: its zones and records, reached with a credential you give. The panel creates, changes and deletes only what you ask it to."
      footerStart={<span className="muted">Records made through the connection stay in your DNS account after disconnecting.</span>}
      disconnection={{
        subject: 'The DNS provider',
        description:
          'The panel forgets the credential. Every record in your DNS account stays as it is, including verification records, and verified domains stay verified.',
        mutationOptions: trpc.dnsProvider.disconnect.mutationOptions(),
        statusKey: trpc.dnsProvider.status.queryKey({ projectId: project.id }),
        removeQueries: [trpc.dnsProvider.zones.queryKey({ projectId: project.id })],
        invalidateQueries: [trpc.domains.pathKey()],
      }}
    >
      {status.connected ? (
        <dl className="details-list">
          <dt>Connected with</dt>
          <dd>{status.connectionType ? CONNECTION_LABELS[status.connectionType] : 'Unknown'}</dd>
          <dt>Account</dt>
          <dd data-testid="dns-account">{status.accountName ?? <span className="muted">Not named by the provider</span>}</dd>
          <ConnectedSince at={status.connectedAt} />
        </dl>
      ) : canManage ? (
        <ConnectForm oauthEnabled={status.oauthEnabled} />
      ) : (
        <p className="muted">No DNS provider is connected. A member of the project can connect one.</p>
      )}
      <AutoDnsSwitch status={status} />
    </ConnectionCard>
  );
}

function ConnectForm({ oauthEnabled }: { oauthEnabled: boolean }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const connect = useMutation(trpc.dnsProvider.connectToken.mutationOptions());
  const [token, setToken] = useState('');
  const [tokenError, setTokenError] = useState<string | undefined>();
  const [refusal, setRefusal] = useState<AppErrorInfo | null>(null);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setRefusal(null);
    if (token.trim() === '') {
      setTokenError('Paste an API token of your DNS provider');
      return;
    }
    let connected: DnsProviderStatus;
    try {
      connected = await connect.mutateAsync({ projectId: project.id, apiToken: token });
    } catch (error) {
      const refused = appErrorOf(error);
      if (refused.fields?.apiToken) setTokenError(refused.fields.apiToken);
      else setRefusal(refused);
      return;
    }
    queryClient.setQueryData(trpc.dnsProvider.status.queryKey({ projectId: project.id }), connected);
    await queryClient.invalidateQueries({ queryKey: trpc.dnsProvider.pathKey() });
    toast.success(connected.accountName ? `Connected to ${connected.accountName}` : 'Your DNS provider is connected');
  }

  return (
    <div className={styles.connect}>
      <form className="form" onSubmit={submit} noValidate aria-label="Connect with an API token">
        {refusal ? (
          <Alert tone="danger" title="The DNS provider was not connected">
            {refusal.message}
          </Alert>
        ) : null}
        <Input
          label="API token"
          type="password"
          name="apiToken"
          autoComplete="off"
          spellCheck={false}
          value={token}
          error={tokenError}
          hint="A token of your DNS account allowed to read zones and edit DNS records. It is checked with the provider, stored encrypted and never shown again."
          onChange={(event) => {
            setToken(event.target.value);
            setTokenError(undefined);
          }}
        />
        <div className="form-actions">
          <SubmitButton variant="primary" loading={connect.isPending}>
            <Icon name="key" /> Connect
          </SubmitButton>
        </div>
      </form>
      {oauthEnabled ? (
        <div className={styles.oauth}>
          <span className={styles.or}>or</span>
          <p className="muted">Sign in at your DNS provider and grant access there; you come back here afterwards.</p>
          {/* A full page load: the API answers with a redirect to the provider's consent page. */}
          <a className="btn btn-secondary" href={oauthConnectUrl(project.id, projectPath(project.id, 'integrations'))}>
            <Icon name="globe" /> Connect with OAuth
          </a>
        </div>
      ) : null}
    </div>
  );
}

function AutoDnsSwitch({ status }: { status: DnsProviderStatus }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const canManage = hasRole(project, 'member');
  const settings = useMutation(trpc.dnsProvider.settings.mutationOptions());
  const hydrated = useHydrated();
  const descriptionId = useId();
  // The switch moves at once, and back if the change is refused.
  const [requested, setRequested] = useState<boolean | null>(null);

  async function toggle(autoDnsEnabled: boolean) {
    if (settings.isPending) return;
    setRequested(autoDnsEnabled);
    let saved: DnsProviderStatus;
    try {
      saved = await settings.mutateAsync({ projectId: project.id, autoDnsEnabled });
    } catch (error) {
      setRequested(null);
      toast.error(appErrorOf(error).message);
      return;
    }
    queryClient.setQueryData(trpc.dnsProvider.status.queryKey({ projectId: project.id }), saved);
    setRequested(null);
    toast.success(saved.autoDnsEnabled ? 'Auto-DNS is on' : 'Auto-DNS is off');
  }

  return (
    <div className={styles.autoDns}>
      <label className={styles.switch}>
        <input
          type="checkbox"
          role="switch"
          checked={requested ?? status.autoDnsEnabled}
          disabled={!canManage || !hydrated}
          aria-describedby={descriptionId}
          onChange={(event) => void toggle(event.target.checked)}
        />
        <span className={styles.switchTrack} aria-hidden />
        <span className={styles.switchLabel}>Auto-DNS</span>
      </label>
      <p id={descriptionId} className="muted">
        When on, adding a domain whose zone is in the connected account creates its verification TXT record there at once, so the domain can be verified without
        you publishing anything.{status.connected ? '' : ' The setting is kept and applies once a provider is connected.'}
      </p>
    </div>
  );
}
