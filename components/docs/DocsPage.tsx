import type { ReactNode } from 'react';
import { Brand } from '../shell/Brand';
import { PageHeader } from '../ui/PageHeader';

/** A page of the public documentation: the brand bar, a header and its sections. */
export function DocsPage({ eyebrow, title, description, children }: { eyebrow: string; title: string; description: string; children: ReactNode }) {
  return (
    <>
      <header className="topbar">
        <Brand />
        <span className="topbar-divider" aria-hidden />
        <span className="secondary" style={{ fontWeight: 550 }}>
          Documentation
        </span>
      </header>
      <main className="page page-narrow">
        <PageHeader eyebrow={eyebrow} title={title} description={description} />
        <div className="stack-lg">{children}</div>
      </main>
    </>
  );
}

export function DocsSection({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="card">
      <div className="card-body stack">
        <h2>{title}</h2>
        {children}
      </div>
    </section>
  );
}

/** Commands and code, as they are typed. */
export function DocsCode({ children }: { children: ReactNode }) {
  return (
    <pre className="secret-value" style={{ margin: 0, whiteSpace: 'pre-wrap', wordBreak: 'normal', overflowWrap: 'anywhere' }}>
      <code>{children}</code>
    </pre>
  );
}
