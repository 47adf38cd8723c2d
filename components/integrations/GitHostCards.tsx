'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useState } from 'react';
import { OAUTH_GIT_HOSTS, type GitHost, type OAuthGitHost } from '@/db/schema/gitIntegrations';
import { sentence } from '../billing/ProjectBillingAlert';
import { formatDate, formatDateTime } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { Icon } from '../ui/Icon';
import { LoadFailed } from '../ui/LoadFailed';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/Toast';
import {
  GIT_HOST_NAMES,
  GIT_HOST_TITLES,
  gitHostConnectUrl,
  type GitHostOutcome,
  type GitHostsInfo,
  type Host1Status,
  type LinkableInstallation,
  type OAuthHostStatus,
  type UpstreamInfo,
} from './gitHosts';
import type { RoundTripOutcome } from './OutcomeAlert';
import styles from './integrations.module.css';

/** How a connect round trip of a git host ended, as the page that it returns to says it. */
export function gitHostOutcome(host: GitHost, outcome: GitHostOutcome): RoundTripOutcome {
  const name = GIT_HOST_NAMES[host];
  switch (outcome) {
    case 'connected':
      return {
        tone: 'success',
        title: `${name} is connected`,
        text:
          host === 'git-host-1'
            ? 'The app is installed and linked to this project. Browse the repositories it reaches, or create an app from one.'
            : 'Browse the repositories the grant reaches, or create an app from one.',
      };
    case 'requested':
      return {
        tone: 'warning',
        title: `The installation on ${name} awaits approval`,
        text: 'An owner of the organisation must approve the app on the host. Connect again once they have.',
      };
    case 'denied':
      return { tone: 'warning', title: `${name} was not connected`, text: 'Access was not granted on the host’s page. Nothing changed.' };
    case 'error':
      return { tone: 'danger', title: `${name} could not be connected`, text: 'The host did not complete the connection. Nothing changed; try again.' };
  }
}

/** The three git hosts side by side; `onBrowse` opens the repository picker of a connected one. */
export function GitHostCards({ info, onBrowse }: { info: GitHostsInfo; onBrowse: (host: GitHost) => void }) {
  return (
    <div className={styles.hostGrid}>
      <GitHost1Card info={info['git-host-1']} onBrowse={() => onBrowse('git-host-1')} />
      {OAUTH_GIT_HOSTS.map((host) => (
        <OAuthHostCard key={host} host={host} info={info[host]} onBrowse={() => onBrowse(host)} />
      ))}
    </div>
  );
}

function HostCard({
  host,
  info,
  connected,
  description,
  footer,
  children,
}: {
  host: GitHost;
  info: UpstreamInfo;
  connected: boolean | null;
  description: string;
  footer?: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card
      className={styles.hostCard}
      aria-label={GIT_HOST_TITLES[host]}
      title={
        <span className={styles.titleRow}>
          {GIT_HOST_TITLES[host]}
          {connected === null ? null : connected ? <Badge tone="success">Connected</Badge> : <Badge>Not connected</Badge>}
        </span>
      }
      description={description}
      footer={footer}
    >
      <div className={styles.hostBody}>
        {children}
        {info.kind === 'simulator' ? (
          <p className={styles.simulated}>
            <Icon name="info" size={14} /> <span>{sentence(info.description)}</span>
          </p>
        ) : null}
      </div>
    </Card>
  );
}

