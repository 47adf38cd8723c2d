import path from 'node:path';
import { getConfig } from '../../platform/config';

/** Where hosting keeps its files: site homes, the SFTP host key, the web server's configuration. */
export function hostingRoot(): string {
  const config = getConfig();
  return path.resolve(config.HOSTING_DATA_DIR ?? path.join(config.DATA_DIR, 'hosting'));
}

/** A site's home folder: what its files API, SFTP and PHP pool are confined to. */
export function siteHome(siteName: string): string {
  return path.join(hostingRoot(), 'sites', siteName);
}

/** The site's own address: `<siteName>.<HOSTING_PLATFORM_DOMAIN>`. */
export function siteHostname(siteName: string): string {
  return `${siteName}.${getConfig().HOSTING_PLATFORM_DOMAIN}`;
}
