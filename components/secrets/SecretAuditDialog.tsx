'use client';

import { useQuery } from '@tanstack/react-query';
import { formatDateTime } from '../format';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { DataList } from '../ui/DataList';
import { Dialog } from '../ui/Dialog';
import { Skeleton } from '../ui/Skeleton';
import type { SecretRow } from './secretRow';
import styles from './secrets.module.css';

const ACTION_LABELS = { CREATED: 'Created', UPDATED: 'Updated', DELETED: 'Deleted' } as const;
const ACTION_TONES = { CREATED: 'success', UPDATED: 'accent', DELETED: 'danger' } as const;

/** Who created, replaced and deleted one secret, newest first (owners and admins). */
export function SecretAuditDialog({ projectId, secret, onClose }: { projectId: string; secret: SecretRow | null; onClose: () => void }) {
  return (
    <Dialog
      open={secret !== null}
      onClose={onClose}
      title={`History of ${secret?.name ?? ''}`}
      description="Every change of the secret, newest first. Values are never recorded."
      footer={
        <Button variant="primary" onClick={onClose}>
          Close
        </Button>
      }
    >
      {secret ? <AuditTrail projectId={projectId} secretId={secret.id} /> : null}
    </Dialog>
  );
}

function AuditTrail({ projectId, secretId }: { projectId: string; secretId: string }) {
  const trpc = useTRPC();
  const trail = useQuery(trpc.secrets.audit.queryOptions({ projectId, secretId }));
  return (
    <DataList
      label="History"
      query={trail}
      loading={
        <div className="stack" aria-busy="true">
          <Skeleton height={18} />
          <Skeleton height={18} />
        </div>
      }
    >
      {(entries) => (
        <ol className={styles.timeline} aria-label="History" data-testid="secret-audit">
          {entries.map((entry) => (
            <li key={entry.id} className={styles.timelineItem}>
              <Badge tone={ACTION_TONES[entry.action]}>{ACTION_LABELS[entry.action]}</Badge>
              <div>
                <div>
                  {entry.actor.name} <span className="secondary">({entry.actor.email})</span>
                </div>
                <div className="cell-sub">{formatDateTime(entry.createdAt)}</div>
              </div>
            </li>
          ))}
        </ol>
      )}
    </DataList>
  );
}
