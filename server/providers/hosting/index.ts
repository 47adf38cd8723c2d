import { getConfig } from '../../platform/config';
import { MysqlHostingDatabaseProvider } from './mysql';
import { HostingDatabaseSimulator } from './mysqlSimulator';
import type { HostingDatabaseProvider } from './types';

/**
 * One provider per process, shared through globalThis: the panel's Next bundle and the REST bridge
 * load this module separately, and each MySQL provider holds its own pool of administrator
 * connections.
 */
const holder = globalThis as unknown as { __hostingDatabaseProvider?: HostingDatabaseProvider };

/** MySQL when HOSTING_MYSQL_ADMIN_URL names a server, else the simulator; made once per process. */
export function getHostingDatabaseProvider(): HostingDatabaseProvider {
  holder.__hostingDatabaseProvider ??= makeHostingDatabaseProvider();
  return holder.__hostingDatabaseProvider;
}

function makeHostingDatabaseProvider(): HostingDatabaseProvider {
  const adminUrl = getConfig().HOSTING_MYSQL_ADMIN_URL;
  return adminUrl ? new MysqlHostingDatabaseProvider(adminUrl) : new HostingDatabaseSimulator();
}

/** Closes the provider (its connections to the server); the next call makes it again. */
export async function stopHostingDatabaseProvider(): Promise<void> {
  const provider = holder.__hostingDatabaseProvider;
  holder.__hostingDatabaseProvider = undefined;
  await provider?.close();
}

/** Test hook: the next call makes the provider again, from the configuration as it is then. */
export async function resetHostingDatabaseProviderForTests(): Promise<void> {
  await stopHostingDatabaseProvider();
}
