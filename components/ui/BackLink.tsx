import Link from 'next/link';
import type { ReactNode } from 'react';

/** A page header's eyebrow on a page inside another: the way back to the list or resource it belongs to. */
export function BackLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Link href={href} className="muted">
      ← {children}
    </Link>
  );
}