function GitHost1Card({ info, onBrowse }: { info: UpstreamInfo; onBrowse: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const canManage = hasRole(project, 'member');
  const status = useQuery(trpc.gitHost1.status.queryOptions({ projectId: project.id }));
  const linkable = useQuery(trpc.gitHost1.linkableInstallations.queryOptions({ projectId: project.id }, { enabled: canManage }));
  const [disconnecting, setDisconnecting] = useState(false);
  const connectUrl = gitHostConnectUrl(project.id, 'git-host-1', projectPath(project.id, 'integrations'));
  const connected = status.data?.connected ?? null;

  return (
    <HostCard
      host="git-host-1"
      info={info}
      connected={connected}
      description="The platform’s app, installed on your account or organisation, reads the repositories you grant it and reports their pushes."
      footer={
        connected && canManage ? (
          <>
            <a className="btn btn-ghost btn-sm" href={connectUrl}>
              <Icon name="plus" size={14} /> Add an account
            </a>
            <Button size="sm" variant="danger-ghost" onClick={() => setDisconnecting(true)}>
              Disconnect
            </Button>
          </>
        ) : undefined
      }
    >
      {status.isPending ? (
        <Skeleton height={72} />
      ) : status.isError ? (
        <LoadFailed title="The connection could not be loaded" error={status.error} retry={status.refetch} retrying={status.isFetching} />
      ) : status.data.connected ? (
        <>
          <ul className={styles.accounts} aria-label="Linked accounts">
            {status.data.accounts.map((account) => (
              <li key={account.installationId}>
                <Icon name={account.accountType === 'Organization' ? 'users' : 'user'} size={14} />
                <span className="mono">{account.accountLogin}</span>
                <span className="muted" title={formatDateTime(account.linkedAt)}>
                  {account.accountType === 'Organization' ? 'organisation' : 'user'} · since {formatDate(account.linkedAt)}
                </span>
              </li>
            ))}
          </ul>
          <div>
            <Button variant="primary" size="sm" onClick={onBrowse}>
              <Icon name="folder" size={14} /> Browse repositories
            </Button>
          </div>
        </>
      ) : canManage ? (
        <>
          <p className={styles.hostText}>Install it on the host and choose the account; you come back here afterwards.</p>
          <div>
            {/* A full page load: the API answers with a redirect to the host's installation page. */}
            <a className="btn btn-primary btn-sm" href={connectUrl}>
              <Icon name="download" size={14} /> Install the app
            </a>
          </div>
        </>
      ) : (
        <p className="muted">Not connected. A member of the project can install the app.</p>
      )}
      {canManage && linkable.data && linkable.data.length > 0 ? <LinkableInstallations installations={linkable.data} /> : null}
      {canManage && status.data ? <Host1DisconnectDialog open={disconnecting} onClose={() => setDisconnecting(false)} /> : null}
    </HostCard>
  );
}

/** Installations the user made from another project: linked here without installing again. */
function LinkableInstallations({ installations }: { installations: readonly LinkableInstallation[] }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const link = useMutation(trpc.gitHost1.link.mutationOptions());

  async function linkOne(installation: LinkableInstallation) {
    let status: Host1Status;
    try {
      status = await link.mutateAsync({ projectId: project.id, installationId: installation.installationId });
    } catch (error) {
      toast.error(appErrorOf(error).message);
      await queryClient.invalidateQueries({ queryKey: trpc.gitHost1.linkableInstallations.queryKey({ projectId: project.id }) });
      return;
    }
    queryClient.setQueryData(trpc.gitHost1.status.queryKey({ projectId: project.id }), status);
    await queryClient.invalidateQueries({ queryKey: trpc.gitHost1.pathKey() });
    toast.success(`${installation.accountLogin} is linked to this project`);
  }

  return (
    <div className={styles.linkable}>
      <p className={styles.linkableTitle}>Installed from your other projects</p>
      <ul className={styles.accounts}>
        {installations.map((installation) => (
          <li key={installation.installationId}>
            <span className="mono">{installation.accountLogin}</span>
            <Button
              size="sm"
              variant="secondary"
              loading={link.isPending && link.variables?.installationId === installation.installationId}
              onClick={() => void linkOne(installation)}
              aria-label={`Link ${installation.accountLogin} to this project`}
            >
              Link
            </Button>
          </li>
        ))}
      </ul>
    </div>
  );
}

function Host1DisconnectDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const disconnect = useMutation(trpc.gitHost1.disconnect.mutationOptions());

  function close() {
    onClose();
    disconnect.reset();
  }

  async function confirm() {
    let status: Host1Status;
    try {
      status = await disconnect.mutateAsync({ projectId: project.id });
    } catch {
      return;
    }
    close();
    queryClient.setQueryData(trpc.gitHost1.status.queryKey({ projectId: project.id }), status);
    await queryClient.invalidateQueries({ queryKey: trpc.gitHost1.pathKey() });
    toast.success('Git host 1 was disconnected');
  }

  return (
    <ConfirmDialog
      open={open}
      onClose={close}
      title="Disconnect git host 1?"
      description="Every account is unlinked from this project, and the app is uninstalled from the accounts no other project links. Apps keep running, but pushes no longer deploy them."
      confirmLabel="Disconnect"
      onConfirm={() => void confirm()}
      pending={disconnect.isPending}
      errorTitle="Git host 1 was not disconnected"
      error={disconnect.isError ? appErrorOf(disconnect.error).message : null}
    />
  );
}

