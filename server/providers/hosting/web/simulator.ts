import type { SiteServing, WebServingProvider } from '../types';
import { checkSiteName, renderServerBlocks, webPaths } from './config';

export interface WebServingSimulatorOptions {
  /** The configured HOSTING_HTTP_PORT, reported as is. */
  port: number;
  /** Why the simulator runs, said in `description`. */
  reason?: string;
}

/** Only checks values, as the embedded provider does before writing them; nothing is written under it. */
const CHECK_PATHS = webPaths('/nonexistent/hosting/web');

/**
 * Web serving without nginx or php-fpm: applied sites are kept in this process's memory and count
 * as serving unless suspended. Nothing listens on the port. Values the embedded provider would
 * refuse (hostnames, paths, redirect targets) are refused here too, so the simulator is no laxer.
 */
export class WebServingSimulator implements WebServingProvider {
  readonly kind = 'simulator' as const;
  readonly description: string;
  private readonly sites = new Map<string, SiteServing>();

  constructor(private readonly options: WebServingSimulatorOptions) {
    this.description = `Simulated: sites are not served, and "ready" follows what was applied${options.reason ? ` (${options.reason})` : ''}`;
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {}

  httpPort(): number {
    return this.options.port;
  }

  async applySite(site: SiteServing): Promise<void> {
    renderServerBlocks(site, CHECK_PATHS);
    this.sites.set(site.siteName, structuredClone(site));
  }

  async removeSite(siteName: string): Promise<void> {
    this.sites.delete(checkSiteName(siteName));
  }

  async isServing(siteName: string): Promise<boolean> {
    const site = this.sites.get(checkSiteName(siteName));
    return site !== undefined && !site.suspended;
  }
}
