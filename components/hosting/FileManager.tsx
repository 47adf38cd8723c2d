'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type DragEvent, type FormEvent } from 'react';
import { formatBytes, formatDateTime, formatRelative } from '../format';
import { hasRole, useProject } from '../projects/ProjectContext';
import { appErrorOf, errorMessage } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { DataList } from '../ui/DataList';
import { Dialog } from '../ui/Dialog';
import { EmptyState } from '../ui/EmptyState';
import { Icon } from '../ui/Icon';
import { Input } from '../ui/Input';
import { SubmitButton } from '../ui/SubmitButton';
import type { Column } from '../ui/Table';
import { useToast } from '../ui/Toast';
import { FileEditor } from './FileEditor';
import { FileIcon } from './FileIcon';
import { downloadUrl, joinPath, parentOf, type FileEntry, type SiteView } from './hosting';
import { useSiteLocation } from './useSiteLocation';
import { UploadError, uploadFile } from './upload';
import styles from './hosting.module.css';

/** SPEC: uploads through the API go up to 64 MB; larger files go over SFTP. */
const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;

interface Upload {
  id: number;
  name: string;
  folder: string;
  loaded: number;
  total: number;
  state: 'uploading' | 'done' | 'failed';
  error?: string;
  abort?: () => void;
}

