import { sql } from 'drizzle-orm';
import { getDbHandle } from '../../db';
import { getLogger } from './logger';

export interface Health {
  ok: boolean;
  database: 'up' | 'down';
  driver?: 'postgres' | 'pglite';
  /** The Node.js version the server runs on (`process.version`, e.g. "v24.21.0"). */
  node: string;
}

/** Liveness of what the app cannot work without: the database. */
export async function checkHealth(): Promise<Health> {
  try {
    const handle = await getDbHandle();
    await handle.db.execute(sql`select 1`);
    return { ok: true, database: 'up', driver: handle.driver, node: process.version };
  } catch (err) {
    getLogger().error({ err }, 'health check failed');
    return { ok: false, database: 'down', node: process.version };
  }
}
