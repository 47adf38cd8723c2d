import type PgBoss from 'pg-boss';
import { billingJobs } from '../../billing/jobs';
import { invitationJobs } from '../../domains/invitations/jobs';
import { maintenanceJobs } from './maintenance';
import { startJobRunner, type JobDefinition, type JobRunner } from './runner';
import { serverJobs } from '../../domains/servers/jobs';

/** Every job of the app; later domains add theirs here. */
export const JOBS: JobDefinition[] = [...maintenanceJobs, ...invitationJobs, ...billingJobs, ...serverJobs];

const holder = globalThis as unknown as { __jobRunner?: Promise<JobRunner> };

/** Starts the runner once per process; `work` false only enqueues (for processes that serve requests alone). */
export function startJobs(options: { work: boolean }): Promise<JobRunner> {
  holder.__jobRunner ??= startJobRunner(JOBS, options);
  return holder.__jobRunner;
}

export async function stopJobs(): Promise<void> {
  const pending = holder.__jobRunner;
  holder.__jobRunner = undefined;
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
