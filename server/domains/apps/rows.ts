import { and, eq, isNull } from 'drizzle-orm';
import { getDb, type DbOrTx } from '../../../db';
import { apps, billingItems, deployments } from '../../../db/schema';
import { AppError } from '../../platform/errors';

export type AppRow = typeof apps.$inferSelect;
export type DeploymentRow = typeof deployments.$inferSelect;

/** An app with what its billing item charges a month (0 once billing has ended). */
export interface PricedApp {
  app: AppRow;
  monthly: number;
}

export const APP_RESOURCE_TYPE = 'app';

/** Apps selected with what their live billing item charges a month; add the `where`. */
export function pricedApps(db: DbOrTx) {
  return db
    .select({ app: apps, monthly: billingItems.monthly })
    .from(apps)
    .leftJoin(billingItems, and(eq(billingItems.id, apps.billingItemId), isNull(billingItems.endedAt)));
}

export function toPricedApp(row: { app: AppRow; monthly: number | null }): PricedApp {
  return { app: row.app, monthly: row.monthly ?? 0 };
}

/** A live (not deleted) app of the project; 404 otherwise. */
export async function liveApp(projectId: string, appId: string): Promise<PricedApp> {
  const db = await getDb();
  const [row] = await pricedApps(db).where(and(eq(apps.id, appId), eq(apps.projectId, projectId), isNull(apps.deletedAt)));
  if (!row) throw new AppError('NOT_FOUND', 'App not found');
  return toPricedApp(row);
}
