import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getDbHandle } from './index';

/**
 * The committed drizzle-kit migrations. Next to this file when it runs as TypeScript (tsx, vitest);
 * from the compiled server bundle (dist/chunks/…) the nearest ancestor's db/migrations, or the
 * working directory's, since the SQL files are read at run time and not bundled.
 */
function findMigrationsFolder(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'migrations')];
  for (let dir = here; ; dir = path.dirname(dir)) {
    candidates.push(path.join(dir, 'db', 'migrations'));
    if (path.dirname(dir) === dir) break;
  }
  candidates.push(path.resolve(process.cwd(), 'db', 'migrations'));
  const found = candidates.find((dir) => existsSync(path.join(dir, 'meta', '_journal.json')));
  if (!found) throw new Error(`db/migrations not found (looked in ${candidates.join(', ')})`);
  return found;
}

/** Applies the committed drizzle-kit migrations; safe to run on every start. */
export async function migrateDatabase(): Promise<void> {
  const migrationsFolder = findMigrationsFolder();
  const handle = await getDbHandle();
  if (handle.driver === 'postgres') {
    const { migrate } = await import('drizzle-orm/postgres-js/migrator');
    await migrate(handle.db as never, { migrationsFolder });
  } else {
    const { migrate } = await import('drizzle-orm/pglite/migrator');
    await migrate(handle.db as never, { migrationsFolder });
  }
}
