import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import next from 'next';
import { closeDb } from './db';
import { migrateDatabase } from './db/migrate';
import { getConfig } from './server/platform/config';
import { INTERNAL_HEADERS } from './server/platform/context';
import { startJobs, stopJobs } from './server/platform/jobs';
import { getLogger } from './server/platform/logger';
import { restApi, runDomainShutdowns, runDomainStartups } from './server/app';
import { clientAddress, loggablePath, securityHeaders } from './server/platform/http';
import { REST_PREFIX } from './server/platform/rest/handler';

/**
 * Production entry point. /v1/* goes straight to the REST bridge (Next's request handling would
 * cost more CPU than the work of a typical API call); everything else is Next's.
 */
async function main(): Promise<void> {
  const dev = process.argv.includes('--dev');
  const config = getConfig();
  const log = getLogger();
  // next-auth builds its callback and redirect URLs from NEXTAUTH_URL; APP_URL is the one setting for it.
  process.env.NEXTAUTH_URL ??= config.APP_URL;
  try {
    await migrateDatabase();
  } catch (err) {
    log.fatal({ err }, 'database migration failed; the server cannot start');
    process.exit(1);
  }
  await runDomainStartups();
  if (config.JOBS_IN_PROCESS) await startJobs({ work: true });

  const nextApp = next({ dev, dir: process.cwd(), hostname: config.HOST, port: config.PORT });
  await nextApp.prepare();
  const handleNext = nextApp.getRequestHandler();

  const accessLog = log.child({ component: 'http' });
  const trustedHops = config.TRUST_PROXY ? config.TRUSTED_PROXY_HOPS : null;
  const answerHeaders = Object.entries(securityHeaders(config.APP_URL));
  const server = createServer((req, res) => {
    stampInternalHeaders(req, trustedHops);
    for (const [name, value] of answerHeaders) res.setHeader(name, value);
    const url = req.url ?? '/';
    if (accessLog.isLevelEnabled('info')) logWhenDone(accessLog, req, res, url);
    if (url === REST_PREFIX || url.startsWith(`${REST_PREFIX}/`) || url.startsWith(`${REST_PREFIX}?`)) {
      restApi.handleNode(req, res).catch((err: unknown) => {
        log.error({ err, reqId: req.headers[INTERNAL_HEADERS.requestId] }, 'unhandled REST failure');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"success":false,"error":{"code":"INTERNAL_ERROR","message":"Internal server error"}}');
      });
      return;
    }
    res.setHeader('x-request-id', String(req.headers[INTERNAL_HEADERS.requestId]));
    void handleNext(req, res);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(config.PORT, config.HOST, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    log.info(
      { port, database: config.embeddedDatabase ? 'embedded' : 'postgres', dev, node: process.version },
      `ready on ${config.APP_URL} (Node ${process.version})`,
    );
  });

  const shutdown = async (signal: string) => {
    log.info({ signal }, 'shutting down');
    server.close();
    await stopJobs().catch((err: unknown) => log.error({ err }, 'job runner did not stop cleanly'));
    await runDomainShutdowns();
    await closeDb().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

/** One structured line per request; the query string is left out, it may carry tokens. */
function logWhenDone(accessLog: Logger, req: IncomingMessage, res: ServerResponse, url: string): void {
  const started = process.hrtime.bigint();
  res.once('finish', () => {
    accessLog.info(
      {
        reqId: req.headers[INTERNAL_HEADERS.requestId],
        method: req.method,
        path: loggablePath(url),
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      },
      'request',
    );
  });
}

/** Request id and client address are ours to set: whatever a client sent under those names is replaced. */
function stampInternalHeaders(req: IncomingMessage, trustedHops: number | null): void {
  const incomingId = req.headers[INTERNAL_HEADERS.requestId];
  const requestId = typeof incomingId === 'string' && /^[A-Za-z0-9._-]{8,64}$/.test(incomingId) ? incomingId : randomUUID();
  req.headers[INTERNAL_HEADERS.requestId] = requestId;
  req.headers[INTERNAL_HEADERS.clientIp] = clientAddress(req.headers['x-forwarded-for'], req.socket.remoteAddress, trustedHops);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
