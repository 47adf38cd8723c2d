'use client';

import { useMutation, useQueryClient, type QueryKey, type UseMutationOptions } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { sentence } from '../billing/ProjectBillingAlert';
import { formatDate, formatDateTime } from '../format';
import { useProject } from '../projects/ProjectContext';
import { appErrorOf } from '../trpc/errors';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { Icon } from '../ui/Icon';
import { useToast } from '../ui/Toast';
import type { UpstreamInfo } from './gitHosts';
import styles from './integrations.module.css';

/** How the project's connection to an outside account ends, and what the panel reads again afterwards. */
export interface Disconnection<Status, TError> {
  /** "Git host 1", "The image hub": what the dialog's title, refusal and toast speak of. */
  subject: string;
  description: string;
  mutationOptions: UseMutationOptions<Status, TError, { projectId: string }>;
  /** Where the connection's status is cached: the answer to the disconnection replaces it. */
  statusKey: QueryKey;
  /** Reads that showed the account's contents: dropped, so nothing of the account shows again. */
  removeQueries?: readonly QueryKey[];
  /** Reads that depend on the connection: read again. */
  invalidateQueries?: readonly QueryKey[];
}

/**
 * The card of one connection to an account elsewhere (a git host, the image hub, a DNS provider):
 * its name with whether it is connected, what the connection is for, and, for those who may manage
 * it, a Disconnect button at the foot that asks first. `connected` is null until the status is read.
 */
export function ConnectionCard<Status, TError>({
  name,
  connected,
  canManage,
  description,
  footerStart,
  compact = false,
  className,
  bodyClassName = 'stack-lg',
  upstream,
  disconnection,
  children,
}: {
  name: string;
  connected: boolean | null;
  canManage: boolean;
  description: string;
  /** Beside the Disconnect button: a note, or a link to connect more. */
  footerStart: ReactNode;
  /** Small buttons, for cards side by side. */
  compact?: boolean;
  className?: string;
  bodyClassName?: string;
  /** Which upstream runs behind the connection; a simulated one is said at the foot of the body. */
  upstream?: UpstreamInfo;
  disconnection: Disconnection<Status, TError>;
  children: ReactNode;
}) {
  const [disconnecting, setDisconnecting] = useState(false);

  return (
    <Card
      className={className}
      aria-label={name}
      title={
        <span className={styles.titleRow}>
          {name}
          {connected === null ? null : connected ? <Badge tone="success">Connected</Badge> : <Badge>Not connected</Badge>}
        </span>
      }
      description={description}
      footer={
        connected && canManage ? (
          <>
            {footerStart}
            <Button size={compact ? 'sm' : 'md'} variant="danger-ghost" onClick={() => setDisconnecting(true)}>
              Disconnect
            </Button>
          </>
        ) : undefined
      }
    >
      <div className={bodyClassName}>
        {children}
        {upstream?.kind === 'simulator' ? (
          <p className={styles.simulated}>
            <Icon name="info" size={14} /> <span>{sentence(upstream.description)}</span>
          </p>
        ) : null}
      </div>
      {canManage && connected !== null ? <DisconnectDialog open={disconnecting} onClose={() => setDisconnecting(false)} disconnection={disconnection} /> : null}
    </Card>
  );
}

/** The "Since" row of a connection's details, when the connection says when it was made. */
export function ConnectedSince({ at }: { at: string | null }) {
  if (!at) return null;
  return (
    <>
      <dt>Since</dt>
      <dd title={formatDateTime(at)}>{formatDate(at)}</dd>
    </>
  );
}

function DisconnectDialog<Status, TError>({
  open,
  onClose,
  disconnection,
}: {
  open: boolean;
  onClose: () => void;
  disconnection: Disconnection<Status, TError>;
}) {
  const project = useProject();
  const toast = useToast();
  const queryClient = useQueryClient();
  const { subject, description, mutationOptions, statusKey, removeQueries = [], invalidateQueries = [] } = disconnection;
  const disconnect = useMutation(mutationOptions);

  function close() {
    onClose();
    disconnect.reset();
  }

  async function confirm() {
    let status: Status;
    try {
      status = await disconnect.mutateAsync({ projectId: project.id });
    } catch {
      return;
    }
    close();
    queryClient.setQueryData<Status>(statusKey, status);
    for (const queryKey of removeQueries) queryClient.removeQueries({ queryKey });
    await Promise.all(invalidateQueries.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
    toast.success(`${subject} was disconnected`);
  }

  return (
    <ConfirmDialog
      open={open}
      onClose={close}
      title={`Disconnect ${subject.charAt(0).toLowerCase()}${subject.slice(1)}?`}
      description={description}
      confirmLabel="Disconnect"
      onConfirm={() => void confirm()}
      pending={disconnect.isPending}
      errorTitle={`${subject} was not disconnected`}
      error={disconnect.isError ? appErrorOf(disconnect.error).message : null}
    />
  );
}
