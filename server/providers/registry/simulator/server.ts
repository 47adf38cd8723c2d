import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getLogger } from '../../../platform/logger';
import { accessRecords, authorize, type TokenAuthOptions } from './auth';
import { handleBlobRoute } from './blobRoute';
import { dispatchMethod, type RequestContext } from './context';
import { GO_ERROR, RegistryError, writeErrors } from './errors';
import { createEvent, requestRecord, type RegistryNotification, type SourceRecord } from './events';
import { handleManifestRoute } from './manifestRoute';
import { matchRoute, nameTooLong, type RouteName } from './routes';
import type { RegistryStorage } from './storage';
import { handleTagRoute } from './tagRoute';
import { handleUploadRoute } from './uploadRoute';

export interface DispatcherOptions {
  auth: TokenAuthOptions;
  storage: RegistryStorage;
  source: SourceRecord;
  publish(event: RegistryNotification): void;
}

/** `GET /v2/`: any method, once the token is valid. */
async function apiBase(ctx: RequestContext): Promise<void> {
  ctx.res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': '2' });
  ctx.res.end('{}');
}

const ROUTE_HANDLERS: Record<RouteName, (ctx: RequestContext) => Promise<void>> = {
  base: apiBase,
  tags: handleTagRoute,
  manifest: handleManifestRoute,
  blob: handleBlobRoute,
  'blob-upload': handleUploadRoute,
  'blob-upload-chunk': handleUploadRoute,
  // Unreachable: our tokens never grant `registry:catalog:*`, so authorization refuses first.
  catalog: (ctx) => dispatchMethod(ctx, {}),
};

function redirect(req: IncomingMessage, res: ServerResponse, location: string): void {
  // Go's http.Redirect: a short HTML body for GET and HEAD only.
  const body = req.method === 'GET' || req.method === 'HEAD' ? `<a href="${location}">Moved Permanently</a>.\n\n` : '';
  res.writeHead(301, {
    Location: location,
    ...(body ? { 'Content-Type': 'text/html; charset=utf-8' } : {}),
    'Content-Length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

/**
 * Distribution's request pipeline: route (a path it would not route is a plain 404), authorize
 * (before anything is looked up, so a refused request learns nothing), resolve the repository
 * name, then the route's handler; errors thrown on the way become the error envelope.
 */
async function dispatch(req: IncomingMessage, res: ServerResponse, options: DispatcherOptions): Promise<void> {
  res.setHeader('Docker-Distribution-API-Version', 'registry/2.0');
  const url = new URL(req.url ?? '/', 'http://registry.invalid');
  const match = matchRoute(url.pathname, url.search);
  if (!match) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': '19' });
    res.end('404 page not found\n');
    return;
  }
  if ('redirect' in match) return redirect(req, res, match.redirect);
  const { route } = match;
  const records = accessRecords(req.method ?? 'GET', route.name, route.repository, url.searchParams.get('from'));
  const auth = authorize(req.headers.authorization, records, options.auth);
  if (!auth.authorized) {
    writeErrors(res, [{ code: 'UNAUTHORIZED', detail: records.length > 0 ? records : null }], { 'WWW-Authenticate': auth.challenge });
    return;
  }
  if (route.name !== 'base' && route.name !== 'catalog' && nameTooLong(route.repository)) {
    // reference.WithName refuses it with an error Distribution has no code for: 500 UNKNOWN.
    writeErrors(res, [{ code: 'UNKNOWN', detail: { Name: route.repository, Reason: GO_ERROR } }]);
    return;
  }
  const request = requestRecord(req, randomUUID());
  const ctx: RequestContext = {
    req,
    res,
    url,
    route,
    subject: auth.subject,
    storage: options.storage,
    emit: (action, target) => options.publish(createEvent(action, target, request, auth.subject, options.source)),
  };
  await ROUTE_HANDLERS[route.name](ctx);
}

export function createDispatcher(options: DispatcherOptions): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    dispatch(req, res, options).catch((err: unknown) => {
      // A client that went away mid-request (an aborted upload) has nobody left to answer.
      if (res.headersSent || req.socket?.destroyed !== false) {
        res.destroy();
        return;
      }
      if (err instanceof RegistryError) {
        writeErrors(res, err.items);
        return;
      }
      getLogger().error({ err: (err as Error).message, method: req.method, path: req.url?.split('?')[0] }, 'registry simulator: request failed');
      writeErrors(res, [{ code: 'UNKNOWN', detail: GO_ERROR }]);
    });
  };
}
