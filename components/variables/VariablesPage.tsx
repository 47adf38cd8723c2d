'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type ReactNode } from 'react';
import { ENVIRONMENTS, updateVariableInput, type EffectiveVariable, type Environment, type Variable } from '@/server/domains/variables/schema';
import { formatDate, formatDateTime } from '../format';
import { useZodForm } from '../forms/useZodForm';
import { hasRole, useProject } from '../projects/ProjectContext';
import { errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { DataList } from '../ui/DataList';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { PageHeader } from '../ui/PageHeader';
import type { Column } from '../ui/Table';
import { useToast } from '../ui/Toast';
import { AddVariableForm } from './AddVariableForm';
import { ENVIRONMENT_LABELS } from '../configuration/environments';
import { ImportEnvDialog } from './ImportEnvDialog';
import styles from './variables.module.css';

type View = 'own' | 'effective';

export function VariablesPage() {
  const project = useProject();
  const canManage = hasRole(project, 'member');
  const trpc = useTRPC();
  const all = useQuery(trpc.variables.list.queryOptions({ projectId: project.id }));
  const [environment, setEnvironment] = useState<Environment>('default');
  const [view, setView] = useState<View>('own');
  const [importing, setImporting] = useState(false);
  const shownView: View = environment === 'default' ? 'own' : view;
  const label = ENVIRONMENT_LABELS[environment];

  return (
    <main className="page">
      <PageHeader
        eyebrow={project.name}
        title="Variables"
        description="Plaintext configuration your deployments receive as environment variables. Default entries apply to every environment that does not set the same name. Keep passwords and tokens in Secrets: anyone in the project can read variables."
        actions={
          canManage ? (
            <Button onClick={() => setImporting(true)}>
              <Icon name="download" /> Import .env
            </Button>
          ) : null
        }
      />
      <div className="stack-lg">
        <div className={styles.tabs} role="tablist" aria-label="Environment">
          {ENVIRONMENTS.map((env) => {
            const count = all.data?.filter((v) => v.environment === env).length;
            return (
              <button
                key={env}
                type="button"
                role="tab"
                id={`variables-tab-${env}`}
                aria-selected={env === environment}
                aria-controls="variables-panel"
                className={styles.tab}
                onClick={() => setEnvironment(env)}
              >
                {ENVIRONMENT_LABELS[env]}
                {count !== undefined ? <span className={styles.tabCount}>{count}</span> : null}
              </button>
            );
          })}
        </div>
        <div id="variables-panel" role="tabpanel" aria-labelledby={`variables-tab-${environment}`} className="stack-lg">
          <Card
            flush
            title={shownView === 'effective' ? `Effective in ${label}` : environment === 'default' ? 'Default variables' : `Set in ${label}`}
            description={
              shownView === 'effective'
                ? `What a deployment to ${label} receives: its own entries, and the default ones it does not override.`
                : environment === 'default'
                  ? 'These apply in every environment unless the environment sets the same name.'
                  : `Entries of ${label} only. Default entries of the same name are overridden here.`
            }
            actions={
              environment === 'default' ? null : (
                <div className={styles.segmented} role="group" aria-label="Show">
                  <button type="button" aria-pressed={view === 'own'} onClick={() => setView('own')}>
                    Set here
                  </button>
                  <button type="button" aria-pressed={view === 'effective'} onClick={() => setView('effective')}>
                    Effective
                  </button>
                </div>
              )
            }
          >
            {shownView === 'effective' ? (
              <EffectiveList projectId={project.id} environment={environment} />
            ) : (
              <OwnList
                projectId={project.id}
                environment={environment}
                query={{ ...all, data: all.data?.filter((v) => v.environment === environment) }}
                canManage={canManage}
                onImport={() => setImporting(true)}
              />
            )}
          </Card>
          {canManage ? <AddVariableForm key={environment} projectId={project.id} environment={environment} /> : null}
        </div>
      </div>
      {canManage && importing ? <ImportEnvDialog projectId={project.id} initialEnvironment={environment} onClose={() => setImporting(false)} /> : null}
    </main>
  );
}

interface ListState {
  data: Variable[] | undefined;
  error: unknown;
  isFetching: boolean;
  refetch: () => unknown;
}

function OwnList({
  projectId,
  environment,
  query,
  canManage,
  onImport,
}: {
  projectId: string;
  environment: Environment;
  query: ListState;
  canManage: boolean;
  onImport: () => void;
}) {
  const editor = useInlineEditor(projectId);
  const [deleting, setDeleting] = useState<Variable | null>(null);
  const label = ENVIRONMENT_LABELS[environment];
  const formId = (v: Variable) => `edit-variable-${v.id}`;

  const columns: Column<Variable>[] = [
    {
      header: 'Name',
      cell: (v) =>
        editor.editing === v.id ? (
          <form id={formId(v)} className={styles.editCell} onSubmit={editor.save} noValidate aria-label={`Edit ${v.name}`}>
            <EditField label="Name" error={editor.form.errors.name}>
              <input
                className={`input ${styles.mono}`}
                value={editor.draft.name}
                onChange={(e) => editor.set('name', e.target.value.toUpperCase())}
                aria-invalid={editor.form.errors.name ? true : undefined}
              />
            </EditField>
            <EditField label="Description" error={editor.form.errors.description}>
              <input
                className="input"
                value={editor.draft.description}
                placeholder="Optional"
                onChange={(e) => editor.set('description', e.target.value)}
                aria-invalid={editor.form.errors.description ? true : undefined}
              />
            </EditField>
            {editor.form.formError ? <Alert tone="danger">{editor.form.formError}</Alert> : null}
          </form>
        ) : (
          <div>
            <code className={styles.name}>{v.name}</code>
            {v.description ? <div className="cell-sub">{v.description}</div> : null}
          </div>
        ),
    },
    {
      header: 'Value',
      cell: (v) =>
        editor.editing === v.id ? (
          <EditField label="Value" error={editor.form.errors.value}>
            <textarea
              form={formId(v)}
              className={styles.textarea}
              rows={Math.min(6, Math.max(2, editor.draft.value.split('\n').length))}
              value={editor.draft.value}
              spellCheck={false}
              onChange={(e) => editor.set('value', e.target.value)}
              aria-invalid={editor.form.errors.value ? true : undefined}
            />
          </EditField>
        ) : (
          <VariableValue value={v.value} />
        ),
    },
    {
      header: 'Updated',
      className: 'hide-sm',
      cell: (v) => (
        <div>
          <span title={formatDateTime(v.updatedAt)}>{formatDate(v.updatedAt)}</span>
          <div className="cell-sub">{v.updatedByUser.name}</div>
        </div>
      ),
    },
  ];
  if (canManage) {
    columns.push({
      header: <span className="visually-hidden">Actions</span>,
      className: 'cell-actions',
      cell: (v) =>
        editor.editing === v.id ? (
          <div className={styles.actions}>
            <Button size="sm" variant="ghost" onClick={editor.cancel}>
              Cancel
            </Button>
            <Button size="sm" variant="primary" type="submit" form={formId(v)} loading={editor.pending}>
              Save
            </Button>
          </div>
        ) : (
          <div className={styles.actions}>
            <Button size="sm" variant="ghost" onClick={() => editor.start(v)} aria-label={`Edit ${v.name}`}>
              Edit
            </Button>
            <Button size="sm" variant="danger-ghost" onClick={() => setDeleting(v)} aria-label={`Delete ${v.name}`}>
              Delete
            </Button>
          </div>
        ),
    });
  }

  return (
    <>
      <DataList
        label={`Variables in ${label}`}
        query={query}
        columns={columns}
        rowKey={(v) => v.id}
        empty={
          <EmptyState
            icon="folder"
            title={`No variables in ${label}`}
            description={
              canManage
                ? environment === 'default'
                  ? 'Add the settings every environment shares, or import a .env file.'
                  : `Add what differs in ${label}; the default variables apply here otherwise.`
                : 'Members of the project can add variables.'
            }
            action={
              canManage ? (
                <Button onClick={onImport}>
                  <Icon name="download" /> Import .env
                </Button>
              ) : null
            }
          />
        }
      />
      <DeleteVariableDialog projectId={projectId} variable={deleting} onClose={() => setDeleting(null)} />
    </>
  );
}

function EditField({ label, error, children }: { label: string; error?: string; children: ReactNode }) {
  return (
    <label className={styles.editField}>
      <span className="visually-hidden">{label}</span>
      {children}
      {error ? <span className="field-error">{error}</span> : null}
    </label>
  );
}

interface Draft {
  name: string;
  value: string;
  description: string;
}

/** One row at a time turns into inputs; saving sends the row's fields and the server's refusals land on them. */
function useInlineEditor(projectId: string) {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const form = useZodForm(updateVariableInput);
  const update = useMutation(trpc.variables.update.mutationOptions());
  const [editing, setEditing] = useState<string | null>(null);
  const [draft, setDraft] = useState<Draft>({ name: '', value: '', description: '' });

  function start(variable: Variable) {
    form.clear();
    update.reset();
    setDraft({ name: variable.name, value: variable.value, description: variable.description ?? '' });
    setEditing(variable.id);
  }

  function cancel() {
    form.clear();
    setEditing(null);
  }

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!editing) return;
    const input = form.parse(draft);
    if (!input) return;
    try {
      await update.mutateAsync({ projectId, variableId: editing, ...input });
      await queryClient.invalidateQueries({ queryKey: trpc.variables.pathKey() });
      toast.success(`${draft.name} was saved`);
      setEditing(null);
    } catch (error) {
      form.fail(error);
    }
  }

  return {
    editing,
    draft,
    form,
    pending: update.isPending,
    set: (field: keyof Draft, value: string) => setDraft((current) => ({ ...current, [field]: value })),
    start,
    cancel,
    save,
  };
}

