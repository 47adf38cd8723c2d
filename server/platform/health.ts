import { sql } from 'drizzle-orm';
import { getDbHandle } from '../../db';
import { sealedValueStatus } from './encryption/rotation';
import type { ProviderReport } from './domain';
import { getLogger } from './logger';

export interface Health {
  ok: boolean;
  database: 'up' | 'down';
  driver?: 'postgres' | 'pglite';
  /** The Node.js version the server runs on (`process.version`, e.g. "v24.21.0"). */
  node: string;
  /**
   * The master key that seals new values, and how many sealed values an older key still wraps: a
   * key rotation is finished, and the old key can be removed, once this is 0.
   */
  encryption?: { currentKey: string; sealedUnderOtherKeys: number };
  /** The backend of each provider-backed domain: `embedded` is real on this host, `simulator` is not. */
  providers?: Record<string, { kind: string; description: string }>;
}

/** Liveness of what the app cannot work without: the database. */
export async function checkHealth(providers: readonly ProviderReport[] = []): Promise<Health> {
  try {
    const handle = await getDbHandle();
    await handle.db.execute(sql`select 1`);
    const sealed = await sealedValueStatus();
    return {
      ok: true,
      database: 'up',
      driver: handle.driver,
      node: process.version,
      encryption: { currentKey: sealed.currentKeyId, sealedUnderOtherKeys: sealed.underOtherKeys },
      providers: Object.fromEntries(providers.map((p) => [p.name, { kind: p.kind, description: p.description }])),
    };
  } catch (err) {
    getLogger().error({ err }, 'health check failed');
    return { ok: false, database: 'down', node: process.version };
  }
}
