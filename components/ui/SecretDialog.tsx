'use client';

import { useState, type ReactNode } from 'react';
import { Alert } from './Alert';
import { Button } from './Button';
import { Dialog } from './Dialog';
import { Icon } from './Icon';

type CopyState = 'idle' | 'copied' | 'failed';

/** Shows a value the server returns once (API key, secret); closing it forgets the value. */
export function SecretDialog({
  open,
  title,
  description,
  secret,
  secretTestId,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  description: string;
  secret: string;
  secretTestId?: string;
  onClose: () => void;
  /** What to do with the value next, under it. */
  children?: ReactNode;
}) {
  const [copyState, setCopyState] = useState<CopyState>('idle');

  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopyState('copied');
    } catch {
      setCopyState('failed');
    }
  }

  function close() {
    setCopyState('idle');
    onClose();
  }

  return (
    <Dialog
      open={open}
      onClose={close}
      title={title}
      description={description}
      footer={
        <Button variant="primary" onClick={close}>
          I have copied it
        </Button>
      }
    >
      <Alert tone="warning" title="Shown once — copy it now">
        It is not stored in readable form and cannot be shown again. If you lose it, revoke it and create a new one.
      </Alert>
      <div className="secret-box">
        <code className="secret-value" data-testid={secretTestId}>
          {secret}
        </code>
        <Button onClick={copy} aria-label="Copy to clipboard">
          <Icon name={copyState === 'copied' ? 'check' : 'copy'} />
          {copyState === 'copied' ? 'Copied' : 'Copy'}
        </Button>
      </div>
      {copyState === 'failed' ? (
        <p className="field-error" role="alert">
          The browser did not allow copying. Select the value above and copy it by hand.
        </p>
      ) : null}
      {children}
    </Dialog>
  );
}
