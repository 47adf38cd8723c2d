import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import type { ReactNode } from 'react';
import { Brand } from '@/components/shell/Brand';
import { Alert } from '@/components/ui/Alert';
import { hostLabel, simulatedHostOf } from '@/server/providers/gitHosts/simulatorPages';

export const metadata: Metadata = { title: 'Simulated git host', robots: { index: false } };
export const dynamic = 'force-dynamic';

/** The frame of a simulated git host's own pages; 404 unless that host runs simulated. */
export default async function SimulatedGitHostLayout({ children, params }: { children: ReactNode; params: Promise<{ host: string }> }) {
  const host = simulatedHostOf((await params).host);
  if (!host) notFound();
  return (
    <>
      <header className="topbar">
        <Brand />
        <span className="topbar-divider" aria-hidden />
        <span className="secondary" style={{ fontWeight: 550 }} data-testid="simulated-host">
          {hostLabel(host)}
        </span>
      </header>
      <main className="page page-narrow" style={{ maxWidth: 860 }}>
        <div className="stack-lg">
          <Alert tone="info" title="Simulated git host">
            No real git host is configured for {host}, so this page stands in for the host’s own site. Its accounts and repositories are demo data; you are
            signed in to it as demo-user.
          </Alert>
          {children}
        </div>
      </main>
    </>
  );
}
