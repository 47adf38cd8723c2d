import { describe, expect, it } from 'vitest';
import { POOLER_ADMIN_USER, renderAuthFile, renderPgBouncerIni } from './pgbouncer';
import type { PoolSpec } from './types';

const SETTINGS = { server: { host: '127.0.0.1', port: 5432 }, listenAddr: '127.0.0.1', listenPort: 6432 };
const POOL: PoolSpec = { dbName: 'shop', dbUser: 'shop_u', poolUser: 'shop_p', poolSize: 5, poolMode: 'TRANSACTION' };

describe('PgBouncer configuration', () => {
  it('has one line per pool, forcing the pool login, with no password', () => {
    const ini = renderPgBouncerIni([{ ...POOL, dbName: 'zeta', poolUser: 'zeta_p', poolMode: 'STATEMENT' }, POOL], SETTINGS);
    const databases = ini.slice(ini.indexOf('[databases]'), ini.indexOf('[pgbouncer]')).trim().split('\n');
    expect(databases).toEqual([
      '[databases]',
      'shop = host=127.0.0.1 port=5432 dbname=shop user=shop_p pool_size=5 max_db_connections=5 pool_mode=transaction',
      'zeta = host=127.0.0.1 port=5432 dbname=zeta user=zeta_p pool_size=5 max_db_connections=5 pool_mode=statement',
    ]);
    expect(ini).not.toMatch(/password/);
  });

  it('requires TLS both ways, SCRAM, no unix socket, and names its admin', () => {
    const ini = renderPgBouncerIni([], SETTINGS);
    for (const line of [
      'listen_addr = 127.0.0.1',
      'listen_port = 6432',
      'unix_socket_dir =',
      'auth_type = scram-sha-256',
      'auth_file = users.txt',
      `admin_users = ${POOLER_ADMIN_USER}`,
      'client_tls_sslmode = require',
      'client_tls_key_file = tls.key',
      'client_tls_cert_file = tls.crt',
      'server_tls_sslmode = require',
      'ignore_startup_parameters = extra_float_digits',
      'max_client_conn = 1000',
    ]) {
      expect(ini.split('\n')).toContain(line);
    }
  });

  it('refuses names and hosts that could change the file', () => {
    expect(() => renderPgBouncerIni([{ ...POOL, dbName: 'x\nadmin_users = evil' }], SETTINGS)).toThrow(/not a valid tenant name/);
    expect(() => renderPgBouncerIni([{ ...POOL, poolUser: 'a b' }], SETTINGS)).toThrow(/not a valid tenant name/);
    expect(() => renderPgBouncerIni([POOL], { ...SETTINGS, server: { host: 'h dbname=other', port: 1 } })).toThrow(/cannot be written/);
    expect(() => renderPgBouncerIni([{ ...POOL, poolSize: 0 }], SETTINGS)).toThrow(/positive integer/);
  });

  it('quotes the auth file as PgBouncer reads it', () => {
    expect(
      renderAuthFile([
        { user: 'shop_u', secret: 'SCRAM-SHA-256$4096:c2FsdA==$a:b' },
        { user: POOLER_ADMIN_USER, secret: 'we"ird' },
      ]),
    ).toBe(`"shop_u" "SCRAM-SHA-256$4096:c2FsdA==$a:b"\n"${POOLER_ADMIN_USER}" "we""ird"\n`);
  });
});
