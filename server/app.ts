import type { AnyProcedure, AnyRouter } from '@trpc/server';
import { registerSuspensionHook } from './billing/suspension';
import { registerDeletionBlocker, registerResourceCounter } from './platform/counters';
import type { DomainManifest, PanelArea, ProviderReport } from './platform/domain';
import { getLogger } from './platform/logger';
import { configureEventTypes } from './platform/events';
import { configureSealedColumns } from './platform/encryption/rotation';
import { configureEventHandlers } from './platform/events/dispatch';
import { configureBackgroundLoops, configureJobs, type JobDefinition } from './platform/jobs';
import { platformJobs } from './platform/jobs/maintenance';
import { createRestApi } from './platform/rest/handler';
import { router, type ProcedureMeta } from './platform/trpc';
import { DOMAINS } from './domains';

/**
 * The composition root: everything the platform needs to know about the domains, derived from
 * the one list in `server/domains/index.ts`.
 */

type Domains = (typeof DOMAINS)[number];
type UnionToIntersection<U> = (U extends unknown ? (k: U) => void : never) extends (k: infer I) => void ? I : never;
type AppRouters = UnionToIntersection<Domains['routers']>;

function mergeRouters(domains: readonly DomainManifest[]): Record<string, AnyRouter> {
  const merged: Record<string, AnyRouter> = {};
  for (const domain of domains) {
    for (const [key, domainRouter] of Object.entries(domain.routers)) {
      if (merged[key]) throw new Error(`Two domains mount a router at ${key}`);
      merged[key] = domainRouter;
    }
  }
  return merged;
}

export const appRouter = router(mergeRouters(DOMAINS) as AppRouters);
export type AppRouter = typeof appRouter;

/**
 * The names of the mutations a caller must be signed in for (`sshKeys.create`…): the actions the
 * audit log can record, which its filter offers. Public ones have no caller to record.
 */
export const AUDITED_ACTIONS: readonly string[] = Object.entries(appRouter._def.procedures as unknown as Record<string, AnyProcedure>)
  .filter(([, procedure]) => procedure._def.type === 'mutation' && (procedure._def.meta as ProcedureMeta | undefined)?.openapi?.protect !== false)
  .map(([name]) => name)
  .sort();

export const JOBS: readonly JobDefinition[] = [...platformJobs, ...DOMAINS.flatMap((d: DomainManifest) => d.jobs ?? [])];

/** The project sidebar, section by section, in order. */
export const PANEL_AREAS: { project: PanelArea[]; resources: PanelArea[] } = (() => {
  const areas = DOMAINS.flatMap((d: DomainManifest) => d.panel ?? []).sort((a, b) => a.order - b.order);
  return { project: areas.filter((a) => a.section === 'project'), resources: areas.filter((a) => a.section === 'resources') };
})();

/** The backends behind the domains, real or simulated, as /healthz and the panel report them. */
export function providerReports(): ProviderReport[] {
  return DOMAINS.flatMap((d: DomainManifest) => [...(d.providers?.() ?? [])]);
}

/**
 * Each domain's `startup`, once per serving process before it takes requests. One that fails is
 * logged and the others still run: a Redis provider that cannot adopt must not keep the panel down.
 */
export async function runDomainStartups(): Promise<void> {
  for (const domain of DOMAINS as readonly DomainManifest[]) {
    if (!domain.startup) continue;
    try {
      await domain.startup();
    } catch (err) {
      getLogger().error({ err, domain: domain.name }, 'domain startup failed');
    }
  }
}

/** Each domain's `shutdown`, when a serving process stops; one that fails does not keep the others from running. */
export async function runDomainShutdowns(): Promise<void> {
  for (const domain of DOMAINS as readonly DomainManifest[]) {
    if (!domain.shutdown) continue;
    try {
      await domain.shutdown();
    } catch (err) {
      getLogger().error({ err, domain: domain.name }, 'domain shutdown failed');
    }
  }
}

export const restApi = createRestApi({ router: appRouter, rawRoutes: DOMAINS.flatMap((d: DomainManifest) => d.rawRoutes ?? []) });

configureJobs(JOBS);
configureBackgroundLoops(DOMAINS.flatMap((d: DomainManifest) => d.loops ?? []));
configureEventTypes(DOMAINS.flatMap((d: DomainManifest) => d.events ?? []));
configureEventHandlers(DOMAINS.flatMap((d: DomainManifest) => d.eventHandlers ?? []));
configureSealedColumns(DOMAINS.flatMap((d: DomainManifest) => d.sealedColumns ?? []));
for (const domain of DOMAINS as readonly DomainManifest[]) {
  for (const counter of domain.counters ?? []) registerResourceCounter(counter);
  for (const blocker of domain.deletionBlockers ?? []) registerDeletionBlocker(blocker);
  if (domain.suspension) registerSuspensionHook(domain.suspension);
}
