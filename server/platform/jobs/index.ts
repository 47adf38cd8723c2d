import type PgBoss from 'pg-boss';
import { getConfig } from '../config';
import { startEventDispatcher } from '../events/dispatch';
import { startJobRunner, type JobDefinition, type JobRunner } from './runner';

export type { JobDefinition } from './runner';

/**
 * Work a worker does continuously rather than as queued jobs (webhook deliveries, whose retries are
 * seconds apart). `start` begins it and returns the function that stops it, waiting for what is under way.
 */
export interface BackgroundLoop {
  name: string;
  start(): () => Promise<void>;
}

const holder = globalThis as unknown as {
  __jobRunner?: Promise<JobRunner>;
  __jobDefinitions?: readonly JobDefinition[];
  __backgroundLoops?: readonly BackgroundLoop[];
  __stopEventDispatcher?: () => Promise<void>;
  __stopLoops?: (() => Promise<void>)[];
};

/** Installs the loops a working process runs beside its jobs (`server/app.ts` does, from the manifests). */
export function configureBackgroundLoops(loops: readonly BackgroundLoop[]): void {
  holder.__backgroundLoops = loops;
}

/**
 * Installs the app's job list (`server/app.ts` does, from the domain manifests). The platform
 * cannot import the domains, and a queue must exist before a job is sent to it.
 */
export function configureJobs(definitions: readonly JobDefinition[]): void {
  const names = new Set<string>();
  for (const def of definitions) {
    if (names.has(def.name)) throw new Error(`Two jobs are named ${def.name}`);
    names.add(def.name);
  }
  holder.__jobDefinitions = definitions;
}

export function configuredJobs(): readonly JobDefinition[] {
  const definitions = holder.__jobDefinitions;
  if (!definitions) throw new Error('No job list installed: import server/app before starting or sending jobs');
  return definitions;
}

/**
 * Starts the runner once per process; `work` false only enqueues (for processes that serve requests
 * alone). A process that works also runs the event dispatcher (../events/dispatch.ts).
 */
export function startJobs(options: { work: boolean }): Promise<JobRunner> {
  if (!holder.__jobRunner && options.work) {
    holder.__stopEventDispatcher = startEventDispatcher(getConfig().EVENT_DISPATCH_INTERVAL_MS);
    holder.__stopLoops = (holder.__backgroundLoops ?? []).map((loop) => loop.start());
  }
  holder.__jobRunner ??= startJobRunner([...configuredJobs()], options);
  return holder.__jobRunner;
}

export async function stopJobs(): Promise<void> {
  const pending = holder.__jobRunner;
  const stopDispatcher = holder.__stopEventDispatcher;
  holder.__jobRunner = undefined;
  holder.__stopEventDispatcher = undefined;
  const stopLoops = holder.__stopLoops ?? [];
  holder.__stopLoops = undefined;
  await stopDispatcher?.();
  await Promise.all(stopLoops.map((stop) => stop()));
  if (pending) await (await pending).stop();
}

/**
 * Queues a job. In a process that has not started the runner (a test, a script) it starts one
 * that only enqueues.
 */
export async function enqueueJob<TData extends object>(name: string, data: TData, options?: PgBoss.SendOptions): Promise<string | null> {
  const runner = await (holder.__jobRunner ?? startJobs({ work: false }));
  return runner.send(name, data, options);
}