function oauthStatusQuery(trpc: ReturnType<typeof useTRPC>, projectId: string, host: OAuthGitHost) {
  return host === 'git-host-2' ? trpc.gitHost2.status.queryOptions({ projectId }) : trpc.gitHost3.status.queryOptions({ projectId });
}

function OAuthHostCard({ host, info, onBrowse }: { host: OAuthGitHost; info: UpstreamInfo; onBrowse: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const canManage = hasRole(project, 'member');
  const status = useQuery(oauthStatusQuery(trpc, project.id, host));
  const [disconnecting, setDisconnecting] = useState(false);
  const connectUrl = gitHostConnectUrl(project.id, host, projectPath(project.id, 'integrations'));
  const connected = status.data?.connected ?? null;

  return (
    <HostCard
      host={host}
      info={info}
      connected={connected}
      description="Sign in at the host and grant access. Repositories your apps build from are copied into a private deployment workspace; a webhook reports their pushes."
      footer={
        connected && canManage ? (
          <>
            <a className="btn btn-ghost btn-sm" href={connectUrl}>
              Reconnect
            </a>
            <Button size="sm" variant="danger-ghost" onClick={() => setDisconnecting(true)}>
              Disconnect
            </Button>
          </>
        ) : undefined
      }
    >
      {status.isPending ? (
        <Skeleton height={72} />
      ) : status.isError ? (
        <LoadFailed title="The connection could not be loaded" error={status.error} retry={status.refetch} retrying={status.isFetching} />
      ) : status.data.connected ? (
        <>
          <dl className={`details-list ${styles.hostDetails}`}>
            <dt>Account</dt>
            <dd className="mono">{status.data.accountLogin}</dd>
            <dt>Access</dt>
            <dd>{status.data.scopes.length > 0 ? status.data.scopes.join(', ') : <span className="muted">Not named by the host</span>}</dd>
            {status.data.connectedAt ? (
              <>
                <dt>Since</dt>
                <dd title={formatDateTime(status.data.connectedAt)}>{formatDate(status.data.connectedAt)}</dd>
              </>
            ) : null}
          </dl>
          <div>
            <Button variant="primary" size="sm" onClick={onBrowse}>
              <Icon name="folder" size={14} /> Browse repositories
            </Button>
          </div>
        </>
      ) : canManage ? (
        <>
          <p className={styles.hostText}>
            {host === 'git-host-3' ? 'The host asks for API and repository read access;' : 'You grant access on the host’s page;'} you come back here
            afterwards.
          </p>
          <div>
            {/* A full page load: the API answers with a redirect to the host's consent page. */}
            <a className="btn btn-primary btn-sm" href={connectUrl}>
              <Icon name="key" size={14} /> Connect {GIT_HOST_NAMES[host].toLowerCase()}
            </a>
          </div>
        </>
      ) : (
        <p className="muted">Not connected. A member of the project can connect it.</p>
      )}
      {canManage && status.data ? <OAuthDisconnectDialog host={host} open={disconnecting} onClose={() => setDisconnecting(false)} /> : null}
    </HostCard>
  );
}

function OAuthDisconnectDialog({ host, open, onClose }: { host: OAuthGitHost; open: boolean; onClose: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const procedures = host === 'git-host-2' ? trpc.gitHost2 : trpc.gitHost3;
  const disconnect = useMutation(procedures.disconnect.mutationOptions());
  const name = GIT_HOST_NAMES[host];

  function close() {
    onClose();
    disconnect.reset();
  }

  async function confirm() {
    let status: OAuthHostStatus;
    try {
      status = await disconnect.mutateAsync({ projectId: project.id });
    } catch {
      return;
    }
    close();
    queryClient.setQueryData(oauthStatusQuery(trpc, project.id, host).queryKey, status);
    await queryClient.invalidateQueries({ queryKey: procedures.pathKey() });
    toast.success(`${name} was disconnected`);
  }

  return (
    <ConfirmDialog
      open={open}
      onClose={close}
      title={`Disconnect ${name.toLowerCase()}?`}
      description="The push webhooks this project registered are removed from the host first, then the grant is revoked. Apps keep running, but pushes no longer deploy them."
      confirmLabel="Disconnect"
      onConfirm={() => void confirm()}
      pending={disconnect.isPending}
      errorTitle={`${name} was not disconnected`}
      error={disconnect.isError ? appErrorOf(disconnect.error).message : null}
    />
  );
}
