import { randomBytes } from 'node:crypto';
import { createConnection as connectSocket } from 'node:net';
import { createConnection, type Connection, type RowDataPacket } from 'mysql2/promise';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '../../platform/config';
import { AppError } from '../../platform/errors';
import { getHostingDatabaseProvider, resetHostingDatabaseProviderForTests } from './index';
import { MysqlHostingDatabaseProvider } from './mysql';
import { HostingDatabaseSimulator } from './mysqlSimulator';
import type { HostingDatabaseProvider, NewHostingDatabase } from './types';

const adminUrl = process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306';

/** Whether anything answers on the server's port: the MySQL suite runs only then. */
async function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connectSocket({ host: hostname, port: Number(port || 3306) });
    socket.setTimeout(2000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
const serverUp = await answers(adminUrl);

const run = randomBytes(3).toString('hex');
let counter = 0;
function newDatabase(maxConnections = 3): NewHostingDatabase {
  counter += 1;
  return { dbName: `t${run}_site${counter}_shop`, dbUser: `t${run}_u${counter}`, password: randomBytes(18).toString('base64url'), maxConnections };
}

/** Names that must never reach a statement. */
const HOSTILE_NAMES = [
  '',
  'Shop',
  '1shop',
  '_shop',
  'shop-db',
  'shop db',
  'shop`; DROP DATABASE mysql; --',
  "shop'@'%",
  'shop\u0000',
  'shop.db',
  'shöp',
  'a'.repeat(65),
  'mysql',
  'information_schema',
  'performance_schema',
  'sys',
];
const HOSTILE_USERS = ['', 'Root', 'root', 'mysql', "u'@'%", 'u`', 'u;', 'a'.repeat(81), 'u\n'];

describe('identifier and parameter checks (both providers, before any SQL)', () => {
  const providers: Array<[string, () => HostingDatabaseProvider]> = [
    // An address nothing listens on: a statement sent would fail with UPSTREAM_ERROR, not BAD_REQUEST.
    ['mysql', () => new MysqlHostingDatabaseProvider('mysql://root@127.0.0.1:9')],
    ['simulator', () => new HostingDatabaseSimulator()],
  ];
  for (const [kind, make] of providers) {
    it(`${kind}: refuses names that are not plain identifiers`, async () => {
      const provider = make();
      const good = newDatabase();
      for (const dbName of HOSTILE_NAMES) {
        await expect(provider.createDatabase({ ...good, dbName }), dbName).rejects.toMatchObject({ code: 'BAD_REQUEST' });
        await expect(provider.dropDatabase(dbName, good.dbUser), dbName).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      }
      for (const dbUser of HOSTILE_USERS) {
        await expect(provider.createDatabase({ ...good, dbUser }), dbUser).rejects.toMatchObject({ code: 'BAD_REQUEST' });
        await expect(provider.dropDatabase(good.dbName, dbUser), dbUser).rejects.toMatchObject({ code: 'BAD_REQUEST' });
        await expect(provider.setMaxConnections(dbUser, 5), dbUser).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      }
      for (const maxConnections of [0, -1, 1.5, Number.NaN, 10_001]) {
        await expect(provider.createDatabase({ ...good, maxConnections })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
        await expect(provider.setMaxConnections(good.dbUser, maxConnections)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      }
      for (const password of ['', 'short', "quote'password", 'back\\slash1', 'tick`password', 'space password', 'é'.repeat(10), 'x'.repeat(129)]) {
        await expect(provider.createDatabase({ ...good, password })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      }
      // The MySQL provider opens its pool on the first statement: none was ever about to be sent.
      if (provider instanceof MysqlHostingDatabaseProvider) expect((provider as unknown as { pool: unknown }).pool).toBeNull();
      await provider.close();
    });
  }

  it('mysql: the longest names MariaDB takes are accepted, and an unreachable server is UPSTREAM_ERROR without the password', async () => {
    const provider = new MysqlHostingDatabaseProvider('mysql://root@127.0.0.1:9');
    const password = 'Secret-password-123';
    const failed = await provider
      .createDatabase({ dbName: `a${'b'.repeat(63)}`, dbUser: `u${'v'.repeat(79)}`, password, maxConnections: 5 })
      .catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(AppError);
    expect(failed).toMatchObject({ code: 'UPSTREAM_ERROR' });
    expect(JSON.stringify(failed, Object.getOwnPropertyNames(failed))).not.toContain(password);
    expect(String((failed as AppError).cause)).not.toContain(password);
    await provider.close();
  });

  it('mysql: host and port come from the administrator URL', () => {
    expect(new MysqlHostingDatabaseProvider('mysql://root:pw@db.example.com:3307').host()).toBe('db.example.com');
    expect(new MysqlHostingDatabaseProvider('mysql://root:pw@db.example.com:3307').port()).toBe(3307);
    expect(new MysqlHostingDatabaseProvider('mysql://root@[::1]').port()).toBe(3306);
    expect(new MysqlHostingDatabaseProvider('mysql://root@[::1]').host()).toBe('::1');
    expect(new MysqlHostingDatabaseProvider('mysql://root:hunter22@db.example.com').description).not.toContain('hunter22');
  });
});

describe('simulator', () => {
  it('remembers databases and users, retries converge, and drop forgets both', async () => {
    const simulator = new HostingDatabaseSimulator();
    expect(simulator.host()).toBe('mysql.hosting.simulator.invalid');
    expect(simulator.port()).toBe(3306);
    const database = newDatabase(10);
    await simulator.createDatabase(database);
    await simulator.createDatabase({ ...database, password: 'another-password', maxConnections: 12 });
    expect(simulator.hasDatabase(database.dbName)).toBe(true);
    expect(simulator.user(database.dbUser, 'another-password')).toEqual({ maxConnections: 12, databases: [database.dbName], passwordMatches: true });
    expect(simulator.user(database.dbUser, database.password)?.passwordMatches).toBe(false);
    await simulator.setMaxConnections(database.dbUser, 25);
    expect(simulator.user(database.dbUser)?.maxConnections).toBe(25);
    await simulator.dropDatabase(database.dbName, database.dbUser);
    await simulator.dropDatabase(database.dbName, database.dbUser);
    expect(simulator.hasDatabase(database.dbName)).toBe(false);
    expect(simulator.user(database.dbUser)).toBeNull();
    await expect(simulator.setMaxConnections(database.dbUser, 5)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('provider from configuration', () => {
  const saved = process.env.HOSTING_MYSQL_ADMIN_URL;
  afterEach(async () => {
    if (saved === undefined) delete process.env.HOSTING_MYSQL_ADMIN_URL;
    else process.env.HOSTING_MYSQL_ADMIN_URL = saved;
    resetConfigForTests();
    await resetHostingDatabaseProviderForTests();
  });

  it('is the simulator without HOSTING_MYSQL_ADMIN_URL and MySQL with it, one per process', async () => {
    process.env.HOSTING_MYSQL_ADMIN_URL = '';
    resetConfigForTests();
    await resetHostingDatabaseProviderForTests();
    expect(getHostingDatabaseProvider().kind).toBe('simulator');
    process.env.HOSTING_MYSQL_ADMIN_URL = 'mysql://root@127.0.0.1:3306';
    resetConfigForTests();
    expect(getHostingDatabaseProvider().kind).toBe('simulator');
    await resetHostingDatabaseProviderForTests();
    const provider = getHostingDatabaseProvider();
    expect(provider.kind).toBe('mysql');
    expect(getHostingDatabaseProvider()).toBe(provider);
    expect([provider.host(), provider.port()]).toEqual(['127.0.0.1', 3306]);
  });
});

describe.skipIf(!serverUp)('MySQL provider on a real server', () => {
  const provider = new MysqlHostingDatabaseProvider(adminUrl);
  const made: NewHostingDatabase[] = [];
  const connections: Connection[] = [];

  async function create(maxConnections = 3): Promise<NewHostingDatabase> {
    const database = newDatabase(maxConnections);
    made.push(database);
    await provider.createDatabase(database);
    return database;
  }

  async function connectAs(database: Pick<NewHostingDatabase, 'dbUser' | 'password'>, dbName?: string): Promise<Connection> {
    const connection = await createConnection({
      host: provider.host(),
      port: provider.port(),
      user: database.dbUser,
      password: database.password,
      database: dbName,
    });
    connections.push(connection);
    return connection;
  }

  async function admin<T extends RowDataPacket>(sql: string, values: unknown[] = []): Promise<T[]> {
    const connection = await createConnection({ uri: adminUrl });
    try {
      const [rows] = await connection.query<T[]>(sql, values);
      return rows;
    } finally {
      await connection.end();
    }
  }

  afterEach(async () => {
    await Promise.allSettled(connections.splice(0).map((connection) => connection.end()));
  });
  afterAll(async () => {
    for (const database of made) await provider.dropDatabase(database.dbName, database.dbUser).catch(() => undefined);
    await provider.close();
  });

  it('makes a database reachable with the returned user and password, and a retry converges', async () => {
    const database = await create();
    const retried = { ...database, password: randomBytes(18).toString('base64url'), maxConnections: 4 };
    await provider.createDatabase(retried);
    await expect(connectAs(database, database.dbName)).rejects.toMatchObject({ code: 'ER_ACCESS_DENIED_ERROR' });
    const connection = await connectAs(retried, database.dbName);
    await connection.query('CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20))');
    await connection.query('INSERT INTO items VALUES (1, ?)', ['one']);
    const [rows] = await connection.query<RowDataPacket[]>('SELECT name FROM items');
    expect(rows).toEqual([{ name: 'one' }]);
    const [limits] = await admin<RowDataPacket>('SELECT max_user_connections AS n FROM mysql.user WHERE User = ? AND Host = ?', [database.dbUser, '%']);
    expect(Number(limits?.n)).toBe(4);
  });

  it("keeps a site's user out of another site's database", async () => {
    const mine = await create();
    const theirs = await create();
    const connection = await connectAs(mine);
    const [databases] = await connection.query<RowDataPacket[]>('SHOW DATABASES');
    const names = databases.map((row) => String(Object.values(row)[0]));
    expect(names).toContain(mine.dbName);
    expect(names).not.toContain(theirs.dbName);
    expect(names).not.toContain('mysql');
    await expect(connection.query(`USE \`${theirs.dbName}\``)).rejects.toMatchObject({ code: 'ER_DBACCESS_DENIED_ERROR' });
    await expect(connection.query(`CREATE TABLE \`${theirs.dbName}\`.x (id INT)`)).rejects.toThrow();
    await expect(connection.query('SELECT * FROM mysql.user')).rejects.toThrow();
    await expect(connection.query(`CREATE DATABASE \`${mine.dbName}_more\``)).rejects.toThrow();
    await expect(connectAs(mine, theirs.dbName)).rejects.toMatchObject({ code: 'ER_DBACCESS_DENIED_ERROR' });
  });

  it('enforces the connection limit, and a tier change moves it', async () => {
    const database = await create(2);
    await connectAs(database, database.dbName);
    await connectAs(database, database.dbName);
    await expect(connectAs(database, database.dbName)).rejects.toMatchObject({ code: 'ER_USER_LIMIT_REACHED' });
    await provider.setMaxConnections(database.dbUser, 3);
    await connectAs(database, database.dbName);
    await expect(connectAs(database, database.dbName)).rejects.toMatchObject({ code: 'ER_USER_LIMIT_REACHED' });
    await expect(provider.setMaxConnections(`t${run}_nobody`, 3)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('drops the database and the user, ends their sessions, and a second drop is no error', async () => {
    const database = await create();
    const open = await connectAs(database, database.dbName);
    await open.query('CREATE TABLE t (id INT)');
    await open.query('START TRANSACTION');
    await open.query('INSERT INTO t VALUES (1)');
    await provider.dropDatabase(database.dbName, database.dbUser);
    await provider.dropDatabase(database.dbName, database.dbUser);
    expect(await admin('SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [database.dbName])).toEqual([]);
    expect(await admin('SELECT User FROM mysql.user WHERE User = ?', [database.dbUser])).toEqual([]);
    await expect(open.query('SELECT 1')).rejects.toThrow();
    await expect(connectAs(database)).rejects.toMatchObject({ code: 'ER_ACCESS_DENIED_ERROR' });
  });
});
