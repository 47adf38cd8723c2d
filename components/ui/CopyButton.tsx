'use client';

import { useState } from 'react';
import { Button } from './Button';
import { Icon } from './Icon';

export function CopyButton({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      window.setTimeout(() => setCopied(false), 1500);
    } catch {
      setCopied(false);
    }
  }
  return (
    <Button size="sm" variant="ghost" onClick={copy} aria-label={label} title={label}>
      <Icon name={copied ? 'check' : 'copy'} size={14} />
    </Button>
  );
}
