'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { ProjectBillingAlert } from '../billing/ProjectBillingAlert';
import { formatDateTime, formatRelative } from '../format';
import { hasRole, useProject } from '../projects/ProjectContext';
import { useTRPC } from '../trpc/TrpcProvider';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { PageHeader } from '../ui/PageHeader';
import { StatusBadge } from '../ui/StatusBadge';
import type { Column } from '../ui/Table';
import { AddDomainDialog } from './AddDomainDialog';
import { domainPath, type Domain } from './domains';
import { FindDomainCard } from './FindDomainCard';
import styles from './domains.module.css';

export function DomainsPage() {
  const project = useProject();
  const trpc = useTRPC();
  const canAdd = hasRole(project, 'member');
  const domains = useQuery(trpc.domains.list.queryOptions({ projectId: project.id }));
  const [adding, setAdding] = useState(false);

  const addButton = canAdd ? (
    <Button variant="primary" onClick={() => setAdding(true)}>
      <Icon name="plus" /> Add domain
    </Button>
  ) : null;

  const columns: Column<Domain>[] = [
    {
      header: 'Domain',
      cell: (domain) => (
        <Link href={domainPath(project.id, domain.name)} className={styles.nameLink}>
          {domain.name}
        </Link>
      ),
    },
    { header: 'Status', cell: (domain) => <StatusBadge status={domain.status} /> },
    {
      header: 'DNS records',
      className: 'hide-sm',
      cell: (domain) =>
        domain.dnsRecords.length > 0 ? (
          `${domain.dnsRecords.length} record${domain.dnsRecords.length === 1 ? '' : 's'}`
        ) : (
          <span className="muted" title="Records show here when a connected DNS account holds the domain’s zone">
            —
          </span>
        ),
    },
    {
      header: 'Added',
      className: 'hide-xs',
      cell: (domain) => <span title={formatDateTime(domain.createdAt)}>{formatRelative(domain.createdAt)}</span>,
    },
  ];

  return (
    <main className="page">
      <PageHeader
        eyebrow={project.name}
        title="Domains"
        description="Domains you own, attached to this project once a TXT record proves it. Registering a domain happens at a registrar; add it here afterwards."
        actions={addButton}
      />
      <div className="stack-lg">
        <ProjectBillingAlert project={project} />
        <Card flush>
          <DataList
            label="Domains"
            query={domains}
            columns={columns}
            rowKey={(domain) => domain.id}
            empty={
              <EmptyState
                icon="globe"
                title="No domains yet"
                description="Add a domain you own, or a name under one such as shop.example.com, then publish the TXT record it is given to prove it is yours."
                action={addButton}
              />
            }
          />
        </Card>
        <FindDomainCard />
      </div>
      {canAdd ? <AddDomainDialog open={adding} onClose={() => setAdding(false)} /> : null}
    </main>
  );
}