function EffectiveList({ projectId, environment }: { projectId: string; environment: Environment }) {
  const trpc = useTRPC();
  const effective = useQuery(trpc.variables.effective.queryOptions({ projectId, environment }));
  const label = ENVIRONMENT_LABELS[environment];
  const columns: Column<EffectiveVariable>[] = [
    { header: 'Name', cell: (v) => <code className={styles.name}>{v.name}</code> },
    { header: 'Value', cell: (v) => <VariableValue value={v.value} /> },
    {
      header: 'From',
      cell: (v) =>
        v.inherited ? (
          <Badge tone="neutral" title="No entry of this name in the environment, so the default one applies">
            Default
          </Badge>
        ) : (
          <Badge tone="accent">{label}</Badge>
        ),
    },
  ];
  return (
    <DataList
      label={`Effective variables in ${label}`}
      query={effective}
      columns={columns}
      rowKey={(v) => v.id}
      empty={<EmptyState icon="folder" title={`Nothing applies in ${label}`} description="Neither this environment nor Default has variables yet." />}
    />
  );
}

function VariableValue({ value }: { value: string }) {
  if (value === '') return <span className="muted">empty</span>;
  return (
    <code className={styles.value} title={value.length > 80 || value.includes('\n') ? value : undefined}>
      {value}
    </code>
  );
}

function DeleteVariableDialog({ projectId, variable, onClose }: { projectId: string; variable: Variable | null; onClose: () => void }) {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.variables.delete.mutationOptions());

  function close() {
    remove.reset();
    onClose();
  }

  async function confirm() {
    if (!variable) return;
    try {
      await remove.mutateAsync({ projectId, variableId: variable.id });
    } catch {
      return;
    }
    await queryClient.invalidateQueries({ queryKey: trpc.variables.pathKey() });
    toast.success(`${variable.name} was deleted`);
    close();
  }

  const inDefault = variable?.environment === 'default';
  return (
    <ConfirmDialog
      open={variable !== null}
      onClose={close}
      title={`Delete ${variable?.name ?? ''}?`}
      description={
        inDefault
          ? 'Environments that do not set this name themselves will no longer receive it on their next deployment.'
          : `The next deployment to ${variable ? ENVIRONMENT_LABELS[variable.environment] : ''} receives the default entry of this name instead, if there is one.`
      }
      confirmLabel="Delete variable"
      onConfirm={confirm}
      pending={remove.isPending}
      error={remove.isError ? errorMessage(remove.error) : null}
    />
  );
}
