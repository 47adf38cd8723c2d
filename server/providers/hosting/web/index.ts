import path from 'node:path';
import { getConfig } from '../../../platform/config';
import { getLogger } from '../../../platform/logger';
import { findExecutable } from '../../redis';
import type { WebServingProvider } from '../types';
import { EmbeddedWebServing } from './embedded';
import { WebServingSimulator } from './simulator';

export { EmbeddedWebServing } from './embedded';
export { WebServingSimulator } from './simulator';
export { isValidHostname } from './config';

/**
 * One provider per process, shared through globalThis: the panel's Next bundle and the REST bridge
 * load this module separately, and a second instance would start a second nginx on the same port.
 */
const holder = globalThis as unknown as { __hostingWebServing?: WebServingProvider };

/** nginx and php-fpm when both are installed; otherwise the simulator, with a warning. */
export function getWebServingProvider(): WebServingProvider {
  holder.__hostingWebServing ??= makeWebServingProvider();
  return holder.__hostingWebServing;
}

function makeWebServingProvider(): WebServingProvider {
  const config = getConfig();
  const { nginx, phpFpm } = webServingBinaries();
  if (nginx && phpFpm) {
    return new EmbeddedWebServing({
      nginxBinary: nginx,
      phpFpmBinary: phpFpm,
      dir: path.join(path.resolve(config.HOSTING_DATA_DIR ?? path.join(config.DATA_DIR, 'hosting')), 'web'),
      port: config.HOSTING_HTTP_PORT,
      platformDomain: config.HOSTING_PLATFORM_DOMAIN,
    });
  }
  const missing = [nginx ? null : config.HOSTING_NGINX_BINARY, phpFpm ? null : config.HOSTING_PHP_FPM_BINARY].filter(Boolean).join(' and ');
  getLogger().warn({ missing }, 'nginx or php-fpm not found: hosting sites are not served, their readiness is simulated');
  return new WebServingSimulator({ port: config.HOSTING_HTTP_PORT, reason: `no ${missing} binary found` });
}

/** The nginx and php-fpm binaries the configuration names, where found. */
export function webServingBinaries(): { nginx: string | null; phpFpm: string | null } {
  const config = getConfig();
  return { nginx: findDaemon(config.HOSTING_NGINX_BINARY), phpFpm: findDaemon(config.HOSTING_PHP_FPM_BINARY) };
}

/** Debian installs both in /usr/sbin, which is not in every user's PATH: a bare name is looked for there too. */
function findDaemon(nameOrPath: string): string | null {
  if (nameOrPath.includes('/')) return findExecutable(nameOrPath);
  return findExecutable(nameOrPath) ?? findExecutable(path.join('/usr/sbin', nameOrPath)) ?? findExecutable(path.join('/usr/local/sbin', nameOrPath));
}

/** Stops nginx and php-fpm if this process started them (shutdown, the end of a test file). */
export async function stopWebServingProvider(): Promise<void> {
  await holder.__hostingWebServing?.stop();
}

/** Test hook: the next call makes the provider again, from the configuration as it is then. The caller stops the old one. */
export function resetWebServingProviderForTests(): void {
  holder.__hostingWebServing = undefined;
}
