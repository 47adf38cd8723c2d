'use client';

import { skipToken, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { databaseNameSchema } from '@/server/domains/hosting/schema';
import { formatDate, formatDateTime } from '../format';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { Input } from '../ui/Input';
import { Skeleton } from '../ui/Skeleton';
import { SubmitButton } from '../ui/SubmitButton';
import { useToast } from '../ui/Toast';
import { TypedConfirmDialog } from '../ui/TypedConfirmDialog';
import { TIER_LABELS, type DatabaseView, type HostingProviderInfo, type SiteView } from './hosting';
import { DatabaseSimulatorNotice } from './SimulatorNotice';
import { ValueField } from '../ui/ValueField';
import styles from './hosting.module.css';

const HIDDEN = '•'.repeat(16);

export function SiteDatabases({ site, provider }: { site: SiteView; provider: HostingProviderInfo }) {
  const project = useProject();
  const trpc = useTRPC();
  const canManage = hasRole(project, 'member');
  const databases = useQuery(trpc.hosting.listDatabases.queryOptions({ projectId: project.id, tenantId: site.tenantId }));
  const [deleting, setDeleting] = useState<DatabaseView | null>(null);
  const count = databases.data?.length ?? 0;
  const full = count >= site.limits.databases;

  return (
    <div className="stack-lg">
      <DatabaseSimulatorNotice provider={provider} />
      {canManage ? <CreateDatabaseCard site={site} full={full} count={count} /> : null}
      <DataList
        label="Databases"
        query={databases}
        loading={<Skeleton height={160} />}
        empty={
          <div className="card">
            <EmptyState
              icon="database"
              title="No databases yet"
              description={`The ${TIER_LABELS[site.tier]} tier allows ${site.limits.databases} MySQL databases, each with a user of its own limited to it.`}
            />
          </div>
        }
      >
        {(items) => (
          <div className="stack-lg">
            {items.map((database) => (
              <DatabaseCard key={database.id} site={site} database={database} canManage={canManage} onDelete={() => setDeleting(database)} />
            ))}
          </div>
        )}
      </DataList>
      {canManage ? <DeleteDatabaseDialog site={site} database={deleting} onClose={() => setDeleting(null)} /> : null}
    </div>
  );
}

function CreateDatabaseCard({ site, full, count }: { site: SiteView; full: boolean; count: number }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const create = useMutation(trpc.hosting.createDatabase.mutationOptions());
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | undefined>();

  function change(value: string) {
    setName(value);
    create.reset();
    const parsed = databaseNameSchema.safeParse(value);
    setNameError(value === '' || parsed.success ? undefined : parsed.error.issues[0]?.message);
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsed = databaseNameSchema.safeParse(name);
    if (!parsed.success) {
      setNameError(parsed.error.issues[0]?.message);
      return;
    }
    let created;
    try {
      created = await create.mutateAsync({ projectId: project.id, tenantId: site.tenantId, name: parsed.data });
    } catch (error) {
      const refusal = appErrorOf(error);
      if (refusal.code === 'CONFLICT' || refusal.fields?.name) setNameError(refusal.fields?.name ?? refusal.message);
      return;
    }
    // The answer carries the password: the single read is seeded with it, so Reveal needs no request.
    queryClient.setQueryData(trpc.hosting.getDatabase.queryKey({ projectId: project.id, tenantId: site.tenantId, databaseId: created.id }), created);
    await queryClient.invalidateQueries({ queryKey: trpc.hosting.listDatabases.queryKey({ projectId: project.id, tenantId: site.tenantId }) });
    toast.success(`Database ${created.dbName} was created`);
    setName('');
  }

  const refusal = create.isError ? appErrorOf(create.error) : null;
  return (
    <Card
      title="Create a database"
      description={`${count} of ${site.limits.databases} databases on the ${TIER_LABELS[site.tier]} tier, each allowing ${site.limits.connectionsPerDatabase} connections at once.`}
    >
      <form className={styles.inlineForm} onSubmit={submit} noValidate aria-label="Create a database">
        <Input
          label="Database name"
          name="name"
          value={name}
          onChange={(event) => change(event.target.value)}
          maxLength={16}
          autoComplete="off"
          spellCheck={false}
          placeholder="wordpress"
          disabled={full}
          hint={
            full ? (
              'The tier’s database limit is reached: delete one or change the tier.'
            ) : name && !nameError ? (
              <>
                Created as <span className="mono">{`${site.siteName}_${name}`}</span> with a user of its own.
              </>
            ) : (
              '1 to 16 lower-case letters and digits, starting with a letter.'
            )
          }
          error={nameError}
        />
        <SubmitButton variant="primary" loading={create.isPending} disabled={full}>
          <Icon name="plus" size={14} /> Create database
        </SubmitButton>
      </form>
      {refusal && refusal.code !== 'CONFLICT' && !refusal.fields?.name ? (
        <div style={{ marginTop: 12 }}>
          <Alert tone="danger" title="The database was not created">
            {refusal.message}
          </Alert>
        </div>
      ) : null}
    </Card>
  );
}

function DatabaseCard({ site, database, canManage, onDelete }: { site: SiteView; database: DatabaseView; canManage: boolean; onDelete: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const [revealed, setRevealed] = useState(false);
  const secret = useQuery(
    trpc.hosting.getDatabase.queryOptions(revealed ? { projectId: project.id, tenantId: site.tenantId, databaseId: database.id } : skipToken, {
      staleTime: Infinity,
    }),
  );
  const password = revealed ? secret.data?.dbPassword : undefined;

  return (
    <Card
      aria-label={`Database ${database.name}`}
      title={<span className="mono">{database.name}</span>}
      description={
        <span title={formatDateTime(database.createdAt)}>
          Created {formatDate(database.createdAt)} · up to {database.maxConnections} connections
        </span>
      }
      actions={
        <>
          <Button size="sm" onClick={() => setRevealed(!revealed)} aria-pressed={revealed} loading={revealed && secret.isPending}>
            <Icon name={revealed ? 'lock' : 'key'} size={14} /> {revealed ? 'Hide password' : 'Reveal password'}
          </Button>
          {canManage ? (
            <Button size="sm" variant="danger-ghost" onClick={onDelete} aria-label={`Delete database ${database.name}`}>
              <Icon name="trash" size={14} /> Delete
            </Button>
          ) : null}
        </>
      }
    >
      <div className={styles.connectGrid}>
        <ValueField label="Host" value={database.host} testId={`db-host-${database.name}`} />
        <ValueField label="Port" value={String(database.port)} testId={`db-port-${database.name}`} />
        <ValueField label="Database" value={database.dbName} testId={`db-name-${database.name}`} />
        <ValueField label="User" value={database.dbUser} testId={`db-user-${database.name}`} />
        <div className={styles.wide}>
          <ValueField
            label="Password"
            value={password ?? ''}
            shown={password ?? HIDDEN}
            copy={password !== undefined}
            testId={`db-password-${database.name}`}
          />
          {secret.isError ? (
            <p className="field-error" role="alert">
              {errorMessage(secret.error)}
            </p>
          ) : null}
        </div>
        <div className={styles.wide}>
          <ValueField
            label="Command line"
            value={`mysql -h ${database.host} -P ${database.port} -u ${database.dbUser} -p ${database.dbName}`}
            testId={`db-command-${database.name}`}
          />
        </div>
      </div>
    </Card>
  );
}

function DeleteDatabaseDialog({ site, database, onClose }: { site: SiteView; database: DatabaseView | null; onClose: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.hosting.deleteDatabase.mutationOptions());

  function close() {
    remove.reset();
    onClose();
  }

  async function confirm() {
    if (!database) return;
    try {
      await remove.mutateAsync({ projectId: project.id, tenantId: site.tenantId, databaseId: database.id });
    } catch {
      return;
    }
    toast.success(`Database ${database.dbName} was deleted`);
    await queryClient.invalidateQueries({ queryKey: trpc.hosting.listDatabases.queryKey({ projectId: project.id, tenantId: site.tenantId }) });
    close();
  }

  const refusal = remove.isError ? appErrorOf(remove.error) : null;
  return (
    <TypedConfirmDialog
      open={database !== null}
      onClose={close}
      title={database ? `Delete the database ${database.name}?` : 'Delete the database?'}
      description="The database, its tables and its user are dropped from the MySQL server. This cannot be undone."
      expected={database?.name ?? ''}
      confirmLabel="Delete this database"
      onConfirm={() => void confirm()}
      pending={remove.isPending}
      errorTitle="The database was not deleted"
      error={refusal ? (refusal.code === 'UPSTREAM_ERROR' ? `${refusal.message} Nothing was deleted; deleting again is safe.` : refusal.message) : null}
    />
  );
}
