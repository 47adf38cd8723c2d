import { sql } from 'drizzle-orm';
import { getDb } from '../db';

/** Columns that legitimately change while a request is only being authenticated. */
const VOLATILE_COLUMNS = new Set(['api_keys.last_used_at']);
/** Tables a refused request writes to by design: its rate-limit count and its audit entry. */
const RECORD_TABLES = new Set(['rate_limits', 'audit_entries']);

/**
 * A fingerprint of every application table's content, to prove that a refused request left the
 * database exactly as it was (besides the records of the attempt itself).
 */
export async function databaseFingerprint(): Promise<Record<string, string>> {
  const db = await getDb();
  const columns = (await db.execute(sql`
    select table_name, column_name from information_schema.columns
    where table_schema = 'public' order by table_name, ordinal_position`)) as unknown as
    { rows: { table_name: string; column_name: string }[] } | { table_name: string; column_name: string }[];
  const list = Array.isArray(columns) ? columns : columns.rows;
  const byTable = new Map<string, string[]>();
  for (const { table_name, column_name } of list) {
    if (RECORD_TABLES.has(table_name) || VOLATILE_COLUMNS.has(`${table_name}.${column_name}`)) continue;
    byTable.set(table_name, [...(byTable.get(table_name) ?? []), `"${column_name}"::text`]);
  }
  const out: Record<string, string> = {};
  for (const [table, cols] of byTable) {
    const result = (await db.execute(
      sql.raw(
        `select count(*)::text as n, coalesce(md5(string_agg(concat_ws('|', ${cols.join(', ')}), ',' order by concat_ws('|', ${cols.join(', ')}))), '') as h from "${table}"`,
      ),
    )) as unknown as { rows: { n: string; h: string }[] } | { n: string; h: string }[];
    const row = Array.isArray(result) ? result[0] : result.rows[0];
    out[table] = `${row?.n}:${row?.h}`;
  }
  return out;
}

/** Rows of a raw query, whichever driver runs the tests. */
export async function queryRows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const db = await getDb();
  const result = (await db.execute(query)) as unknown as { rows: T[] } | T[];
  return Array.isArray(result) ? result : result.rows;
}
