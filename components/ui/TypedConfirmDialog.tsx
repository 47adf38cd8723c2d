'use client';

import { useState, type FormEvent, type ReactNode } from 'react';
import { Alert } from './Alert';
import { Button } from './Button';
import { Dialog } from './Dialog';
import { Input } from './Input';
import { SubmitButton } from './SubmitButton';

/**
 * Confirmation of an action that cannot be undone: the button only works once the resource's name
 * has been typed, so a stray click or Enter cannot destroy the wrong thing.
 */
export function TypedConfirmDialog({
  open,
  onClose,
  title,
  description,
  expected,
  confirmLabel,
  onConfirm,
  pending,
  error,
  errorTitle,
  children,
}: {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  description?: ReactNode;
  /** What must be typed, exactly: the resource's name. */
  expected: string;
  confirmLabel: string;
  onConfirm: () => void;
  pending: boolean;
  error?: ReactNode;
  errorTitle?: ReactNode;
  /** Shown above the name field, e.g. what else goes with the resource. */
  children?: ReactNode;
}) {
  return (
    <Dialog open={open} onClose={onClose} role="alertdialog" title={title} description={description}>
      <TypedConfirmForm
        expected={expected}
        confirmLabel={confirmLabel}
        onConfirm={onConfirm}
        onCancel={onClose}
        pending={pending}
        error={error}
        errorTitle={errorTitle}
      >
        {children}
      </TypedConfirmForm>
    </Dialog>
  );
}

/** Mounted only while the dialog is open, so the typed name is forgotten each time it closes. */
function TypedConfirmForm({
  expected,
  confirmLabel,
  onConfirm,
  onCancel,
  pending,
  error,
  errorTitle,
  children,
}: {
  expected: string;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  pending: boolean;
  error?: ReactNode;
  errorTitle?: ReactNode;
  children?: ReactNode;
}) {
  const [typed, setTyped] = useState('');
  const matches = typed === expected;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (matches && !pending) onConfirm();
  }

  return (
    <form className="form" onSubmit={submit} noValidate>
      {error ? (
        <Alert tone="danger" title={errorTitle}>
          {error}
        </Alert>
      ) : null}
      {children}
      <Input
        label={
          <>
            Type <strong>{expected}</strong> to confirm
          </>
        }
        name="confirmName"
        autoComplete="off"
        spellCheck={false}
        value={typed}
        onChange={(event) => setTyped(event.target.value)}
      />
      <div className="form-actions" style={{ justifyContent: 'flex-end' }}>
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
        <SubmitButton variant="danger" disabled={!matches} loading={pending}>
          {confirmLabel}
        </SubmitButton>
      </div>
    </form>
  );
}
