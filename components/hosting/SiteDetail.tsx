'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRef, type KeyboardEvent } from 'react';
import { ProjectBillingAlert } from '../billing/ProjectBillingAlert';
import { formatDate } from '../format';
import { projectPath } from '../projects/areas';
import { useProject } from '../projects/ProjectContext';
import { appErrorOf } from '../trpc/errors';
import { useTRPC } from '../trpc/TrpcProvider';
import { Alert } from '../ui/Alert';
import { Button, ButtonLink } from '../ui/Button';
import { EmptyState } from '../ui/EmptyState';
import { LoadFailed } from '../ui/LoadFailed';
import { PageHeader } from '../ui/PageHeader';
import { Skeleton } from '../ui/Skeleton';
import { FileManager } from './FileManager';
import { READY_POLL_MS, SITE_TABS, TAB_LABELS, TIER_LABELS, type HostingCatalog, type HostingProviderInfo, type SiteTab, type SiteView } from './hosting';
import { SiteDatabases } from './SiteDatabases';
import { SiteDomains } from './SiteDomains';
import { SiteOverview } from './SiteOverview';
import { SiteSftp } from './SiteSftp';
import { SiteStatus } from './SiteStatus';
import { useSiteLocation } from './useSiteLocation';
import styles from './hosting.module.css';

export function SiteDetail({ tenantId, catalog, provider }: { tenantId: string; catalog: HostingCatalog; provider: HostingProviderInfo }) {
  const project = useProject();
  const trpc = useTRPC();
  const site = useQuery(
    trpc.hosting.get.queryOptions(
      { projectId: project.id, tenantId },
      // `ready` is read live: the page watches a site that is not answering yet until it does.
      { refetchInterval: (query) => (query.state.data && !query.state.data.ready && query.state.data.status === 'ACTIVE' ? READY_POLL_MS : false) },
    ),
  );

  if (site.isPending) {
    return (
      <main className="page" aria-busy="true">
        <Skeleton width={260} height={26} />
        <Skeleton width={360} style={{ marginTop: 12 }} />
        <Skeleton height={180} style={{ marginTop: 28 }} />
      </main>
    );
  }
  if (site.isError) {
    const { code } = appErrorOf(site.error);
    return (
      <main className="page">
        {code === 'NOT_FOUND' ? (
          <div className="card">
            <EmptyState
              icon="cloud"
              title="Site not found"
              description="It does not exist in this project, or it was deleted."
              action={<ButtonLink href={projectPath(project.id, 'hosting')}>Back to Hosting</ButtonLink>}
            />
          </div>
        ) : (
          <LoadFailed title="The site could not be loaded" error={site.error} retry={site.refetch} retrying={site.isFetching} />
        )}
      </main>
    );
  }
  return <SitePage site={site.data} catalog={catalog} provider={provider} checking={site.isFetching} recheck={() => void site.refetch()} />;
}

function SitePage({
  site,
  catalog,
  provider,
  checking,
  recheck,
}: {
  site: SiteView;
  catalog: HostingCatalog;
  provider: HostingProviderInfo;
  checking: boolean;
  recheck: () => void;
}) {
  const project = useProject();
  const { tab, params, update } = useSiteLocation();
  const databaseError = params.get('databaseError');

  return (
    <main className="page">
      <PageHeader
        eyebrow={
          <Link href={projectPath(project.id, 'hosting')} className="muted">
            ← Hosting
          </Link>
        }
        title={
          <span className={styles.titleRow}>
            <span className="mono">{site.siteName}</span>
            <SiteStatus site={site} />
          </span>
        }
        description={`${TIER_LABELS[site.tier]} tier · PHP ${site.phpVersion} · ${site.limits.diskGb} GB disk · created ${formatDate(site.createdAt)}`}
      />
      <div className="stack-lg">
        <ProjectBillingAlert project={project} />
        {site.status === 'SUSPENDED' ? (
          <Alert tone="danger" title="This site is suspended">
            An invoice of the project is unpaid past its grace period: the site is offline and SFTP is closed. Its files can still be read and downloaded here,
            but not changed. Nothing is deleted, and the site comes back when the invoice is paid.
          </Alert>
        ) : null}
        {databaseError ? (
          <Alert
            tone="warning"
            title="The site was created, but its database was not"
            action={
              <Button size="sm" variant="ghost" onClick={() => update({ databaseError: null })}>
                Dismiss
              </Button>
            }
          >
            {databaseError} The site is kept and billed; add the database in the{' '}
            <button type="button" className={styles.inlineLink} onClick={() => update({ tab: 'databases', databaseError: null }, { push: true })}>
              Databases tab
            </button>
            .
          </Alert>
        ) : null}
        <TabBar current={tab} onSelect={(next) => update({ tab: next === 'overview' ? null : next, path: null, file: null }, { push: true })} />
        <div role="tabpanel" id="site-tabpanel" aria-labelledby={`site-tab-${tab}`} className={styles.tabPanel}>
          {tab === 'overview' ? <SiteOverview site={site} catalog={catalog} provider={provider} checking={checking} recheck={recheck} /> : null}
          {tab === 'domains' ? <SiteDomains site={site} /> : null}
          {tab === 'files' ? <FileManager site={site} /> : null}
          {tab === 'databases' ? <SiteDatabases site={site} provider={provider} /> : null}
          {tab === 'sftp' ? <SiteSftp site={site} /> : null}
        </div>
      </div>
    </main>
  );
}

/** The ARIA tabs pattern: one tab in the focus order, arrow keys, Home and End move between them. */
function TabBar({ current, onSelect }: { current: SiteTab; onSelect: (tab: SiteTab) => void }) {
  const refs = useRef<Partial<Record<SiteTab, HTMLButtonElement | null>>>({});

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const index = SITE_TABS.indexOf(current);
    const target =
      event.key === 'ArrowRight'
        ? SITE_TABS[(index + 1) % SITE_TABS.length]
        : event.key === 'ArrowLeft'
          ? SITE_TABS[(index - 1 + SITE_TABS.length) % SITE_TABS.length]
          : event.key === 'Home'
            ? SITE_TABS[0]
            : event.key === 'End'
              ? SITE_TABS[SITE_TABS.length - 1]
              : undefined;
    if (!target) return;
    event.preventDefault();
    onSelect(target);
    refs.current[target]?.focus();
  }

  return (
    <div className={styles.tabs} role="tablist" aria-label="Site" onKeyDown={onKeyDown}>
      {SITE_TABS.map((tab) => (
        <button
          key={tab}
          ref={(element) => {
            refs.current[tab] = element;
          }}
          type="button"
          role="tab"
          id={`site-tab-${tab}`}
          aria-controls="site-tabpanel"
          aria-selected={tab === current}
          tabIndex={tab === current ? 0 : -1}
          className={styles.tab}
          onClick={() => onSelect(tab)}
        >
          {TAB_LABELS[tab]}
        </button>
      ))}
    </div>
  );
}
