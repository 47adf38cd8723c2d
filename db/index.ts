import { mkdirSync } from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { Sql } from 'postgres';
import * as schema from './schema';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Either the database or an open transaction: services accept both so callers can compose them. */
export type DbOrTx = Db | Tx;

/** Plain SQL access for libraries that bring their own queries (the job runner). */
export interface RawSql {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

interface DbHandle {
  db: Db;
  raw: RawSql;
  driver: 'postgres' | 'pglite';
  close(): Promise<void>;
}

/** Where the database is: a PostgreSQL server, or an embedded PGlite directory (`memory://` for none). */
export interface DatabaseOptions {
  url: string | undefined;
  poolSize: number;
  pgliteDir: string;
}

// One handle per process, shared by the custom server and Next's bundled copy of this module.
const holder = globalThis as unknown as { __appDb?: Promise<DbHandle>; __dbOptions?: () => DatabaseOptions };

/**
 * Tells this module where the database is. The app's configuration does it when it loads; this
 * module reads no settings of its own, so it depends on nothing above it.
 */
export function configureDatabase(options: () => DatabaseOptions): void {
  holder.__dbOptions = options;
}

export function getDbHandle(): Promise<DbHandle> {
  const options = holder.__dbOptions;
  if (!options) throw new Error('The database is not configured: load the app configuration first');
  holder.__appDb ??= openDatabase(options());
  return holder.__appDb;
}

export async function getDb(): Promise<Db> {
  return (await getDbHandle()).db;
}

export async function closeDb(): Promise<void> {
  const pending = holder.__appDb;
  holder.__appDb = undefined;
  if (pending) await (await pending).close();
}

async function openDatabase(options: DatabaseOptions): Promise<DbHandle> {
  if (options.url) {
    const { default: postgres } = await import('postgres');
    const { drizzle } = await import('drizzle-orm/postgres-js');
    const client: Sql = postgres(options.url, {
      max: options.poolSize,
      onnotice: () => {},
      connection: { application_name: 'cloud-panel' },
    });
    return {
      db: drizzle(client, { schema }) as unknown as Db,
      raw: {
        async query(text, values) {
          // A reserved connection lets the SQL open its own transaction (pg-boss migrations do).
          const connection = await client.reserve();
          try {
            const rows = await connection.unsafe(text, (values ?? []).map(toDriverParam) as never[]);
            return { rows: rows as unknown as Record<string, unknown>[] };
          } finally {
            connection.release();
          }
        },
      },
      driver: 'postgres',
      close: () => client.end({ timeout: 5 }),
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const dir = options.pgliteDir;
  if (!dir.startsWith('memory://')) mkdirSync(dir, { recursive: true });
  const client: PGlite = await PGlite.create(dir);
  return {
    db: drizzle(client, { schema }) as unknown as Db,
    raw: {
      async query(text, values) {
        if (values && values.length > 0) {
          const result = await client.query<Record<string, unknown>>(text, values);
          return { rows: result.rows };
        }
        const results = await client.exec(text);
        return { rows: (results.at(-1)?.rows ?? []) as Record<string, unknown>[] };
      },
    },
    driver: 'pglite',
    close: () => client.close(),
  };
}

/**
 * drizzle's postgres-js driver turns the client's date and json serializers into pass-throughs, so
 * Dates and objects bound by other libraries are serialized here, the way node-postgres would.
 */
function toDriverParam(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && !Buffer.isBuffer(value)) return JSON.stringify(value);
  return value;
}
