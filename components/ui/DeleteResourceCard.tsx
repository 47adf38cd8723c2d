'use client';

import { useState } from 'react';
import { appErrorOf } from '../trpc/errors';
import { Button } from './Button';
import { Card } from './Card';
import { Icon } from './Icon';
import { TypedConfirmDialog } from './TypedConfirmDialog';

/**
 * The danger card at the foot of a resource's page and its typed confirmation: the resource goes
 * only once its name has been typed. An upstream failure (502) leaves the resource in place and
 * the delete safe to repeat, which the message says, as the API's message alone does not.
 */
export function DeleteResourceCard({
  title,
  description,
  footnote = 'This cannot be undone.',
  dialogTitle,
  dialogDescription,
  name,
  confirmLabel,
  errorTitle,
  onDelete,
  onDeleted,
}: {
  /** "Delete database": the card's title and its button. */
  title: string;
  description: string;
  /** Beside the button. */
  footnote?: string;
  dialogTitle: string;
  dialogDescription: string;
  /** The resource's name, which must be typed. */
  name: string;
  confirmLabel: string;
  errorTitle: string;
  /** Deletes; a rejection is shown in the dialog. */
  onDelete: () => Promise<unknown>;
  /** After the delete: say so and leave the page. */
  onDeleted: () => Promise<void> | void;
}) {
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  function close() {
    setOpen(false);
    setError(null);
  }

  async function confirm() {
    setPending(true);
    setError(null);
    try {
      await onDelete();
    } catch (err) {
      const { code, message } = appErrorOf(err);
      setError(code === 'UPSTREAM_ERROR' ? `${message} Nothing was deleted; deleting again is safe.` : message);
      return;
    } finally {
      setPending(false);
    }
    await onDeleted();
  }

  return (
    <>
      <Card
        tone="danger"
        title={title}
        description={description}
        footer={
          <>
            <span className="muted">{footnote}</span>
            <Button variant="danger" onClick={() => setOpen(true)}>
              <Icon name="trash" /> {title}
            </Button>
          </>
        }
      />
      <TypedConfirmDialog
        open={open}
        onClose={close}
        title={dialogTitle}
        description={dialogDescription}
        expected={name}
        confirmLabel={confirmLabel}
        onConfirm={() => void confirm()}
        pending={pending}
        errorTitle={errorTitle}
        error={error}
      />
    </>
  );
}
