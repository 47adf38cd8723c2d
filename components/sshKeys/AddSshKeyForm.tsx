'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { createSshKeyInput } from '@/server/domains/sshKeys/schema';
import { useZodForm } from '../forms/useZodForm';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Card } from '../ui/Card';
import { Input } from '../ui/Input';
import { SubmitButton } from '../ui/SubmitButton';
import { useToast } from '../ui/Toast';
import { previewPublicKey, type PublicKeyPreview } from './fingerprint';
import styles from './sshKeys.module.css';

export function AddSshKeyForm({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const toast = useToast();
  const queryClient = useQueryClient();
  const form = useZodForm(createSshKeyInput);
  const create = useMutation(trpc.sshKeys.create.mutationOptions());
  const [name, setName] = useState('');
  const [publicKey, setPublicKey] = useState('');
  const preview = useKeyPreview(publicKey);
  const keyId = useId();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const input = form.parse({ name, publicKey: publicKey.trim() });
    if (!input) return;
    try {
      const key = await create.mutateAsync({ projectId, ...input });
      await queryClient.invalidateQueries({ queryKey: trpc.sshKeys.list.queryKey({ projectId }) });
      setName('');
      setPublicKey('');
      toast.success(`SSH key ${key.name} was added`);
    } catch (error) {
      form.fail(error);
    }
  }

  const keyErrorId = `${keyId}-error`;
  const keyPreviewId = `${keyId}-preview`;

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Add an SSH key">
      <Card
        title="Add a public key"
        description={
          <>
            Paste the contents of your <code>.pub</code> file, for example <code>~/.ssh/id_ed25519.pub</code>. The private key never leaves your computer.
          </>
        }
        footer={
          <>
            <span className="muted">ed25519, RSA of 2048 bits or more, or ECDSA.</span>
            <SubmitButton variant="primary" loading={create.isPending}>
              Add SSH key
            </SubmitButton>
          </>
        }
      >
        <div className="form">
          {form.formError ? <Alert tone="danger">{form.formError}</Alert> : null}
          <div className={styles.formGrid}>
            <Input
              label="Name"
              name="name"
              placeholder="Laptop"
              maxLength={100}
              value={name}
              onChange={(event) => setName(event.target.value)}
              error={form.errors.name}
            />
            <div className="field">
              <label className="field-label" htmlFor={keyId}>
                Public key
              </label>
              <textarea
                id={keyId}
                name="publicKey"
                className={styles.textarea}
                placeholder="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA… you@laptop"
                spellCheck={false}
                autoCapitalize="off"
                autoComplete="off"
                value={publicKey}
                onChange={(event) => setPublicKey(event.target.value)}
                aria-invalid={form.errors.publicKey ? true : undefined}
                aria-describedby={[keyPreviewId, form.errors.publicKey ? keyErrorId : ''].filter(Boolean).join(' ')}
              />
              <KeyPreview id={keyPreviewId} text={publicKey} preview={preview} />
              {form.errors.publicKey ? (
                <p id={keyErrorId} className="field-error" role="alert">
                  {form.errors.publicKey}
                </p>
              ) : null}
            </div>
          </div>
          {form.docsUrl ? (
            <p>
              <a href={form.docsUrl} target="_blank" rel="noreferrer">
                Learn about SSH keys
              </a>
            </p>
          ) : null}
        </div>
      </Card>
    </form>
  );
}

/** Recomputed as the user types; a stale digest of earlier text never replaces a newer one. */
function useKeyPreview(text: string): PublicKeyPreview | null {
  const [preview, setPreview] = useState<{ text: string; value: PublicKeyPreview | null } | null>(null);
  useEffect(() => {
    let current = true;
    void previewPublicKey(text).then((value) => {
      if (current) setPreview({ text, value });
    });
    return () => {
      current = false;
    };
  }, [text]);
  return preview?.text === text ? preview.value : null;
}

function KeyPreview({ id, text, preview }: { id: string; text: string; preview: PublicKeyPreview | null }) {
  const prefix = text.trim().split(/\s+/)[0] ?? '';
  const mismatch = preview?.innerType && prefix && preview.innerType !== prefix;
  return (
    <div id={id} className={styles.preview} aria-live="polite">
      {preview ? (
        <>
          <span className={styles.previewLabel}>Fingerprint</span>
          <span className={styles.fingerprint} data-testid="key-fingerprint-preview">
            {preview.fingerprint}
          </span>
          {mismatch ? (
            <span className="field-error">
              The line says {prefix} but the key data holds a {preview.innerType} key.
            </span>
          ) : null}
        </>
      ) : (
        <span className="muted">{text.trim() ? 'Not a complete public key line yet.' : 'The fingerprint appears here, to compare with ssh-keygen -lf.'}</span>
      )}
    </div>
  );
}
