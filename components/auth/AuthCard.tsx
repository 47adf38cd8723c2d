import type { ReactNode } from 'react';

/** The centred card every signed-out screen uses. */
export function AuthCard({ title, subtitle, wide = false, children }: { title: string; subtitle?: ReactNode; wide?: boolean; children: ReactNode }) {
  return (
    <main className={wide ? 'auth-card auth-card-wide' : 'auth-card'}>
      <h1 className="auth-title">{title}</h1>
      {subtitle ? <p className="auth-subtitle">{subtitle}</p> : null}
      {children}
    </main>
  );
}
