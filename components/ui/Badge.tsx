import type { ReactNode } from 'react';

export type BadgeTone = 'neutral' | 'accent' | 'success' | 'warning' | 'danger';

export function Badge({ tone = 'neutral', mono = false, children, title }: { tone?: BadgeTone; mono?: boolean; children: ReactNode; title?: string }) {
  return (
    <span className={`badge badge-${tone}${mono ? ' badge-mono' : ''}`} title={title}>
      {children}
    </span>
  );
}
