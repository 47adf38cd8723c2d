import Link from 'next/link';
import type { ButtonHTMLAttributes, ReactNode } from 'react';

export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'ghost' | 'danger-ghost';

interface ButtonStyle {
  variant?: ButtonVariant;
  size?: 'md' | 'sm';
  block?: boolean;
}

function buttonClass({ variant = 'secondary', size = 'md', block = false }: ButtonStyle, extra?: string): string {
  return ['btn', `btn-${variant}`, size === 'sm' ? 'btn-sm' : '', block ? 'btn-block' : '', extra ?? ''].filter(Boolean).join(' ');
}

export function Button({
  variant,
  size,
  block,
  loading = false,
  disabled,
  className,
  children,
  type = 'button',
  ...rest
}: ButtonStyle & { loading?: boolean } & ButtonHTMLAttributes<HTMLButtonElement>) {
  return (
    <button type={type} className={buttonClass({ variant, size, block }, className)} disabled={disabled || loading} aria-busy={loading || undefined} {...rest}>
      {loading ? <span className="spinner" aria-hidden /> : null}
      {children}
    </button>
  );
}

/** A link that looks like a button, for navigation actions ("Create project"). */
export function ButtonLink({ href, children, variant, size, block, className }: ButtonStyle & { href: string; children: ReactNode; className?: string }) {
  return (
    <Link href={href} className={buttonClass({ variant, size, block }, className)}>
      {children}
    </Link>
  );
}
