'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { formatDate, formatDateTime } from '../format';
import { formatTtl, type DnsProviderInfo, type DnsRecordRules } from '../integrations/dnsProvider';
import { DnsSimulatorNotice } from '../integrations/DnsSimulatorNotice';
import { projectPath } from '../projects/areas';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Badge } from '../ui/Badge';
import { Button, ButtonLink } from '../ui/Button';
import { Card } from '../ui/Card';
import { CopyButton } from '../ui/CopyButton';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { LoadFailed } from '../ui/LoadFailed';
import { PageHeader } from '../ui/PageHeader';
import { Skeleton } from '../ui/Skeleton';
import { StatusBadge } from '../ui/StatusBadge';
import { Table, type Column } from '../ui/Table';
import { DeleteResourceCard } from '../ui/DeleteResourceCard';
import { useToast } from '../ui/Toast';
import { lookupErrorInWords, type Domain, type DomainCheck, type DomainVerification } from './domains';
import styles from './domains.module.css';

export function DomainDetail({
  domainRef,
  provider,
  rules,
  autoDnsCreated,
}: {
  domainRef: string;
  provider: DnsProviderInfo;
  rules: DnsRecordRules;
  autoDnsCreated: boolean;
}) {
  const project = useProject();
  const trpc = useTRPC();
  const domain = useQuery(trpc.domains.get.queryOptions({ projectId: project.id, domain: domainRef }));
  const listPath = projectPath(project.id, 'domains');

  if (domain.isPending) {
    return (
      <main className="page" aria-busy="true">
        <Skeleton width={260} height={26} />
        <Skeleton width={360} style={{ marginTop: 12 }} />
        <Skeleton height={180} style={{ marginTop: 28 }} />
      </main>
    );
  }
  if (domain.isError) {
    return (
      <main className="page">
        {appErrorOf(domain.error).code === 'NOT_FOUND' ? (
          <div className="card">
            <EmptyState
              icon="globe"
              title="Domain not found"
              description="This project has no such domain, or it was removed."
              action={<ButtonLink href={listPath}>Back to Domains</ButtonLink>}
            />
          </div>
        ) : (
          <LoadFailed title="The domain could not be loaded" error={domain.error} retry={domain.refetch} retrying={domain.isFetching} />
        )}
      </main>
    );
  }
  return <DomainView domainRef={domainRef} domain={domain.data} provider={provider} rules={rules} autoDnsCreated={autoDnsCreated} />;
}

function DomainView({
  domainRef,
  domain,
  provider,
  rules,
  autoDnsCreated,
}: {
  domainRef: string;
  domain: Domain;
  provider: DnsProviderInfo;
  rules: DnsRecordRules;
  autoDnsCreated: boolean;
}) {
  const project = useProject();
  const trpc = useTRPC();
  const canManage = hasRole(project, 'member');
  const connected = useQuery(trpc.dnsProvider.status.queryOptions({ projectId: project.id })).data?.connected === true;

  return (
    <main className="page">
      <PageHeader
        eyebrow={
          <Link href={projectPath(project.id, 'domains')} className="muted">
            ← Domains
          </Link>
        }
        title={
          <span className={styles.titleRow}>
            <span className={styles.domainName}>{domain.name}</span>
            <StatusBadge status={domain.status} />
          </span>
        }
        description={`External domain, added ${formatDate(domain.createdAt)}.`}
      />
      <div className="stack-lg">
        {connected ? <DnsSimulatorNotice provider={provider} /> : null}
        {autoDnsCreated && domain.status === 'PENDING' ? (
          <Alert tone="success" title="Auto-DNS created the verification record in your DNS account">
            Check now to verify the domain; it is also checked automatically.
          </Alert>
        ) : null}
        <VerificationCard domainRef={domainRef} domain={domain} canManage={canManage} />
        <DomainRecordsCard domain={domain} rules={rules} />
        {canManage ? <RemoveCard domain={domain} /> : null}
      </div>
    </main>
  );
}

