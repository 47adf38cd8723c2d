'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type KeyboardEvent } from 'react';
import { formatBytes, formatDateTime } from '../format';
import { useProject } from '../projects/ProjectContext';
import { appErrorOf, errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { Icon } from '../ui/Icon';
import { Skeleton } from '../ui/Skeleton';
import { useToast } from '../ui/Toast';
import { baseName, downloadUrl, type SiteView, type TextFile } from './hosting';
import styles from './hosting.module.css';

/** SPEC: text files are read and written up to 1 MB. */
const MAX_TEXT_BYTES = 1_048_576;

/**
 * A text file of the site open for editing. It is read fresh each time it opens (nothing cached
 * once it closes), since SFTP, uploads and PHP itself change files behind the panel's back.
 */
export function FileEditor({
  site,
  path,
  canWrite,
  onClose,
  onSaved,
}: {
  site: SiteView;
  path: string;
  canWrite: boolean;
  onClose: () => void;
  onSaved: () => void;
}) {
  const project = useProject();
  const trpc = useTRPC();
  const file = useQuery(trpc.hostingFiles.read.queryOptions({ projectId: project.id, tenantId: site.tenantId, path }, { gcTime: 0, staleTime: 0 }));

  if (file.isPending) {
    return (
      <Card title={<span className="mono">{baseName(path)}</span>} aria-label="Editor">
        <Skeleton height={320} />
      </Card>
    );
  }
  if (file.isError) {
    const refusal = appErrorOf(file.error);
    const notText = refusal.code === 'BAD_REQUEST' || refusal.code === 'PAYLOAD_TOO_LARGE';
    return (
      <Alert
        tone={notText ? 'warning' : 'danger'}
        title={notText ? 'This file cannot be edited here' : 'The file could not be opened'}
        action={
          <div className="row">
            {notText ? (
              <a href={downloadUrl(project.id, site.tenantId, path)} download={baseName(path)} className="btn btn-secondary btn-sm">
                <Icon name="download" size={14} /> Download
              </a>
            ) : (
              <Button size="sm" onClick={() => void file.refetch()}>
                Try again
              </Button>
            )}
            <Button size="sm" variant="ghost" onClick={onClose}>
              Back to the folder
            </Button>
          </div>
        }
      >
        {refusal.message}
      </Alert>
    );
  }
  return <Editor site={site} initial={file.data} canWrite={canWrite} onClose={onClose} onSaved={onSaved} />;
}

function Editor({
  site,
  initial,
  canWrite,
  onClose,
  onSaved,
}: {
  site: SiteView;
  initial: TextFile;
  canWrite: boolean;
  onClose: () => void;
  onSaved: () => void;
}) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const write = useMutation(trpc.hostingFiles.write.mutationOptions());
  const [saved, setSaved] = useState(initial);
  const [content, setContent] = useState(initial.content);
  const [confirmingClose, setConfirmingClose] = useState(false);
  const dirty = content !== saved.content;
  const bytes = new TextEncoder().encode(content).length;
  const tooLarge = bytes > MAX_TEXT_BYTES;

  async function save() {
    if (!canWrite || !dirty || tooLarge || write.isPending) return;
    let placed;
    try {
      placed = await write.mutateAsync({ projectId: project.id, tenantId: site.tenantId, path: saved.path, content });
    } catch {
      return;
    }
    const next = { path: placed.path, content, size: placed.size, modifiedAt: placed.modifiedAt };
    setSaved(next);
    queryClient.setQueryData(trpc.hostingFiles.read.queryKey({ projectId: project.id, tenantId: site.tenantId, path: saved.path }), next);
    toast.success(`${baseName(saved.path)} was saved`);
    onSaved();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if ((event.metaKey || event.ctrlKey) && event.key.toLowerCase() === 's') {
      event.preventDefault();
      void save();
    }
  }

  return (
    <Card
      aria-label="Editor"
      title={<span className="mono">{baseName(saved.path)}</span>}
      description={
        <span>
          {formatBytes(saved.size)} · saved {formatDateTime(saved.modifiedAt)}
          {dirty ? <span className={styles.unsaved}> · unsaved changes</span> : null}
        </span>
      }
      actions={
        <>
          <a href={downloadUrl(project.id, site.tenantId, saved.path)} download={baseName(saved.path)} className="btn btn-ghost btn-sm" title="Download">
            <Icon name="download" size={14} /> <span className="hide-xs">Download</span>
          </a>
          <Button size="sm" onClick={() => (dirty ? setConfirmingClose(true) : onClose())}>
            Close
          </Button>
          {canWrite ? (
            <Button size="sm" variant="primary" onClick={() => void save()} loading={write.isPending} disabled={!dirty || tooLarge}>
              <Icon name="check" size={14} /> Save
            </Button>
          ) : null}
        </>
      }
    >
      <div className="stack">
        {write.isError ? (
          <Alert tone="danger" title="The file was not saved">
            {errorMessage(write.error)}
          </Alert>
        ) : null}
        {tooLarge ? (
          <Alert tone="warning" title="Too large to save here">
            Text files are saved here up to 1 MB; this one is {formatBytes(bytes)}. Upload it or use SFTP instead.
          </Alert>
        ) : null}
        <textarea
          className={styles.editor}
          aria-label={`Contents of ${saved.path}`}
          value={content}
          onChange={(event) => setContent(event.target.value)}
          onKeyDown={onKeyDown}
          readOnly={!canWrite}
          spellCheck={false}
          autoCapitalize="off"
          autoCorrect="off"
          wrap="off"
          rows={22}
        />
        <p className={styles.note}>
          {canWrite
            ? 'Ctrl+S or ⌘S saves. The file is written whole, replacing what is on disk.'
            : 'Read-only: your role or the site’s state does not allow changes.'}
        </p>
      </div>
      <ConfirmDialog
        open={confirmingClose}
        onClose={() => setConfirmingClose(false)}
        title="Discard the unsaved changes?"
        description={`${baseName(saved.path)} keeps what was last saved.`}
        confirmLabel="Discard changes"
        onConfirm={onClose}
        pending={false}
      />
    </Card>
  );
}
