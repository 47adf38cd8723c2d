'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type ChangeEvent } from 'react';
import { IMPORT_CONTENT_MAX_BYTES, type Environment, type VariablesImport } from '@/server/domains/variables/schema';
import { appErrorOf, type AppErrorInfo } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Badge, type BadgeTone } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { Select } from '../ui/Select';
import { useToast } from '../ui/Toast';
import { ENVIRONMENT_LABELS, ENVIRONMENT_OPTIONS } from '../configuration/environments';
import styles from './variables.module.css';

/**
 * Paste or choose a .env file, preview what the server would do with it (a dry run: the same
 * parser and the same rules as the import itself), then import. Any change to the file, the
 * environment or the overwrite choice drops the preview, so what is imported is what was previewed.
 * Mounted when opened, so each opening starts from the environment on screen.
 */
export function ImportEnvDialog({ projectId, initialEnvironment, onClose }: { projectId: string; initialEnvironment: Environment; onClose: () => void }) {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const preview = useMutation(trpc.variables.import.mutationOptions());
  const run = useMutation(trpc.variables.import.mutationOptions());
  const [environment, setEnvironment] = useState<Environment>(initialEnvironment);
  const [content, setContent] = useState('');
  const [overwrite, setOverwrite] = useState(false);
  const [fileError, setFileError] = useState<string | null>(null);
  const contentId = useId();

  function changed() {
    preview.reset();
    run.reset();
  }

  function close() {
    changed();
    setContent('');
    setOverwrite(false);
    setFileError(null);
    onClose();
  }

  async function chooseFile(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    changed();
    if (file.size > IMPORT_CONTENT_MAX_BYTES) {
      setFileError(`${file.name} is larger than ${IMPORT_CONTENT_MAX_BYTES / 1024} KB`);
      return;
    }
    setFileError(null);
    setContent(await file.text());
  }

  async function showPreview() {
    try {
      await preview.mutateAsync({ projectId, environment, content, overwrite, dryRun: true });
    } catch {
      // The refusal is shown from the mutation's state.
    }
  }

  async function runImport() {
    try {
      const report = await run.mutateAsync({ projectId, environment, content, overwrite, dryRun: false });
      await queryClient.invalidateQueries({ queryKey: trpc.variables.pathKey() });
      const written = report.created.length + report.updated.length;
      toast.success(`${written} ${written === 1 ? 'variable' : 'variables'} imported into ${ENVIRONMENT_LABELS[report.environment]}`);
      close();
    } catch {
      // The refusal is shown from the mutation's state.
    }
  }

  const report = preview.data;
  const refusal = preview.error ? appErrorOf(preview.error) : run.error ? appErrorOf(run.error) : null;
  const writes = report ? report.created.length + report.updated.length : 0;

  return (
    <Dialog
      open
      onClose={close}
      title="Import a .env file"
      description="Comments, blank lines, export prefixes, quoted and multi-line values are understood. Nothing is written until you import."
      footer={
        <>
          <Button variant="ghost" onClick={close}>
            Cancel
          </Button>
          {report ? (
            <Button variant="primary" onClick={runImport} loading={run.isPending} disabled={writes === 0}>
              {writes === 0 ? 'Nothing to import' : `Import ${writes} ${writes === 1 ? 'variable' : 'variables'}`}
            </Button>
          ) : (
            <Button variant="primary" onClick={showPreview} loading={preview.isPending} disabled={content.trim() === ''}>
              Preview
            </Button>
          )}
        </>
      }
    >
      <div className="form">
        <div className={styles.importOptions}>
          <Select
            label="Into environment"
            value={environment}
            onChange={(event) => {
              changed();
              setEnvironment(event.target.value as Environment);
            }}
            options={ENVIRONMENT_OPTIONS}
          />
          <label className={`checkbox ${styles.overwrite}`}>
            <input
              type="checkbox"
              checked={overwrite}
              onChange={(event) => {
                changed();
                setOverwrite(event.target.checked);
              }}
            />
            Replace values of names that already exist
          </label>
        </div>
        <div className="field">
          <div className="row-between">
            <label className="field-label" htmlFor={contentId}>
              Contents
            </label>
            <label className={`btn btn-ghost btn-sm ${styles.fileButton}`}>
              Choose file…
              <input type="file" accept=".env,text/plain" className="visually-hidden" onChange={chooseFile} aria-label="Choose a .env file" />
            </label>
          </div>
          <textarea
            id={contentId}
            className={`${styles.textarea} ${styles.importText}`}
            rows={8}
            spellCheck={false}
            placeholder={'# .env\nAPI_URL=https://api.example.com\nexport LOG_LEVEL="info"'}
            value={content}
            onChange={(event) => {
              changed();
              setContent(event.target.value);
            }}
          />
          {fileError ? <p className="field-error">{fileError}</p> : null}
        </div>
        {refusal ? <Refusal refusal={refusal} /> : null}
        {report ? <ImportPreview report={report} /> : null}
      </div>
    </Dialog>
  );
}

/** A refused file lists its problems line by line (`fields` keyed `content.<line>`). */
function Refusal({ refusal }: { refusal: AppErrorInfo }) {
  const lines = Object.entries(refusal.fields ?? {})
    .map(([field, message]) => ({ line: Number(field.split('.')[1]), message }))
    .filter((entry) => Number.isInteger(entry.line))
    .sort((a, b) => a.line - b.line);
  if (lines.length === 0) return <Alert tone="danger">{refusal.message}</Alert>;
  return (
    <Alert tone="danger" title="The file was not imported: fix these lines">
      <ul className={styles.problems} aria-label="Problems in the file">
        {lines.map(({ line, message }) => (
          <li key={line}>
            <span className={styles.lineNumber}>Line {line}</span> {message}
          </li>
        ))}
      </ul>
    </Alert>
  );
}

const GROUPS: { key: keyof Omit<VariablesImport, 'environment' | 'dryRun'>; label: string; tone: BadgeTone; hint: string }[] = [
  { key: 'created', label: 'Created', tone: 'success', hint: 'new in this environment' },
  { key: 'updated', label: 'Updated', tone: 'warning', hint: 'the value is replaced' },
  { key: 'skipped', label: 'Skipped', tone: 'neutral', hint: 'already set; kept as it is' },
  { key: 'unchanged', label: 'Unchanged', tone: 'neutral', hint: 'already holds this value' },
];

function ImportPreview({ report }: { report: VariablesImport }) {
  return (
    <section className={styles.preview} aria-label="Import preview">
      <p className={styles.previewTitle}>Into {ENVIRONMENT_LABELS[report.environment]}:</p>
      {GROUPS.filter((group) => report[group.key].length > 0).map((group) => (
        <div key={group.key} className={styles.previewGroup} data-testid={`preview-${group.key}`}>
          <div>
            <Badge tone={group.tone}>
              {group.label} · {report[group.key].length}
            </Badge>{' '}
            <span className="muted">{group.hint}</span>
          </div>
          <p className={styles.previewNames}>{report[group.key].join(', ')}</p>
        </div>
      ))}
    </section>
  );
}
