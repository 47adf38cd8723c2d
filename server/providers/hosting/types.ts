/**
 * The machinery under PHP hosting sites: the web server that serves them (nginx and one php-fpm
 * pool per site), the MySQL server their databases live on, and the SFTP server that reaches their
 * homes. Each has a real implementation on this machine and a simulator where nothing is installed.
 *
 * Errors: AppError('UPSTREAM_ERROR') when a backend fails or cannot be reached.
 */

/** How one hostname of a site is answered. */
export type HostRoute =
  | { hostname: string; kind: 'SITE'; /** Absolute path inside the site's home. */ documentRoot: string }
  | { hostname: string; kind: 'REDIRECT'; target: string; status: 301 | 302 }
  | { hostname: string; kind: 'PARKED' };

/** Everything the web server needs to serve a site; applied whole, so a retry converges. */
export interface SiteServing {
  siteName: string;
  /** Absolute path of the site's home folder. */
  home: string;
  phpVersion: '8.1' | '8.2' | '8.3';
  phpWorkers: number;
  memoryMb: number;
  /** A suspended site answers 503 on every hostname. */
  suspended: boolean;
  /** The site's own address first, then its attached hostnames. */
  hosts: HostRoute[];
}

export interface WebServingProvider {
  readonly kind: 'embedded' | 'simulator';
  readonly description: string;
  /** Starts the web server; a second call is a no-op. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The port sites are served on (the actual one when 0 was configured). */
  httpPort(): number;
  /** Creates or replaces the site's PHP pool and server blocks, and reloads. */
  applySite(site: SiteServing): Promise<void>;
  removeSite(siteName: string): Promise<void>;
  /** Whether the site answers right now (a live request to its own address). */
  isServing(siteName: string): Promise<boolean>;
}

export interface NewHostingDatabase {
  dbName: string;
  dbUser: string;
  password: string;
  maxConnections: number;
}

export interface HostingDatabaseProvider {
  readonly kind: 'mysql' | 'simulator';
  readonly description: string;
  /** Where customers connect. */
  host(): string;
  port(): number;
  /** CREATE DATABASE, a user limited to it with MAX_USER_CONNECTIONS; idempotent for a retry. */
  createDatabase(database: NewHostingDatabase): Promise<void>;
  /** Drops the database and its user; a missing one is not an error. */
  dropDatabase(dbName: string, dbUser: string): Promise<void>;
  /** A tier change: the user's connection limit. */
  setMaxConnections(dbUser: string, maxConnections: number): Promise<void>;
  close(): Promise<void>;
}

/** Who an SFTP login is, decided by the hosting domain. */
export interface SftpLogin {
  /** Absolute path of the site's home; every operation is confined to it. */
  home: string;
  /** Disk quota of the home in bytes; writes beyond it fail. */
  quotaBytes: number;
}

export interface SftpServerOptions {
  host: string;
  /** Never 22; 0 takes any free port (tests). */
  port: number;
  /** Where the server's host key is kept (made once). */
  hostKeyPath: string;
  /** The site a username and password open, or null. Compare passwords in constant time. */
  authenticate(username: string, password: string): Promise<SftpLogin | null>;
}

export interface SftpServer {
  port: number;
  close(): Promise<void>;
}
