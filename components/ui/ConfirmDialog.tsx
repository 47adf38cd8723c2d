'use client';

import type { ReactNode } from 'react';
import { Alert } from './Alert';
import { Button } from './Button';
import { Dialog } from './Dialog';

/**
 * Asks before a destructive action that is easy to redo (revoke, remove): the action button is
 * red, Cancel is the safe default, and a refusal from the server stays inside the dialog.
 */
export function ConfirmDialog({
  open,
  onClose,
  title,
  description,
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
  confirmLabel: ReactNode;
  onConfirm: () => void;
  pending: boolean;
  /** The server's message when it refused; shown above the details. */
  error?: ReactNode;
  errorTitle?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      role="alertdialog"
      title={title}
      description={description}
      footer={
        <>
          <Button variant="ghost" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="danger" onClick={onConfirm} loading={pending}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      {error ? (
        <Alert tone="danger" title={errorTitle}>
          {error}
        </Alert>
      ) : null}
      {children}
    </Dialog>
  );
}
