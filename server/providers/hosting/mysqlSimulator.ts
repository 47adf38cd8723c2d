import { createHash } from 'node:crypto';
import { AppError } from '../../platform/errors';
import { checkDatabaseName, checkDatabaseUser, checkMaxConnections, checkNewDatabase } from './mysql';
import type { HostingDatabaseProvider, NewHostingDatabase } from './types';

interface SimulatedUser {
  /** A digest only: even a simulator keeps no password in the clear. */
  passwordDigest: string;
  maxConnections: number;
  databases: Set<string>;
}

const digest = (password: string) => createHash('sha256').update(password).digest('hex');

/**
 * Hosting databases without a MySQL server (HOSTING_MYSQL_ADMIN_URL unset): the same rules as the
 * real provider, databases and users remembered in this process's memory (forgotten on restart).
 * Customers are shown `mysql.hosting.simulator.invalid:3306`, a name that never resolves (the
 * `.invalid` top-level domain is reserved for that), so nothing pretends to accept a connection.
 */
export class HostingDatabaseSimulator implements HostingDatabaseProvider {
  static readonly HOST = 'mysql.hosting.simulator.invalid';
  static readonly PORT = 3306;

  readonly kind = 'simulator' as const;
  readonly description = `Simulator: databases are remembered in memory and accept no connections (${HostingDatabaseSimulator.HOST}); set HOSTING_MYSQL_ADMIN_URL for real ones`;
  private readonly databases = new Set<string>();
  private readonly users = new Map<string, SimulatedUser>();

  host(): string {
    return HostingDatabaseSimulator.HOST;
  }

  port(): number {
    return HostingDatabaseSimulator.PORT;
  }

  async createDatabase(database: NewHostingDatabase): Promise<void> {
    checkNewDatabase(database);
    this.databases.add(database.dbName);
    const user = this.users.get(database.dbUser) ?? { passwordDigest: '', maxConnections: 0, databases: new Set<string>() };
    user.passwordDigest = digest(database.password);
    user.maxConnections = database.maxConnections;
    user.databases.add(database.dbName);
    this.users.set(database.dbUser, user);
  }

  async dropDatabase(dbName: string, dbUser: string): Promise<void> {
    checkDatabaseName(dbName);
    checkDatabaseUser(dbUser);
    this.users.delete(dbUser);
    this.databases.delete(dbName);
    for (const user of this.users.values()) user.databases.delete(dbName);
  }

  async setMaxConnections(dbUser: string, maxConnections: number): Promise<void> {
    checkDatabaseUser(dbUser);
    checkMaxConnections(maxConnections);
    const user = this.users.get(dbUser);
    if (!user) throw new AppError('NOT_FOUND', `Database user "${dbUser}" not found`);
    user.maxConnections = maxConnections;
  }

  async close(): Promise<void> {
    this.databases.clear();
    this.users.clear();
  }

  hasDatabase(dbName: string): boolean {
    return this.databases.has(dbName);
  }

  /** What the server would know of a user: its limit, the databases granted, whether `password` is its password. */
  user(dbUser: string, password?: string): { maxConnections: number; databases: string[]; passwordMatches: boolean } | null {
    const user = this.users.get(dbUser);
    if (!user) return null;
    return {
      maxConnections: user.maxConnections,
      databases: [...user.databases].sort(),
      passwordMatches: password !== undefined && digest(password) === user.passwordDigest,
    };
  }
}
