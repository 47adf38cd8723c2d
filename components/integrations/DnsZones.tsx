'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import type { Column } from '../ui/Table';
import { useToast } from '../ui/Toast';
import { formatTtl, type DnsRecord, type DnsRecordRules, type DnsZone } from './dnsProvider';
import { RecordDialog, relativeName } from './RecordDialog';
import styles from './integrations.module.css';

/** The connected account's zones; choosing one shows its records below. */
export function DnsZones({ rules }: { rules: DnsRecordRules }) {
  const project = useProject();
  const trpc = useTRPC();
  const zones = useQuery(trpc.dnsProvider.zones.queryOptions({ projectId: project.id }));
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const selected = zones.data?.find((zone) => zone.id === selectedId) ?? null;

  const columns: Column<DnsZone>[] = [
    {
      header: 'Zone',
      cell: (zone) => (
        <button
          type="button"
          className={styles.linkButton}
          aria-pressed={zone.id === selectedId}
          aria-label={`Show the records of ${zone.name}`}
          onClick={() => setSelectedId(zone.id)}
        >
          <Icon name="globe" size={14} /> <span className="mono">{zone.name}</span>
        </button>
      ),
    },
    {
      header: 'Status',
      cell: (zone) => (zone.status === 'active' ? <Badge tone="success">Active</Badge> : <Badge tone="warning">Pending at the provider</Badge>),
    },
  ];

  return (
    <>
      <Card title="Zones" description="The zones of the connected DNS account. Choose one to see and change its records." flush aria-label="Zones">
        <DataList
          label="DNS zones"
          query={zones}
          columns={columns}
          rowKey={(zone) => zone.id}
          onRowClick={(zone) => setSelectedId(zone.id)}
          loadingRows={2}
          empty={<EmptyState icon="globe" title="No zones in this account" description="Add a zone at your DNS provider; it shows here at once." />}
        />
      </Card>
      {selected ? <ZoneRecords key={selected.id} zone={selected} rules={rules} /> : null}
    </>
  );
}

type RecordDialogState = { mode: 'create' } | { mode: 'edit'; record: DnsRecord } | null;

function ZoneRecords({ zone, rules }: { zone: DnsZone; rules: DnsRecordRules }) {
  const project = useProject();
  const trpc = useTRPC();
  const canManage = hasRole(project, 'member');
  const records = useQuery(trpc.dnsProvider.records.queryOptions({ projectId: project.id, zoneId: zone.id }));
  const [dialog, setDialog] = useState<RecordDialogState>(null);
  const [deleting, setDeleting] = useState<DnsRecord | null>(null);

  const columns: Column<DnsRecord>[] = [
    { header: 'Type', cell: (record) => <Badge mono>{record.type}</Badge> },
    {
      header: 'Name',
      cell: (record) => (
        <span className={`mono ${styles.recordName}`} title={record.name}>
          {relativeName(record.name, zone.name)}
        </span>
      ),
    },
    {
      header: 'Content',
      cell: (record) => (
        <span className={`mono ${styles.recordContent}`} title={record.content}>
          {record.priority !== null ? <span className="muted">{record.priority} </span> : null}
          {record.content}
        </span>
      ),
    },
    { header: 'TTL', className: 'hide-xs', cell: (record) => formatTtl(record.ttl, rules.ttlAutomatic) },
    {
      header: 'Proxy',
      className: 'hide-sm',
      cell: (record) =>
        rules.proxiableTypes.includes(record.type) ? (
          record.proxied ? (
            <Badge tone="accent">Proxied</Badge>
          ) : (
            <span className="muted">DNS only</span>
          )
        ) : (
          <span className="muted">—</span>
        ),
    },
  ];
  if (canManage) {
    columns.push({
      header: <span className="visually-hidden">Actions</span>,
      className: styles.actionsCell,
      cell: (record) => {
        const what = `${record.type} record ${record.name}`;
        return (
          <span className={styles.rowActions}>
            <Button size="sm" variant="ghost" aria-label={`Edit the ${what}`} title="Edit" onClick={() => setDialog({ mode: 'edit', record })}>
              <Icon name="pencil" size={14} />
            </Button>
            <Button size="sm" variant="danger-ghost" aria-label={`Delete the ${what}`} title="Delete" onClick={() => setDeleting(record)}>
              <Icon name="trash" size={14} />
            </Button>
          </span>
        );
      },
    });
  }

  return (
    <Card
      title={
        <>
          Records of <span className="mono">{zone.name}</span>
        </>
      }
      description="A, AAAA, CNAME, MX, TXT, NS, SRV and CAA records, as the provider holds them. Changes apply at the provider at once."
      aria-label={`Records of ${zone.name}`}
      flush
      actions={
        canManage ? (
          <Button variant="primary" size="sm" onClick={() => setDialog({ mode: 'create' })}>
            <Icon name="plus" size={14} /> Add record
          </Button>
        ) : null
      }
    >
      <DataList
        label={`DNS records of ${zone.name}`}
        query={records}
        columns={columns}
        rowKey={(record) => record.id}
        loadingRows={4}
        empty={<EmptyState icon="inbox" title="No records in this zone" description="Records you add here are created in your DNS account." />}
      />
      {dialog ? <RecordDialog zone={zone} rules={rules} record={dialog.mode === 'edit' ? dialog.record : null} onClose={() => setDialog(null)} /> : null}
      <DeleteRecordDialog zone={zone} record={deleting} onClose={() => setDeleting(null)} />
    </Card>
  );
}

function DeleteRecordDialog({ zone, record, onClose }: { zone: DnsZone; record: DnsRecord | null; onClose: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.dnsProvider.deleteRecord.mutationOptions());

  function close() {
    onClose();
    remove.reset();
  }

  async function confirm() {
    if (!record) return;
    try {
      await remove.mutateAsync({ projectId: project.id, zoneId: zone.id, recordId: record.id });
    } catch {
      return;
    }
    close();
    toast.success(`The ${record.type} record ${record.name} was deleted`);
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.dnsProvider.records.queryKey({ projectId: project.id, zoneId: zone.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.domains.pathKey() }),
    ]);
  }

  return (
    <ConfirmDialog
      open={record !== null}
      onClose={close}
      title={record ? `Delete the ${record.type} record ${record.name}?` : ''}
      description="It is removed from your DNS account at once. Resolvers that asked for it recently may keep the old answer until its TTL runs out."
      confirmLabel="Delete record"
      onConfirm={() => void confirm()}
      pending={remove.isPending}
      errorTitle="The record was not deleted"
      error={remove.isError ? appErrorOf(remove.error).message : null}
    >
      {record ? (
        <p className={`mono ${styles.recordPreview}`}>
          {record.name} {record.type} {record.priority ?? ''} {record.content}
        </p>
      ) : null}
    </ConfirmDialog>
  );
}