export function FileManager({ site }: { site: SiteView }) {
  const project = useProject();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { params, update } = useSiteLocation();
  const folder = params.get('path') ?? '';
  const openFile = params.get('file');
  const canWrite = hasRole(project, 'member') && site.status === 'ACTIVE';
  const listKey = { projectId: project.id, tenantId: site.tenantId, path: folder };
  const entries = useQuery(trpc.hostingFiles.list.queryOptions(listKey));
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [creating, setCreating] = useState<'file' | 'folder' | null>(null);
  const [renaming, setRenaming] = useState<FileEntry | null>(null);
  const [deleting, setDeleting] = useState<FileEntry | null>(null);
  const [dragging, setDragging] = useState(false);
  const nextUploadId = useRef(1);

  const refreshFolder = (path: string) =>
    queryClient.invalidateQueries({ queryKey: trpc.hostingFiles.list.queryKey({ projectId: project.id, tenantId: site.tenantId, path }) });

  function navigate(path: string) {
    update({ path: path || null, file: null }, { push: true });
  }

  function patchUpload(id: number, patch: Partial<Upload>) {
    setUploads((current) => current.map((upload) => (upload.id === id ? { ...upload, ...patch } : upload)));
  }

  function startUploads(files: readonly File[]) {
    for (const file of files) {
      const id = nextUploadId.current++;
      const target = folder;
      if (file.size > MAX_UPLOAD_BYTES) {
        setUploads((current) => [
          ...current,
          { id, name: file.name, folder: target, loaded: 0, total: file.size, state: 'failed', error: 'Larger than 64 MB: upload it over SFTP' },
        ]);
        continue;
      }
      const { done, abort } = uploadFile({
        projectId: project.id,
        tenantId: site.tenantId,
        folder: target,
        file,
        onProgress: (loaded, total) => patchUpload(id, { loaded, total }),
      });
      setUploads((current) => [...current, { id, name: file.name, folder: target, loaded: 0, total: file.size, state: 'uploading', abort }]);
      done.then(
        () => {
          patchUpload(id, { state: 'done', loaded: file.size, abort: undefined });
          void refreshFolder(target);
        },
        (error: unknown) => patchUpload(id, { state: 'failed', abort: undefined, error: error instanceof UploadError ? error.message : 'The upload failed' }),
      );
    }
  }

  function onDrop(event: DragEvent<HTMLDivElement>) {
    event.preventDefault();
    setDragging(false);
    if (canWrite && event.dataTransfer.files.length > 0) startUploads([...event.dataTransfer.files]);
  }

  const columns: Column<FileEntry>[] = [
    {
      header: 'Name',
      cell: (entry) => {
        const path = joinPath(folder, entry.name);
        return (
          <div className={styles.fileName}>
            <span className={entry.type === 'directory' ? styles.folderIcon : styles.fileIcon}>
              {entry.type === 'directory' ? <Icon name="folder" /> : <FileIcon name={entry.type === 'symlink' ? 'link' : 'file'} />}
            </span>
            <div className={styles.fileNameText}>
              {entry.type === 'directory' ? (
                <button type="button" className={styles.entryButton} onClick={() => navigate(path)}>
                  {entry.name}
                </button>
              ) : entry.type === 'file' ? (
                <button type="button" className={styles.entryButton} onClick={() => update({ file: path })} title="Open in the editor">
                  {entry.name}
                </button>
              ) : (
                <span className="mono" title={entry.type === 'symlink' ? 'A symbolic link' : undefined}>
                  {entry.name}
                </span>
              )}
              <div className={`cell-sub ${styles.underName}`}>
                {entry.type === 'file' ? `${formatBytes(entry.size)} · ` : ''}
                {formatRelative(entry.modifiedAt)}
              </div>
            </div>
          </div>
        );
      },
    },
    {
      header: 'Size',
      className: `hide-xs ${styles.sizeCell}`,
      cell: (entry) => (entry.type === 'file' ? formatBytes(entry.size) : <span className="muted">—</span>),
    },
    {
      header: 'Modified',
      className: 'hide-xs',
      cell: (entry) => (
        <span className={styles.nowrap} title={formatDateTime(entry.modifiedAt)}>
          {formatRelative(entry.modifiedAt)}
        </span>
      ),
    },
    {
      header: <span className="visually-hidden">Actions</span>,
      className: styles.actionsCell,
      cell: (entry) => {
        const path = joinPath(folder, entry.name);
        return (
          <span className={styles.rowActions}>
            {entry.type === 'file' ? (
              <a
                href={downloadUrl(project.id, site.tenantId, path)}
                download={entry.name}
                className="btn btn-ghost btn-sm"
                aria-label={`Download ${entry.name}`}
                title="Download"
              >
                <Icon name="download" size={14} />
              </a>
            ) : null}
            {canWrite ? (
              <>
                <Button size="sm" variant="ghost" onClick={() => setRenaming(entry)} aria-label={`Rename ${entry.name}`} title="Rename or move">
                  <Icon name="pencil" size={14} />
                </Button>
                <Button size="sm" variant="danger-ghost" onClick={() => setDeleting(entry)} aria-label={`Delete ${entry.name}`} title="Delete">
                  <Icon name="trash" size={14} />
                </Button>
              </>
            ) : null}
          </span>
        );
      },
    },
  ];

  return (
    <div className="stack-lg">
      <div className={styles.fileBar}>
        <Breadcrumb folder={folder} file={openFile} onNavigate={navigate} />
        {openFile === null ? (
          <div className={styles.fileActions}>
            <Button size="sm" onClick={() => void entries.refetch()} loading={entries.isFetching && !entries.isPending} aria-label="Refresh" title="Refresh">
              <FileIcon name="refresh" size={14} />
            </Button>
            {canWrite ? (
              <>
                <Button size="sm" onClick={() => setCreating('file')}>
                  <FileIcon name="filePlus" size={14} /> New file
                </Button>
                <Button size="sm" onClick={() => setCreating('folder')}>
                  <FileIcon name="folderPlus" size={14} /> New folder
                </Button>
                <label className={`btn btn-primary btn-sm ${styles.uploadButton}`}>
                  <FileIcon name="upload" size={14} /> Upload
                  <input
                    type="file"
                    multiple
                    className="visually-hidden"
                    aria-label="Upload files"
                    onChange={(event) => {
                      startUploads([...(event.target.files ?? [])]);
                      event.target.value = '';
                    }}
                  />
                </label>
              </>
            ) : null}
          </div>
        ) : null}
      </div>
      {uploads.length > 0 ? <Uploads uploads={uploads} onClear={() => setUploads((current) => current.filter((u) => u.state === 'uploading'))} /> : null}
      {openFile !== null ? (
        <FileEditor
          key={openFile}
          site={site}
          path={openFile}
          canWrite={canWrite}
          // Back to the file's own folder, which a link straight to the file may not have named.
          onClose={() => update({ file: null, path: parentOf(openFile) || null })}
          onSaved={() => void refreshFolder(parentOf(openFile))}
        />
      ) : (
        <div
          className={dragging ? `${styles.dropZone} ${styles.dropZoneActive}` : styles.dropZone}
          onDragOver={(event) => {
            if (!canWrite) return;
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <Card flush>
            <DataList
              label={folder ? `Files in ${folder}` : 'Files in the home folder'}
              query={entries}
              columns={columns}
              rowKey={(entry) => entry.name}
              loadingRows={4}
              empty={
                <EmptyState
                  icon="folder"
                  title="This folder is empty"
                  description={canWrite ? 'Upload files, drop them here, or create a file or a folder.' : 'There is nothing here yet.'}
                />
              }
            />
          </Card>
          <p className={styles.note} style={{ marginTop: 8 }}>
            The site serves <span className="mono">public_html</span>. Files up to 64 MB go through the panel (an upload replaces a file of the same name);
            larger ones over SFTP. Text files up to 1 MB open in the editor.
          </p>
        </div>
      )}
      {canWrite ? (
        <>
          <CreateDialog
            site={site}
            folder={folder}
            kind={creating}
            existing={entries.data ?? []}
            onClose={() => setCreating(null)}
            onCreated={(kind, path) => {
              setCreating(null);
              void refreshFolder(folder);
              if (kind === 'file') update({ file: path });
            }}
          />
          <RenameDialog site={site} folder={folder} entry={renaming} onClose={() => setRenaming(null)} onRenamed={() => void refreshFolder(folder)} />
          <DeleteDialog site={site} folder={folder} entry={deleting} onClose={() => setDeleting(null)} onDeleted={() => void refreshFolder(folder)} />
        </>
      ) : null}
    </div>
  );
}

/** From the home to the folder shown (and the file open in it); every step but the last is a way back. */
function Breadcrumb({ folder, file, onNavigate }: { folder: string; file: string | null; onNavigate: (path: string) => void }) {
  const parts = (file ?? folder).split('/').filter(Boolean);
  return (
    <nav aria-label="Folder" className={styles.breadcrumb}>
      <ol>
        <li>
          {parts.length === 0 ? (
            <span aria-current="page" className={styles.crumbCurrent}>
              <Icon name="home" size={14} /> Home
            </span>
          ) : (
            <button type="button" className={styles.crumb} onClick={() => onNavigate('')}>
              <Icon name="home" size={14} /> Home
            </button>
          )}
        </li>
        {parts.map((part, index) => {
          const path = parts.slice(0, index + 1).join('/');
          const last = index === parts.length - 1;
          return (
            <li key={path}>
              <span className={styles.crumbSeparator} aria-hidden>
                /
              </span>
              {last ? (
                <span aria-current="page" className={styles.crumbCurrent}>
                  {part}
                </span>
              ) : (
                <button type="button" className={styles.crumb} onClick={() => onNavigate(path)}>
                  {part}
                </button>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

function Uploads({ uploads, onClear }: { uploads: readonly Upload[]; onClear: () => void }) {
  const finished = uploads.some((upload) => upload.state !== 'uploading');
  return (
    <Card
      title="Uploads"
      aria-label="Uploads"
      actions={
        finished ? (
          <Button size="sm" variant="ghost" onClick={onClear}>
            Clear finished
          </Button>
        ) : null
      }
    >
      <ul className={styles.uploads}>
        {uploads.map((upload) => {
          const share = upload.total > 0 ? Math.min(1, upload.loaded / upload.total) : upload.state === 'done' ? 1 : 0;
          return (
            <li key={upload.id} className={styles.upload} data-testid="upload">
              <div className={styles.uploadHead}>
                <span className={`mono ${styles.uploadName}`}>{joinPath(upload.folder, upload.name)}</span>
                <span className={upload.state === 'failed' ? styles.uploadFailed : 'muted'} role={upload.state === 'failed' ? 'alert' : undefined}>
                  {upload.state === 'done'
                    ? 'Uploaded'
                    : upload.state === 'failed'
                      ? upload.error
                      : `${Math.round(share * 100)}% of ${formatBytes(upload.total)}`}
                </span>
                {upload.abort ? (
                  <Button size="sm" variant="ghost" onClick={upload.abort} aria-label={`Cancel the upload of ${upload.name}`}>
                    Cancel
                  </Button>
                ) : null}
              </div>
              <div
                className={styles.bar}
                role="progressbar"
                aria-label={`Upload of ${upload.name}`}
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={Math.round(share * 100)}
              >
                <span
                  className={upload.state === 'failed' ? styles.barFillFailed : upload.state === 'done' ? styles.barFillDone : styles.barFill}
                  style={{ width: `${Math.max(share * 100, upload.state === 'failed' ? 100 : 1)}%` }}
                />
              </div>
            </li>
          );
        })}
      </ul>
    </Card>
  );
}

function CreateDialog({
  site,
  folder,
  kind,
  existing,
  onClose,
  onCreated,
}: {
  site: SiteView;
  folder: string;
  kind: 'file' | 'folder' | null;
  existing: readonly FileEntry[];
  onClose: () => void;
  onCreated: (kind: 'file' | 'folder', path: string) => void;
}) {
  return (
    <Dialog
      open={kind !== null}
      onClose={onClose}
      title={kind === 'folder' ? 'New folder' : 'New file'}
      description={`In ${folder ? folder : 'the home folder'}.`}
    >
      {kind ? <CreateForm site={site} folder={folder} kind={kind} existing={existing} onCancel={onClose} onCreated={onCreated} /> : null}
    </Dialog>
  );
}

function CreateForm({
  site,
  folder,
  kind,
  existing,
  onCancel,
  onCreated,
}: {
  site: SiteView;
  folder: string;
  kind: 'file' | 'folder';
  existing: readonly FileEntry[];
  onCancel: () => void;
  onCreated: (kind: 'file' | 'folder', path: string) => void;
}) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const write = useMutation(trpc.hostingFiles.write.mutationOptions());
  const createFolder = useMutation(trpc.hostingFiles.createFolder.mutationOptions());
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const pending = write.isPending || createFolder.isPending;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) {
      setError(kind === 'file' ? 'Enter a file name' : 'Enter a folder name');
      return;
    }
    // Writing a text file replaces one of the same name; the panel does not let a new file do that silently.
    if (existing.some((entry) => entry.name === trimmed)) {
      setError(`There is already a file or folder named ${trimmed} here`);
      return;
    }
    const path = joinPath(folder, trimmed);
    try {
      if (kind === 'file') await write.mutateAsync({ projectId: project.id, tenantId: site.tenantId, path, content: '' });
      else await createFolder.mutateAsync({ projectId: project.id, tenantId: site.tenantId, path });
    } catch (err) {
      setError(appErrorOf(err).message);
      return;
    }
    toast.success(kind === 'file' ? `${trimmed} was created` : `The folder ${trimmed} was created`);
    onCreated(kind, path);
  }

  return (
    <form className="form" onSubmit={submit} noValidate>
      <Input
        label={kind === 'file' ? 'File name' : 'Folder name'}
        name="name"
        value={name}
        onChange={(event) => {
          setName(event.target.value);
          setError(undefined);
        }}
        autoComplete="off"
        spellCheck={false}
        autoFocus
        placeholder={kind === 'file' ? 'index.php' : 'images'}
        error={error}
      />
      <div className="form-actions" style={{ justifyContent: 'flex-end' }}>
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <SubmitButton variant="primary" loading={pending}>
          {kind === 'file' ? 'Create and open' : 'Create folder'}
        </SubmitButton>
      </div>
    </form>
  );
}

function RenameDialog({
  site,
  folder,
  entry,
  onClose,
  onRenamed,
}: {
  site: SiteView;
  folder: string;
  entry: FileEntry | null;
  onClose: () => void;
  onRenamed: () => void;
}) {
  return (
    <Dialog
      open={entry !== null}
      onClose={onClose}
      title={entry ? `Rename ${entry.name}` : 'Rename'}
      description="Give it a new name, or change the folders in its path to move it."
    >
      {entry ? <RenameForm site={site} from={joinPath(folder, entry.name)} onCancel={onClose} onRenamed={onRenamed} /> : null}
    </Dialog>
  );
}

function RenameForm({ site, from, onCancel, onRenamed }: { site: SiteView; from: string; onCancel: () => void; onRenamed: () => void }) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const rename = useMutation(trpc.hostingFiles.rename.mutationOptions());
  const [to, setTo] = useState(from);
  const [error, setError] = useState<string | undefined>();

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const target = to.trim().replace(/^\/+/, '');
    if (!target) {
      setError('Enter the new path');
      return;
    }
    if (target === from) {
      onCancel();
      return;
    }
    let placed;
    try {
      placed = await rename.mutateAsync({ projectId: project.id, tenantId: site.tenantId, from, to: target });
    } catch (err) {
      setError(appErrorOf(err).message);
      return;
    }
    toast.success(`Renamed to ${placed.path}`);
    // A move changes two folders: the one left and the one entered.
    await queryClient.invalidateQueries({ queryKey: trpc.hostingFiles.list.queryKey() });
    onRenamed();
    onCancel();
  }

  return (
    <form className="form" onSubmit={submit} noValidate>
      <Input
        label="New path"
        name="to"
        value={to}
        onChange={(event) => {
          setTo(event.target.value);
          setError(undefined);
        }}
        autoComplete="off"
        spellCheck={false}
        autoFocus
        onFocus={(event) => {
          // The name is what is usually changed: select it, not the folders before it.
          const start = from.lastIndexOf('/') + 1;
          const dot = from.lastIndexOf('.');
          event.target.setSelectionRange(start, dot > start ? dot : from.length);
        }}
        hint="Relative to the home folder. Nothing may be at the new path yet."
        error={error}
      />
      <div className="form-actions" style={{ justifyContent: 'flex-end' }}>
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <SubmitButton variant="primary" loading={rename.isPending}>
          Rename
        </SubmitButton>
      </div>
    </form>
  );
}

function DeleteDialog({
  site,
  folder,
  entry,
  onClose,
  onDeleted,
}: {
  site: SiteView;
  folder: string;
  entry: FileEntry | null;
  onClose: () => void;
  onDeleted: () => void;
}) {
  const project = useProject();
  const trpc = useTRPC();
  const toast = useToast();
  const remove = useMutation(trpc.hostingFiles.delete.mutationOptions());

  function close() {
    remove.reset();
    onClose();
  }

  async function confirm() {
    if (!entry) return;
    try {
      await remove.mutateAsync({ projectId: project.id, tenantId: site.tenantId, path: joinPath(folder, entry.name) });
    } catch {
      return;
    }
    toast.success(`${entry.name} was deleted`);
    onDeleted();
    close();
  }

  const isFolder = entry?.type === 'directory';
  return (
    <ConfirmDialog
      open={entry !== null}
      onClose={close}
      title={entry ? `Delete ${entry.name}?` : 'Delete?'}
      description={
        isFolder
          ? 'The folder and everything in it are deleted from the site’s home. This cannot be undone.'
          : 'The file is deleted from the site’s home. This cannot be undone.'
      }
      confirmLabel={isFolder ? 'Delete folder' : 'Delete file'}
      onConfirm={() => void confirm()}
      pending={remove.isPending}
      errorTitle="Nothing was deleted"
      error={remove.isError ? errorMessage(remove.error) : null}
    >
      {entry ? (
        <Alert tone="warning">
          <span className="mono">{joinPath(folder, entry.name)}</span>
          {isFolder ? ' and all its contents' : ''}
        </Alert>
      ) : null}
    </ConfirmDialog>
  );
}
