import PgBoss from 'pg-boss';
import { getDbHandle } from '../../../db';
import { getLogger } from '../logger';

/** A durable background job: its queue name, what it does, and how often it runs on its own. */
export interface JobDefinition<TData extends object = Record<string, unknown>> {
  name: string;
  handler: (data: TData) => Promise<void>;
  /** Cron expression (UTC) when the job also runs periodically. */
  cron?: string;
  retryLimit?: number;
}

export interface JobRunner {
  boss: PgBoss;
  send<TData extends object>(name: string, data: TData, options?: PgBoss.SendOptions): Promise<string | null>;
  stop(): Promise<void>;
}

/**
 * Starts pg-boss on the app's own database connection (postgres.js or PGlite alike, through the
 * same raw SQL executor), creates the queues, and when `work` is true also runs their handlers.
 * Jobs live in PostgreSQL, so a job sent before a restart runs after it.
 */
export async function startJobRunner(definitions: JobDefinition[], options: { work: boolean }): Promise<JobRunner> {
  const handle = await getDbHandle();
  const log = getLogger().child({ component: 'jobs' });
  const boss = new PgBoss({
    db: { executeSql: (text, values) => handle.raw.query(text, values) },
    schema: 'pgboss',
    supervise: options.work,
    schedule: options.work,
    migrate: true,
  });
  boss.on('error', (err) => log.error({ err }, 'job runner error'));
  await boss.start();
  for (const def of definitions) {
    await boss.createQueue(def.name, { name: def.name, retryLimit: def.retryLimit ?? 3, retryBackoff: true });
    if (!options.work) continue;
    await boss.work<Record<string, unknown>>(def.name, { pollingIntervalSeconds: 2 }, async (jobs) => {
      for (const job of jobs) {
        log.info({ job: def.name, jobId: job.id }, 'job started');
        await def.handler(job.data);
        log.info({ job: def.name, jobId: job.id }, 'job done');
      }
    });
    if (def.cron) await boss.schedule(def.name, def.cron, {}, { tz: 'UTC' });
  }
  return {
    boss,
    send: (name, data, sendOptions) => boss.send(name, data, sendOptions ?? {}),
    stop: () => boss.stop({ graceful: true, wait: true, close: false }),
  };
}
