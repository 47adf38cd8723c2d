'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import { useState, type FormEvent } from 'react';
import type { AppRouter } from '@/server/app';
import { generateSshKeyInput } from '@/server/domains/sshKeys/schema';
import { useZodForm } from '../forms/useZodForm';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button } from '../ui/Button';
import { Dialog } from '../ui/Dialog';
import { Icon } from '../ui/Icon';
import { Input } from '../ui/Input';
import { SubmitButton } from '../ui/SubmitButton';
import styles from './sshKeys.module.css';

type GeneratedKey = inferRouterOutputs<AppRouter>['sshKeys']['generate'];

/**
 * Asks for a name, has the server make an ed25519 pair and shows the private half once. The
 * private key lives only in this component's state and is dropped when the dialog closes.
 */
export function GenerateSshKeyDialog({ projectId, open, onClose }: { projectId: string; open: boolean; onClose: () => void }) {
  const [generated, setGenerated] = useState<GeneratedKey | null>(null);

  function close() {
    setGenerated(null);
    onClose();
  }

  if (generated) {
    return <PrivateKeyDialog generated={generated} onClose={close} />;
  }
  return (
    <Dialog
      open={open}
      onClose={close}
      title="Generate an SSH key pair"
      description="The server makes an ed25519 key pair, keeps the public key in this project and gives you the private key once."
    >
      <GenerateForm projectId={projectId} onCancel={close} onGenerated={setGenerated} />
    </Dialog>
  );
}

function GenerateForm({ projectId, onCancel, onGenerated }: { projectId: string; onCancel: () => void; onGenerated: (key: GeneratedKey) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const generate = useMutation(trpc.sshKeys.generate.mutationOptions());
  const form = useZodForm(generateSshKeyInput);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = form.parse({ name: new FormData(event.currentTarget).get('name') });
    if (!input) return;
    try {
      const key = await generate.mutateAsync({ projectId, ...input });
      await queryClient.invalidateQueries({ queryKey: trpc.sshKeys.list.queryKey({ projectId }) });
      onGenerated(key);
    } catch (error) {
      form.fail(error);
    }
  }

  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      {form.formError ? (
        <Alert tone="danger">
          {form.formError}
          {form.docsUrl ? (
            <>
              {' '}
              <a href={form.docsUrl} target="_blank" rel="noreferrer">
                Learn about SSH keys
              </a>
            </>
          ) : null}
        </Alert>
      ) : null}
      <Input
        label="Name"
        name="name"
        placeholder="Deploy key"
        maxLength={100}
        autoFocus
        error={form.errors.name}
        hint="Also written as the comment of both halves of the key."
      />
      <div className="form-actions" style={{ justifyContent: 'flex-end' }}>
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <SubmitButton variant="primary" loading={generate.isPending}>
          Generate key pair
        </SubmitButton>
      </div>
    </form>
  );
}

type CopyState = 'idle' | 'copied' | 'failed';

function fileNameFor(name: string): string {
  const base = name
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${base || 'id'}_ed25519.key`;
}

function PrivateKeyDialog({ generated, onClose }: { generated: GeneratedKey; onClose: () => void }) {
  const [copyState, setCopyState] = useState<CopyState>('idle');
  const [downloaded, setDownloaded] = useState(false);
  const fileName = fileNameFor(generated.name);

  async function copy() {
    try {
      await navigator.clipboard.writeText(generated.privateKey);
      setCopyState('copied');
    } catch {
      setCopyState('failed');
    }
  }

  function download() {
    const text = generated.privateKey.endsWith('\n') ? generated.privateKey : `${generated.privateKey}\n`;
    const url = URL.createObjectURL(new Blob([text], { type: 'application/x-pem-file' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = fileName;
    document.body.append(link);
    link.click();
    link.remove();
    // Some browsers read the blob only after click() returns; revoking at once can cancel the download.
    window.setTimeout(() => URL.revokeObjectURL(url), 1000);
    setDownloaded(true);
  }

  return (
    <Dialog
      open
      onClose={onClose}
      title={`SSH key “${generated.name}” generated`}
      description={
        <>
          Its public key is saved in this project with fingerprint <code className={styles.fingerprint}>{generated.fingerprint}</code>.
        </>
      }
      footer={
        <Button variant="primary" onClick={onClose}>
          I have saved it
        </Button>
      }
    >
      <Alert tone="warning" title="Save the private key now">
        It is not stored anywhere and cannot be shown again. Keep it with mode 0600, e.g. <code>chmod 600 ~/.ssh/{fileName}</code>.
      </Alert>
      <pre className={styles.privateKey} data-testid="generated-private-key" tabIndex={0} aria-label="Private key">
        {generated.privateKey}
      </pre>
      <div className="row">
        <Button onClick={copy}>
          <Icon name={copyState === 'copied' ? 'check' : 'copy'} />
          {copyState === 'copied' ? 'Copied' : 'Copy'}
        </Button>
        <Button onClick={download} title={`Save as ${fileName}`}>
          <Icon name={downloaded ? 'check' : 'download'} />
          Download
        </Button>
      </div>
      {copyState === 'failed' ? (
        <p className="field-error" role="alert">
          The browser did not allow copying. Download the key or select it above and copy it by hand.
        </p>
      ) : null}
    </Dialog>
  );
}
