import PgBoss from 'pg-boss';
import postgres from 'postgres';

/**
 * The app's database, set by e2e/run.ts when the suite runs on PostgreSQL. Billing waits for the
 * month's close and for days of dunning; a journey that walks through them moves those dates back
 * here and runs the jobs at once, instead of waiting.
 */
export const appDatabaseUrl = process.env.E2E_APP_DATABASE_URL || undefined;

async function withDatabase<T>(work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  if (!appDatabaseUrl) throw new Error('E2E_APP_DATABASE_URL is not set: run the suite with E2E_DATABASE_URL');
  const sql = postgres(appDatabaseUrl, { max: 1, onnotice: () => {} });
  try {
    return await work(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** As if the project's resources had been bought last month: the next close invoices them. */
export async function backdatePurchases(projectId: string): Promise<void> {
  await withDatabase((sql) => sql`update billing_items set started_at = started_at - interval '40 days' where project_id = ${projectId}`);
}

/** As if the project's failed invoices had first failed `days` days ago. */
export async function backdateFailures(projectId: string, days: number): Promise<void> {
  await withDatabase(
    (sql) => sql`update invoices set first_failed_at = first_failed_at - make_interval(days => ${days}) where project_id = ${projectId} and status = 'failed'`,
  );
}

/** Queues a job for the server's worker, which picks it up within its polling interval. */
export async function runJobNow(name: string): Promise<void> {
  const boss = new PgBoss({ connectionString: appDatabaseUrl, schema: 'pgboss', supervise: false, schedule: false, migrate: false });
  await boss.start();
  try {
    await boss.send(name, {});
  } finally {
    await boss.stop({ graceful: false, close: true, wait: true });
  }
}
