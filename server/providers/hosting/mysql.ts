import { createPool, type Pool, type RowDataPacket } from 'mysql2/promise';
import { AppError } from '../../platform/errors';
import type { HostingDatabaseProvider, NewHostingDatabase } from './types';

/** MariaDB's own limits on a database name and a user name. */
export const MAX_DATABASE_NAME_LENGTH = 64;
export const MAX_DATABASE_USER_LENGTH = 80;
export const MAX_USER_CONNECTIONS = 10_000;
/**
 * Names are written into SQL as quoted identifiers (MySQL takes no placeholder there), so only
 * these characters ever reach a statement: nothing can close the quotes.
 */
const IDENTIFIER = /^[a-z][a-z0-9_]*$/;
/** The server's own databases and accounts, which no site may create, take over or drop. */
const RESERVED_DATABASES = new Set(['mysql', 'information_schema', 'performance_schema', 'sys', 'test']);
const RESERVED_USERS = new Set(['root', 'mysql', 'mariadb', 'admin', 'public']);
/**
 * Printable ASCII without quotes, backslash or backtick. Passwords do travel as placeholders, but
 * the driver fills those in itself (the server takes none in CREATE USER), escaping with
 * backslashes: a server in NO_BACKSLASH_ESCAPES mode would read those differently.
 */
