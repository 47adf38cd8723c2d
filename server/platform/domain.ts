import type { AnyRouter } from '@trpc/server';
import type { SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { RequiredRole } from './auth/roles';
import type { ScopeResource } from './auth/scopes';
import type { ResourceCounter } from './counters';
import type { EventHandler } from './events/dispatch';
import type { BackgroundLoop } from './jobs';
import type { JobDefinition } from './jobs/runner';
import type { RawRoute } from './rest/rawRoutes';

/** Where a domain shows in the project's sidebar. */
export interface PanelArea {
  /** Path segment under /projects/[projectId]; '' is the overview. */
  segment: string;
  label: string;
  /** A name of the panel's icon set (`components/ui/Icon.tsx`). */
  icon: string;
  section: 'project' | 'resources';
  /** Position within its section, lowest first. */
  order: number;
  /** The least role that sees the link, when the area's pages are not for every member. */
  role?: RequiredRole;
}

/**
 * Everything the platform needs to know about one domain. `server/app.ts` builds the router tree,
 * the job list, the `_count` registry, the event catalogue, the panel's areas and the billing
 * suspension hooks from these and nothing else, so a domain that is not listed in `server/domains/index.ts` does not exist.
 */
export interface DomainManifest<TRouters extends Record<string, AnyRouter> = Record<string, AnyRouter>> {
  name: string;
  /** Merged into the app router under these keys (procedure paths start with them). */
  routers: TRouters;
  jobs?: readonly JobDefinition[];
  /** Continuous work of the worker processes beside the queued jobs (see BackgroundLoop). */
  loops?: readonly BackgroundLoop[];
  /** The `_count` counters of a project this domain's rows feed. */
  counters?: readonly ResourceCounter[];
  /** Event types the domain records with `emit`; webhooks and notifications subscribe to these. */
  events?: readonly EventDeclaration[];
  /** What the domain does with every recorded event, of any domain (see EventHandler). */
  eventHandlers?: readonly EventHandler[];
  /** Scope resources its operations require (all of them belong to the scope catalogue). */
  scopes?: readonly ScopeResource[];
  panel?: readonly PanelArea[];
  /** `/v1` routes that are not procedures: raw bodies, redirects, streams. */
  rawRoutes?: readonly RawRoute[];
  /** What a billing suspension (an invoice unpaid past the grace period) does to the domain's paid resources. */
  suspension?: SuspensionHook;
  /** Columns holding values sealed with `server/platform/encryption` (bound to the row's id), which a master-key rotation re-wraps. */
  sealedColumns?: readonly SealedColumn[];
  /**
   * Runs once in each serving process after migrations and before it takes requests: taking over
   * what outlives the process (the Redis processes the app started before it restarted). A
   * failure is logged; the process still starts.
   */
  startup?: () => Promise<void>;
  /** Runs when a serving process stops, before the database closes: flushing what `startup` started. */
  shutdown?: () => Promise<void>;
  /** Paid resources outside `_count` that also hold a project back from deletion (see ResourceCounter). */
  deletionBlockers?: readonly DeletionBlocker[];
  /** The backends the domain runs on, as /healthz and the panel report them (real or simulated). */
  providers?: () => readonly ProviderReport[];
}

/** Rows that hold a project back from deletion while live, e.g. "1 Redis database". */
export interface DeletionBlocker {
  label: string;
  table: PgTable;
  projectIdColumn: PgColumn;
  live: SQL;
}

export interface ProviderReport {
  /** What it provides, as /healthz keys it: `redis`. */
  name: string;
  /** `embedded` (real, on this host), `simulator`, or the production adapter's name. */
  kind: string;
  description: string;
}

/** A column of sealed values: `seal(value, <the row's id>)`, one per row, null where there is none. */
export interface SealedColumn {
  table: PgTable;
  id: PgColumn;
  sealed: PgColumn;
}

/**
 * What a dunning suspension does to one domain's paid resources. A domain registers it through its
 * manifest (`suspension`); the billing engine calls it when a project is suspended, when the
 * suspension is lifted, and again from the dunning job until both have fully happened, so every
 * method must be safe to repeat and do only what is still left to do.
 */
export interface SuspensionHook {
  /** What it stops, as the README and the logs name it ("servers"). */
  resource: string;
  /** Stops what still runs of the suspended project's resources and marks them suspended. Nothing is deleted. */
  suspend(projectId: string): Promise<void>;
  /** Brings back what `suspend` stopped in a project that is no longer suspended, and clears the marks. */
  resume(projectId: string): Promise<void>;
  /** The projects in which this domain still holds resources marked suspended. */
  projectsWithSuspendedResources(): Promise<string[]>;
}

/** An event type in the catalogue that webhook subscribers and notifications read (`GET /v1/webhooks/event-types`). */
export interface EventDeclaration {
  /** `<resource>.<happening>` in snake_case, e.g. `secret.created`. */
  type: string;
  /** One sentence a customer reads in the catalogue. */
  description: string;
  /** A payload as `emit` records it for this type: what a subscriber receives in `data`. */
  example: Record<string, unknown>;
}

/** Keeps the manifest's router types, so the app router stays fully typed. */
export function defineDomain<TRouters extends Record<string, AnyRouter>>(manifest: DomainManifest<TRouters>): DomainManifest<TRouters> {
  return manifest;
}
