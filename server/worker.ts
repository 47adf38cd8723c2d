import { closeDb } from '../db';
import { migrateDatabase } from '../db/migrate';
import { getConfig } from './platform/config';
import { getLogger } from './platform/logger';
import './app';
import { startJobs, stopJobs } from './platform/jobs/index';

/**
 * `npm run worker`: the background-job worker as a process of its own, for when web processes are
 * scaled out with JOBS_IN_PROCESS=false. It needs a PostgreSQL server: the embedded database
 * belongs to the one process that opened it.
 */
async function main(): Promise<void> {
  const config = getConfig();
  const log = getLogger().child({ component: 'worker' });
  if (config.embeddedDatabase) {
    log.fatal('npm run worker needs DATABASE_URL: the embedded database cannot be shared between processes');
    process.exit(1);
  }
  await migrateDatabase();
  await startJobs({ work: true });
  log.info('worker started');
  const shutdown = async (signal: string) => {
    log.info({ signal }, 'worker stopping');
    await stopJobs();
    await closeDb();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  getLogger().fatal({ err }, 'worker failed to start');
  process.exit(1);
});