const PASSWORD = /^[\x21-\x7e]{8,128}$/;
const PASSWORD_FORBIDDEN = /['"\\`]/;

const refuse = (message: string) => new AppError('BAD_REQUEST', message);
const shown = (value: string) => JSON.stringify(value.slice(0, 100));

export function checkDatabaseName(dbName: string): void {
  if (typeof dbName !== 'string' || dbName.length > MAX_DATABASE_NAME_LENGTH || !IDENTIFIER.test(dbName) || RESERVED_DATABASES.has(dbName)) {
    throw refuse(
      `Invalid database name ${shown(String(dbName))}: a lowercase letter, then lowercase letters, digits or underscores, at most ${MAX_DATABASE_NAME_LENGTH}`,
    );
  }
}

export function checkDatabaseUser(dbUser: string): void {
  if (typeof dbUser !== 'string' || dbUser.length > MAX_DATABASE_USER_LENGTH || !IDENTIFIER.test(dbUser) || RESERVED_USERS.has(dbUser)) {
    throw refuse(
      `Invalid database user ${shown(String(dbUser))}: a lowercase letter, then lowercase letters, digits or underscores, at most ${MAX_DATABASE_USER_LENGTH}`,
    );
  }
}

export function checkMaxConnections(maxConnections: number): void {
  if (!Number.isInteger(maxConnections) || maxConnections < 1 || maxConnections > MAX_USER_CONNECTIONS) {
    throw refuse(`The connection limit must be a whole number from 1 to ${MAX_USER_CONNECTIONS}`);
  }
}

/** Every rule a new database is held to, checked before any statement is sent. */
export function checkNewDatabase(database: NewHostingDatabase): void {
  checkDatabaseName(database.dbName);
  checkDatabaseUser(database.dbUser);
  checkMaxConnections(database.maxConnections);
  if (typeof database.password !== 'string' || !PASSWORD.test(database.password) || PASSWORD_FORBIDDEN.test(database.password)) {
    throw refuse('The database password must be 8 to 128 printable ASCII characters without quotes, backslashes or backticks');
  }
}

/**
 * Hosting databases on a MariaDB/MySQL server we administer (HOSTING_MYSQL_ADMIN_URL): one
 * database per customer database, and one account limited to it, reachable from any host, with
 * MAX_USER_CONNECTIONS from the site's tier. Customers connect to the host and port of that URL.
 */
export class MysqlHostingDatabaseProvider implements HostingDatabaseProvider {
  readonly kind = 'mysql' as const;
  readonly description: string;
  private readonly adminUrl: string;
  private readonly url: URL;
  private pool: Pool | null = null;

  constructor(adminUrl: string) {
    this.adminUrl = adminUrl;
    this.url = new URL(adminUrl);
    this.description = `MariaDB/MySQL server at ${this.host()}:${this.port()}`;
  }

  host(): string {
    return this.url.hostname.replace(/^\[(.*)\]$/, '$1');
  }

  port(): number {
    return this.url.port ? Number(this.url.port) : 3306;
  }

  async createDatabase(database: NewHostingDatabase): Promise<void> {
    checkNewDatabase(database);
    const { dbName, dbUser, password, maxConnections } = database;
    await this.run(async (pool) => {
      await pool.query(`CREATE DATABASE IF NOT EXISTS \`${dbName}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
      await pool.query(`CREATE USER IF NOT EXISTS '${dbUser}'@'%' IDENTIFIED BY ? WITH MAX_USER_CONNECTIONS ${maxConnections}`, [password]);
      // A retry finds the user made by the first attempt: the password and limit of this call are the ones handed out.
      await pool.query(`ALTER USER '${dbUser}'@'%' IDENTIFIED BY ? WITH MAX_USER_CONNECTIONS ${maxConnections}`, [password]);
      await pool.query(`GRANT ALL PRIVILEGES ON \`${dbName}\`.* TO '${dbUser}'@'%'`);
    });
  }

  /**
   * The user goes first, so nobody logs in again; its open sessions are then ended (a dropped user
   * keeps them otherwise, and an open transaction would hold DROP DATABASE waiting).
   */
  async dropDatabase(dbName: string, dbUser: string): Promise<void> {
    checkDatabaseName(dbName);
    checkDatabaseUser(dbUser);
    await this.run(async (pool) => {
      await pool.query(`DROP USER IF EXISTS '${dbUser}'@'%'`);
      const [sessions] = await pool.query<RowDataPacket[]>('SELECT ID AS id FROM information_schema.PROCESSLIST WHERE USER = ?', [dbUser]);
      for (const { id } of sessions) {
        await pool.query(`KILL CONNECTION ${Number(id)}`).catch((err: { code?: string }) => {
          // The session may have ended between the listing and the kill.
          if (err.code !== 'ER_NO_SUCH_THREAD') throw err;
        });
      }
      await pool.query(`DROP DATABASE IF EXISTS \`${dbName}\``);
    });
  }

  /** Counts from the next login: sessions already open above a lowered limit stay until they end. */
  async setMaxConnections(dbUser: string, maxConnections: number): Promise<void> {
    checkDatabaseUser(dbUser);
    checkMaxConnections(maxConnections);
    await this.run(async (pool) => {
      try {
        await pool.query(`ALTER USER '${dbUser}'@'%' WITH MAX_USER_CONNECTIONS ${maxConnections}`);
      } catch (err) {
        if ((err as { code?: string }).code === 'ER_CANNOT_USER') throw new AppError('NOT_FOUND', `Database user "${dbUser}" not found`);
        throw err;
      }
    });
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.end();
  }

  /**
   * Runs statements on the administrator's pool (made on first use, so a server that is down does
   * not stop the app from starting). A driver error carries the statement with the password filled
   * in: only its code goes on as the cause.
   */
  private async run(work: (pool: Pool) => Promise<void>): Promise<void> {
    this.pool ??= createPool({ uri: this.adminUrl, connectionLimit: 2, maxIdle: 1, connectTimeout: 10_000, multipleStatements: false });
    try {
      await work(this.pool);
    } catch (err) {
      if (err instanceof AppError) throw err;
      const { code, errno } = err as { code?: unknown; errno?: unknown };
      const what = [code, errno].filter((part) => typeof part === 'string' || typeof part === 'number').join(' ');
      throw new AppError('UPSTREAM_ERROR', 'The MySQL server could not complete the request', { cause: new Error(`MySQL error ${what || 'without a code'}`) });
    }
  }
}