function VerificationCard({ domainRef, domain, canManage }: { domainRef: string; domain: Domain; canManage: boolean }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const dnsProvider = useQuery(trpc.dnsProvider.status.queryOptions({ projectId: project.id }));
  const verify = useMutation(trpc.domains.verify.mutationOptions());
  const createRecord = useMutation(trpc.domains.createVerificationRecord.mutationOptions());
  const [check, setCheck] = useState<DomainCheck | null>(null);
  const domainKey = trpc.domains.get.queryKey({ projectId: project.id, domain: domainRef });
  const pending = domain.status === 'PENDING';
  const connected = dnsProvider.data?.connected === true;

  async function checkNow() {
    createRecord.reset();
    let answer: DomainVerification;
    try {
      answer = await verify.mutateAsync({ projectId: project.id, domain: domain.id });
    } catch {
      return;
    }
    setCheck(answer.check);
    queryClient.setQueryData(domainKey, answer.domain);
    await queryClient.invalidateQueries({ queryKey: trpc.domains.list.queryKey({ projectId: project.id }) });
  }

  async function create() {
    verify.reset();
    let updated: Domain;
    try {
      updated = await createRecord.mutateAsync({ projectId: project.id, domain: domain.id });
    } catch {
      return;
    }
    setCheck(null);
    queryClient.setQueryData(domainKey, updated);
    toast.success('The TXT record was created in your DNS account');
  }

  const failure = verify.error ?? createRecord.error;

  return (
    <Card
      title="Ownership"
      aria-label="Ownership"
      description={
        pending
          ? 'Publish this TXT record where the domain’s DNS is hosted, then check. Pending domains are also checked automatically: after a minute, then less and less often, for a week.'
          : 'This TXT record proved that the domain is yours. It may stay published.'
      }
      actions={
        canManage && pending ? (
          <>
            {connected ? (
              <Button onClick={() => void create()} loading={createRecord.isPending} disabled={verify.isPending}>
                <Icon name="plus" /> Create this record
              </Button>
            ) : null}
            <Button variant="primary" onClick={() => void checkNow()} loading={verify.isPending} disabled={createRecord.isPending}>
              <Icon name="checkCircle" /> Check now
            </Button>
          </>
        ) : null
      }
    >
      <div className="stack">
        {failure ? (
          <Alert tone="danger" title={createRecord.error ? 'The record was not created' : 'The check did not run'}>
            {appErrorOf(failure).message}
          </Alert>
        ) : null}
        <div className={styles.recordGrid}>
          <RecordField label="Type" value={domain.verificationRecord.type} />
          <RecordField label="Name" value={domain.verificationRecord.name} copyLabel="Copy the record name" testId="verification-name" />
          <RecordField label="Value" value={domain.verificationRecord.value} copyLabel="Copy the record value" testId="verification-value" />
        </div>
        {check ? <CheckResult check={check} /> : null}
        {canManage && pending && dnsProvider.data && !connected ? (
          <p className="muted">
            Is the domain’s DNS at your DNS provider? <Link href={projectPath(project.id, 'integrations')}>Connect it on the Integrations page</Link> to create
            this record in one click.
          </p>
        ) : null}
      </div>
    </Card>
  );
}

function RecordField({ label, value, copyLabel, testId }: { label: string; value: string; copyLabel?: string; testId?: string }) {
  return (
    <div className={styles.recordField}>
      <span className={styles.fieldLabel}>{label}</span>
      <div className={styles.recordValue}>
        <code data-testid={testId}>{value}</code>
        {copyLabel ? <CopyButton value={value} label={copyLabel} /> : null}
      </div>
    </div>
  );
}

