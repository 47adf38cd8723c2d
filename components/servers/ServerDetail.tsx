'use client';

import { useMutation, useQuery, useQueryClient, type QueryClient, type QueryKey } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import type { FormEvent } from 'react';
import type { PowerAction } from '@/server/providers/infra/types';
import { POWER_ACTION_FITS, POWER_ACTION_RESULT, renameServerInput } from '@/server/domains/servers/schema';
import { ProjectBillingAlert } from '../billing/ProjectBillingAlert';
import { useZodForm } from '../forms/useZodForm';
import { LoadFailed } from '../ui/LoadFailed';
import { formatDate, formatDateTime } from '../format';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Badge } from '../ui/Badge';
import { Button, ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { CopyButton } from '../ui/CopyButton';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { Input } from '../ui/Input';
import { PageHeader } from '../ui/PageHeader';
import { Skeleton } from '../ui/Skeleton';
import { StatusBadge } from '../ui/StatusBadge';
import { SubmitButton } from '../ui/SubmitButton';
import { DeleteResourceCard } from '../ui/DeleteResourceCard';
import { useToast } from '../ui/Toast';
import { PROVISIONING_POLL_MS, regionName, sizeSummary, useServerCatalog, type Server, type ServerWithKeys } from './catalog';
import styles from './servers.module.css';

const POWER_BUTTONS: ReadonlyArray<{ action: PowerAction; label: string; hint: string }> = [
  { action: 'power_on', label: 'Power on', hint: 'Start the server.' },
  { action: 'power_off', label: 'Power off', hint: 'Cut the power at once, like pulling the plug; unsaved data can be lost.' },
  { action: 'shutdown', label: 'Shutdown', hint: 'Ask the operating system to shut down cleanly.' },
  { action: 'reboot', label: 'Reboot', hint: 'Restart the operating system cleanly.' },
  { action: 'power_cycle', label: 'Power cycle', hint: 'Cut the power and start again, for a server that does not respond.' },
];

export function ServerDetail({ serverId }: { serverId: string }) {
  const project = useProject();
  const trpc = useTRPC();
  const server = useQuery(
    trpc.servers.get.queryOptions(
      { projectId: project.id, serverId },
      { refetchInterval: (query) => (query.state.data?.status === 'PROVISIONING' ? PROVISIONING_POLL_MS : false) },
    ),
  );
  const listPath = projectPath(project.id, 'servers');

  if (server.isPending) {
    return (
      <main className="page" aria-busy="true">
        <Skeleton width={260} height={26} />
        <Skeleton width={360} style={{ marginTop: 12 }} />
        <Skeleton height={180} style={{ marginTop: 28 }} />
      </main>
    );
  }
  if (server.isError) {
    const { code } = appErrorOf(server.error);
    return (
      <main className="page">
        {code === 'NOT_FOUND' ? (
          <div className="card">
            <EmptyState
              icon="server"
              title="Server not found"
              description="It does not exist in this project, or it was deleted."
              action={<ButtonLink href={listPath}>Back to servers</ButtonLink>}
            />
          </div>
        ) : (
          <LoadFailed title="The server could not be loaded" error={server.error} retry={server.refetch} retrying={server.isFetching} />
        )}
      </main>
    );
  }
  return <ServerView server={server.data} />;
}

function ServerView({ server }: { server: ServerWithKeys }) {
  const project = useProject();
  const canManage = hasRole(project, 'member');
  const { regions, sizes } = useServerCatalog();

  return (
    <main className="page">
      <PageHeader
        eyebrow={
          <Link href={projectPath(project.id, 'servers')} className="muted">
            ← Servers
          </Link>
        }
        title={
          <span className={styles.titleRow}>
            {server.name}
            <StatusBadge status={server.status} />
            {server.suspendedAt ? <Badge tone="danger">Suspended</Badge> : null}
          </span>
        }
        description={`LAMP server in ${regionName(server.region, regions.data)}, created ${formatDate(server.createdAt)}.`}
      />
      <div className="stack-lg">
        <ProjectBillingAlert project={project} />
        <div className={styles.detailGrid}>
          <ConnectCard server={server} />
          <PowerCard server={server} canManage={canManage} />
          <Card title="Details">
            <dl className="details-list">
              <dt>Type</dt>
              <dd>{server.type}</dd>
              <dt>Region</dt>
              <dd>
                {regionName(server.region, regions.data)} <span className="muted mono">{server.region}</span>
              </dd>
              <dt>Size</dt>
              <dd>
                <span className="mono">{server.instanceType}</span>
                <div className="muted">{sizeSummary(server.instanceType, sizes.data)}</div>
              </dd>
              <dt>Hostname</dt>
              <dd className="mono">{server.hostname}</dd>
              <dt>PHP</dt>
              <dd>{server.phpVersion}</dd>
              <dt>PostgreSQL</dt>
              <dd>
                {server.pgVersion}
                <div className="muted">
                  database <code>{server.pgDatabase}</code>, role <code>{server.pgUsername}</code>
                </div>
              </dd>
              <dt>Created</dt>
              <dd title={formatDateTime(server.createdAt)}>{formatDate(server.createdAt)}</dd>
            </dl>
          </Card>
          <Card title="SSH keys" description="The keys written at first boot. A key deleted from the project since is still trusted here.">
            {server.sshKeys.length === 0 ? (
              <Alert tone="warning">This server was created without SSH keys, so it cannot be reached over SSH.</Alert>
            ) : (
              <ul className="stack" style={{ listStyle: 'none', margin: 0, padding: 0, gap: 0 }} aria-label="SSH keys of the server">
                {server.sshKeys.map((key) => (
                  <li key={key.id} className={styles.keyItem}>
                    <span className="cell-primary">{key.name}</span>
                    <span className={styles.fingerprint}>{key.fingerprint}</span>
                  </li>
                ))}
              </ul>
            )}
          </Card>
        </div>
        {canManage ? (
          <>
            <RenameCard server={server} />
            <DeleteCard server={server} />
          </>
        ) : null}
      </div>
    </main>
  );
}

function ConnectCard({ server }: { server: ServerWithKeys }) {
  const command = server.ipAddress ? `ssh ${server.sshUser}@${server.ipAddress}` : null;
  return (
    <Card title="Connect">
      {server.ipAddress && command ? (
        <div className={styles.connect}>
          <div>
            <span className={styles.connectLabel}>IP address</span>
            <div className={styles.command}>
              <code data-testid="server-ip">{server.ipAddress}</code>
              <CopyButton value={server.ipAddress} label="Copy IP address" />
            </div>
          </div>
          <div>
            <span className={styles.connectLabel}>SSH</span>
            <div className={styles.command}>
              <code data-testid="ssh-command">{command}</code>
              <CopyButton value={command} label="Copy SSH command" />
            </div>
          </div>
        </div>
      ) : (
        <p className="muted">The public address is assigned when the server has started for the first time. This page refreshes itself until then.</p>
      )}
    </Card>
  );
}

function PowerCard({ server, canManage }: { server: ServerWithKeys; canManage: boolean }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const perform = useMutation(trpc.servers.action.mutationOptions());
  const provisioning = server.status === 'PROVISIONING';
  const suspended = project.suspendedAt !== null;

  async function run(action: PowerAction, label: string) {
    try {
      const updated = await perform.mutateAsync({ projectId: project.id, serverId: server.id, action });
      mergeServer(queryClient, trpc.servers.get.queryKey({ projectId: project.id, serverId: server.id }), updated);
      toast.success(`${label} sent to ${server.name}`);
    } catch {
      return;
    }
    await queryClient.invalidateQueries({ queryKey: trpc.servers.list.queryKey({ projectId: project.id }) });
  }

  return (
    <Card title="Power" description={provisioning ? 'Being applied: first boot or a power action. The buttons return when the server has settled.' : undefined}>
      <div className={styles.powerButtons}>
        {POWER_BUTTONS.map(({ action, label, hint }) => {
          const fits = !provisioning && POWER_ACTION_FITS[action].includes(server.status) && !(suspended && POWER_ACTION_RESULT[action] === 'RUNNING');
          return (
            <Button
              key={action}
              size="sm"
              disabled={!canManage || !fits || perform.isPending}
              loading={perform.isPending && perform.variables?.action === action}
              onClick={() => run(action, label)}
              title={hint}
            >
              <Icon name="power" size={14} /> {label}
            </Button>
          );
        })}
      </div>
      {perform.isError ? (
        <div style={{ marginTop: 12 }}>
          <Alert tone="danger">{errorMessage(perform.error)}</Alert>
        </div>
      ) : null}
      <p className={styles.powerHint}>
        {!canManage
          ? 'Members of the project can power the server on and off.'
          : suspended
            ? 'The project is suspended for an unpaid invoice: the server stays off until the invoice is paid, then it is powered back on.'
            : server.status === 'RUNNING'
              ? 'Shutdown and Reboot ask the operating system; Power off and Power cycle cut the power.'
              : server.status === 'OFF'
                ? 'The server is off. It is still billed until it is deleted.'
                : 'Status is checked every few seconds.'}
      </p>
    </Card>
  );
}

/** Actions and renames answer with the server without its keys; keep the keys the page already has. */
function mergeServer(queryClient: QueryClient, queryKey: QueryKey, updated: Server) {
  queryClient.setQueryData<ServerWithKeys>(queryKey, (current) => (current ? { ...current, ...updated } : current));
}

function RenameCard({ server }: { server: ServerWithKeys }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const form = useZodForm(renameServerInput);
  const rename = useMutation(trpc.servers.rename.mutationOptions());

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = form.parse({ name: new FormData(event.currentTarget).get('name') });
    if (!input) return;
    if (input.name === server.name) return;
    try {
      const renamed = await rename.mutateAsync({ projectId: project.id, serverId: server.id, name: input.name });
      mergeServer(queryClient, trpc.servers.get.queryKey({ projectId: project.id, serverId: server.id }), renamed);
      toast.success(`Server renamed to ${renamed.name}`);
    } catch (error) {
      form.fail(error);
      return;
    }
    await queryClient.invalidateQueries({ queryKey: trpc.servers.list.queryKey({ projectId: project.id }) });
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Rename server">
      <Card title="Server name" description="Renamed at the provider first; the hostname set at first boot does not change.">
        <div className="form">
          {form.formError ? (
            <Alert tone="danger" title="The server was not renamed">
              {form.formError}
            </Alert>
          ) : null}
          <div className={styles.renameRow}>
            <Input
              key={server.name}
              label="Name"
              name="name"
              defaultValue={server.name}
              maxLength={63}
              autoComplete="off"
              spellCheck={false}
              error={form.errors.name}
            />
            <SubmitButton loading={rename.isPending}>Rename</SubmitButton>
          </div>
        </div>
      </Card>
    </form>
  );
}

function DeleteCard({ server }: { server: ServerWithKeys }) {
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.servers.delete.mutationOptions());

  return (
    <DeleteResourceCard
      title="Delete server"
      description="Destroys the machine and everything on its disk, and stops billing for it. The data cannot be recovered."
      dialogTitle={`Delete ${server.name}?`}
      dialogDescription="The machine and its disk are destroyed and billing stops. This cannot be undone."
      name={server.name}
      confirmLabel="Delete this server"
      errorTitle="The server was not deleted"
      onDelete={() => remove.mutateAsync({ projectId: project.id, serverId: server.id })}
      onDeleted={async () => {
        toast.success(`Server ${server.name} was deleted`);
        router.replace(projectPath(project.id, 'servers'));
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.servers.list.queryKey({ projectId: project.id }) }),
          queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
        ]);
      }}
    />
  );
}
