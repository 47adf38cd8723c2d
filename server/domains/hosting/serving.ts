import path from 'node:path';
import { and, eq, isNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { hostingDomains, hostingSites } from '../../../db/schema';
import { callUpstream } from '../../platform/errors';
import type { HostRoute, SiteServing } from '../../providers/hosting/types';
import { getWebServingProvider } from '../../providers/hosting/web';
import { siteHome, siteHostname } from './paths';
import { TIER_LIMITS } from './tiers';

type SiteRow = typeof hostingSites.$inferSelect;
type DomainRow = typeof hostingDomains.$inferSelect;

/** The folder a site is served from when nothing else is said. */
export const DEFAULT_DOCUMENT_ROOT = 'public_html';

/** What the web server is told about a site: its own address, then every attached hostname. */
export function servingOf(site: SiteRow, domains: readonly DomainRow[]): SiteServing {
  const home = siteHome(site.siteName);
  const limits = TIER_LIMITS[site.tier];
  const hosts: HostRoute[] = [{ hostname: siteHostname(site.siteName), kind: 'SITE', documentRoot: path.join(home, DEFAULT_DOCUMENT_ROOT) }];
  for (const domain of domains) {
    if (domain.kind === 'SITE')
      hosts.push({ hostname: domain.hostname, kind: 'SITE', documentRoot: path.join(home, domain.documentRoot ?? DEFAULT_DOCUMENT_ROOT) });
    else if (domain.kind === 'REDIRECT')
      hosts.push({ hostname: domain.hostname, kind: 'REDIRECT', target: domain.redirectTarget!, status: domain.redirectStatus === 302 ? 302 : 301 });
    else hosts.push({ hostname: domain.hostname, kind: 'PARKED' });
  }
  return {
    siteName: site.siteName,
    home,
    phpVersion: site.phpVersion,
    phpWorkers: limits.phpWorkers,
    memoryMb: limits.memoryMb,
    suspended: site.billingSuspendedAt !== null,
    hosts,
  };
}

/** Applies a site's current rows to the web server (502 when it fails). */
export async function applyServing(site: SiteRow): Promise<void> {
  const db = await getDb();
  const domains = await db
    .select()
    .from(hostingDomains)
    .where(and(eq(hostingDomains.siteId, site.id), isNull(hostingDomains.deletedAt)));
  await webUpstream(async () => {
    const web = getWebServingProvider();
    await web.start();
    await web.applySite(servingOf(site, domains));
  });
}

export function webUpstream<T>(call: () => Promise<T>): Promise<T> {
  return callUpstream('The web server could not apply the change; try again', call);
}