function CheckResult({ check }: { check: DomainCheck }) {
  if (check.verified) {
    return (
      <Alert tone="success" title="Verified: the record was found">
        Checked at {formatDateTime(check.checkedAt)}. The domain is yours to use in this project.
      </Alert>
    );
  }
  const why = check.error
    ? lookupErrorInWords(check.error)
    : check.found.length > 0
      ? 'TXT records are published at that name, but none has the expected value'
      : 'no TXT record was found';
  return (
    <Alert tone="warning" title="The record was not found yet">
      <dl className={`details-list ${styles.checkList}`} aria-label="Last check">
        <dt>Why</dt>
        <dd data-testid="check-reason">
          {why.charAt(0).toUpperCase() + why.slice(1)}.{check.error ? <span className={styles.code}>{check.error}</span> : null}
        </dd>
        <dt>Looked up</dt>
        <dd className="mono">{check.expected.name}</dd>
        <dt>Expected</dt>
        <dd className="mono">{check.expected.value}</dd>
        <dt>Found</dt>
        <dd>
          {check.found.length > 0 ? (
            <ul className={styles.foundList}>
              {check.found.map((value) => (
                <li key={value} className="mono">
                  {value}
                </li>
              ))}
            </ul>
          ) : (
            <span className="muted">Nothing</span>
          )}
        </dd>
        <dt>Checked</dt>
        <dd>{formatDateTime(check.checkedAt)}</dd>
      </dl>
      <p className={styles.checkHint}>New records can take a few minutes to be served. The domain keeps being checked in the background.</p>
    </Alert>
  );
}

function DomainRecordsCard({ domain, rules }: { domain: Domain; rules: DnsRecordRules }) {
  const project = useProject();
  const trpc = useTRPC();
  const dnsProvider = useQuery(trpc.dnsProvider.status.queryOptions({ projectId: project.id }));
  const connected = dnsProvider.data?.connected === true;
  const columns: Column<Domain['dnsRecords'][number]>[] = [
    { header: 'Type', cell: (record) => <Badge mono>{record.type}</Badge> },
    { header: 'Name', cell: (record) => <span className={`mono ${styles.recordCell}`}>{record.name}</span> },
    { header: 'Content', cell: (record) => <span className={`mono ${styles.recordCell}`}>{record.content}</span> },
    { header: 'TTL', className: 'hide-xs', cell: (record) => formatTtl(record.ttl, rules.ttlAutomatic) },
  ];

  return (
    <Card
      title="DNS records"
      aria-label="DNS records"
      flush
      description={
        connected
          ? `What the connected DNS account holds at ${domain.name} and under it. Change them on the Integrations page.`
          : 'Connect your DNS provider to see the records of this domain here.'
      }
      actions={
        connected ? (
          <ButtonLink href={projectPath(project.id, 'integrations')} size="sm">
            Manage records
          </ButtonLink>
        ) : null
      }
    >
      {domain.dnsRecords.length > 0 ? (
        <Table label={`DNS records of ${domain.name}`} columns={columns} rows={domain.dnsRecords} rowKey={(record) => record.id} loadingRows={0} />
      ) : (
        <EmptyState
          icon="inbox"
          title={connected ? 'No records at this name' : 'No DNS provider connected'}
          description={
            connected
              ? 'The connected account holds no record at this domain, or no zone that holds it.'
              : 'Records published elsewhere are not read; the ownership check asks the DNS itself.'
          }
        />
      )}
    </Card>
  );
}

function RemoveCard({ domain }: { domain: Domain }) {
  const project = useProject();
  const trpc = useTRPC();
  const router = useRouter();
  const toast = useToast();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.domains.remove.mutationOptions());

  return (
    <DeleteResourceCard
      title="Remove domain"
      description="Removes the domain from this project and frees the name for any project. DNS records published for it stay where they are."
      footnote="Adding it again needs a new verification."
      dialogTitle={`Remove ${domain.name}?`}
      dialogDescription="The domain leaves this project and its name becomes free for any project. Its DNS records are not touched."
      name={domain.name}
      confirmLabel="Remove this domain"
      errorTitle="The domain was not removed"
      onDelete={() => remove.mutateAsync({ projectId: project.id, domain: domain.id })}
      onDeleted={async () => {
        toast.success(`${domain.name} was removed`);
        router.replace(projectPath(project.id, 'domains'));
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.domains.list.queryKey({ projectId: project.id }) }),
          queryClient.invalidateQueries({ queryKey: trpc.projects.get.queryKey() }),
        ]);
      }}
    />
  );
}
