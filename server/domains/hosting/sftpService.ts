import path from 'node:path';
import { timingSafeEqual, createHash } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { getDb } from '../../../db';
import { hostingSites } from '../../../db/schema';
import { getConfig } from '../../platform/config';
import { startSftpServer } from '../../providers/hosting/sftp';
import type { SftpLogin, SftpServer } from '../../providers/hosting/types';
import { hostingRoot, siteHome } from './paths';
import { quotaBytes, sftpPasswordOf } from './sites';

/** Shared through globalThis: the Next bundle and the server load this module separately. */
const holder = globalThis as unknown as { __hostingSftp?: Promise<SftpServer>; __hostingSftpPort?: number };

/** Starts the one SFTP server of every site; a second call returns the same server. */
export function startHostingSftp(): Promise<SftpServer> {
  const config = getConfig();
  holder.__hostingSftp ??= startSftpServer({
    host: config.HOSTING_SFTP_HOST,
    port: config.HOSTING_SFTP_PORT,
    hostKeyPath: path.join(hostingRoot(), 'sftp_host_key'),
    authenticate: sftpLogin,
  }).then(
    (server) => {
      holder.__hostingSftpPort = server.port;
      return server;
    },
    (err: unknown) => {
      holder.__hostingSftp = undefined;
      throw err;
    },
  );
  return holder.__hostingSftp;
}

export async function stopHostingSftp(): Promise<void> {
  const running = holder.__hostingSftp;
  holder.__hostingSftp = undefined;
  holder.__hostingSftpPort = undefined;
  await (await running?.catch(() => null))?.close();
}

/** Where customers connect: the running server's port (0 asks for any), else the configured one. */
export function sftpEndpoint(): { host: string; port: number } {
  const config = getConfig();
  return { host: config.HOSTING_SFTP_HOST, port: holder.__hostingSftpPort ?? config.HOSTING_SFTP_PORT };
}

/**
 * The username selects the site; its password must match, and a suspended site takes no logins.
 * Both passwords are hashed before the constant-time comparison so their lengths leak nothing.
 */
async function sftpLogin(username: string, password: string): Promise<SftpLogin | null> {
  const db = await getDb();
  const [site] = await db
    .select()
    .from(hostingSites)
    .where(and(eq(hostingSites.siteName, username), isNull(hostingSites.deletedAt)));
  if (!site || site.billingSuspendedAt) return null;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  if (!timingSafeEqual(digest(password), digest(sftpPasswordOf(site)))) return null;
  return { home: siteHome(site.siteName), quotaBytes: quotaBytes(site) };
}
