'use client';

import { useMutation, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { OAUTH_GIT_HOSTS, type GitHost, type OAuthGitHost } from '@/db/schema/gitIntegrations';
import { formatDate, formatDateTime } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Button } from '../ui/Button';
import { Icon } from '../ui/Icon';
import { LoadFailed } from '../ui/LoadFailed';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/Toast';
import { ConnectedSince, ConnectionCard, type Disconnection } from './ConnectionCard';
import {
  GIT_HOST_NAMES,
  GIT_HOST_TITLES,
  gitHostConnectUrl,
  type GitHostOutcome,
  type GitHostsInfo,
  type Host1Status,
  type LinkableInstallation,
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

/** A git host's card: what every host shows around its own account details and connect wording. */
function HostCard<Status extends { connected: boolean }, TQueryError, TMutationError>({
  host,
  info,
  status,
  description,
  onBrowse,
  footerLink,
  details,
  connectHint,
  connectLabel,
  viewerNote,
  disconnection,
  children,
}: {
  host: GitHost;
  info: UpstreamInfo;
  status: UseQueryResult<Status, TQueryError>;
  description: string;
  onBrowse: () => void;
  /** Beside Disconnect: the connect round trip again, to grant more or renew. */
  footerLink: ReactNode;
  /** The connected account, above the Browse button. */
  details: (status: Status) => ReactNode;
  /** What connecting takes, for those who may connect. */
  connectHint: ReactNode;
  connectLabel: ReactNode;
  /** What the others read while the host is not connected. */
  viewerNote: string;
  disconnection: Omit<Disconnection<Status, TMutationError>, 'subject'>;
  children?: ReactNode;
}) {
  const project = useProject();
  const canManage = hasRole(project, 'member');
  const connectUrl = gitHostConnectUrl(project.id, host, projectPath(project.id, 'integrations'));

  return (
    <ConnectionCard
      name={GIT_HOST_TITLES[host]}
      connected={status.data?.connected ?? null}
      canManage={canManage}
      description={description}
      footerStart={
        <a className="btn btn-ghost btn-sm" href={connectUrl}>
          {footerLink}
        </a>
      }
      compact
      className={styles.hostCard}
      bodyClassName={styles.hostBody}
      upstream={info}
      disconnection={{ subject: GIT_HOST_NAMES[host], ...disconnection }}
    >
      {status.isPending ? (
        <Skeleton height={72} />
      ) : status.isError ? (
        <LoadFailed title="The connection could not be loaded" error={status.error} retry={status.refetch} retrying={status.isFetching} />
      ) : status.data.connected ? (
        <>
          {details(status.data)}
          <div>
            <Button variant="primary" size="sm" onClick={onBrowse}>
              <Icon name="folder" size={14} /> Browse repositories
            </Button>
          </div>
        </>
      ) : canManage ? (
        <>
          <p className={styles.hostText}>{connectHint}</p>
          <div>
            {/* A full page load: the API answers with a redirect to the host's installation or consent page. */}
            <a className="btn btn-primary btn-sm" href={connectUrl}>
              {connectLabel}
            </a>
          </div>
        </>
      ) : (
        <p className="muted">{viewerNote}</p>
      )}
      {children}
    </ConnectionCard>
  );
}

function GitHost1Card({ info, onBrowse }: { info: UpstreamInfo; onBrowse: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const canManage = hasRole(project, 'member');
  const status = useQuery(trpc.gitHost1.status.queryOptions({ projectId: project.id }));
  const linkable = useQuery(trpc.gitHost1.linkableInstallations.queryOptions({ projectId: project.id }, { enabled: canManage }));

  return (
    <HostCard
      host="git-host-1"
      info={info}
      status={status}
      description="The platform’s app, installed on your account or organisation, reads the repositories you grant it and reports their pushes."
      onBrowse={onBrowse}
      footerLink={
        <>
          <Icon name="plus" size={14} /> Add an account
        </>
      }
      details={(connected) => (
        <ul className={styles.accounts} aria-label="Linked accounts">
          {connected.accounts.map((account) => (
            <li key={account.installationId}>
              <Icon name={account.accountType === 'Organization' ? 'users' : 'user'} size={14} />
              <span className="mono">{account.accountLogin}</span>
              <span className="muted" title={formatDateTime(account.linkedAt)}>
                {account.accountType === 'Organization' ? 'organisation' : 'user'} · since {formatDate(account.linkedAt)}
              </span>
            </li>
          ))}
        </ul>
      )}
      connectHint="Install it on the host and choose the account; you come back here afterwards."
      connectLabel={
        <>
          <Icon name="download" size={14} /> Install the app
        </>
      }
      viewerNote="Not connected. A member of the project can install the app."
      disconnection={{
        description:
          'Every account is unlinked from this project, and the app is uninstalled from the accounts no other project links. Apps keep running, but pushes no longer deploy them.',
        mutationOptions: trpc.gitHost1.disconnect.mutationOptions(),
        statusKey: trpc.gitHost1.status.queryKey({ projectId: project.id }),
        invalidateQueries: [trpc.gitHost1.pathKey()],
      }}
    >
      {canManage && linkable.data && linkable.data.length > 0 ? <LinkableInstallations installations={linkable.data} /> : null}
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

function oauthStatusQuery(trpc: ReturnType<typeof useTRPC>, projectId: string, host: OAuthGitHost) {
  return host === 'git-host-2' ? trpc.gitHost2.status.queryOptions({ projectId }) : trpc.gitHost3.status.queryOptions({ projectId });
}

function OAuthHostCard({ host, info, onBrowse }: { host: OAuthGitHost; info: UpstreamInfo; onBrowse: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const statusQuery = oauthStatusQuery(trpc, project.id, host);
  const status = useQuery(statusQuery);
  const procedures = host === 'git-host-2' ? trpc.gitHost2 : trpc.gitHost3;

  return (
    <HostCard
      host={host}
      info={info}
      status={status}
      description="Sign in at the host and grant access. Repositories your apps build from are copied into a private deployment workspace; a webhook reports their pushes."
      onBrowse={onBrowse}
      footerLink="Reconnect"
      details={(connected) => (
        <dl className={`details-list ${styles.hostDetails}`}>
          <dt>Account</dt>
          <dd className="mono">{connected.accountLogin}</dd>
          <dt>Access</dt>
          <dd>{connected.scopes.length > 0 ? connected.scopes.join(', ') : <span className="muted">Not named by the host</span>}</dd>
          <ConnectedSince at={connected.connectedAt} />
        </dl>
      )}
      connectHint={
        <>
          {host === 'git-host-3' ? 'The host asks for API and repository read access;' : 'You grant access on the host’s page;'} you come back here afterwards.
        </>
      }
      connectLabel={
        <>
          <Icon name="key" size={14} /> Connect {GIT_HOST_NAMES[host].toLowerCase()}
        </>
      }
      viewerNote="Not connected. A member of the project can connect it."
      disconnection={{
        description:
          'The push webhooks this project registered are removed from the host first, then the grant is revoked. Apps keep running, but pushes no longer deploy them.',
        mutationOptions: procedures.disconnect.mutationOptions(),
        statusKey: statusQuery.queryKey,
        invalidateQueries: [procedures.pathKey()],
      }}
    />
  );
}
