import type { IncomingMessage, ServerResponse } from 'node:http';
import { writePlain } from './errors';
import type { EventAction, EventTarget } from './events';
import type { Route } from './routes';
import type { RegistryStorage } from './storage';

/** One authorized request on one route, as the handlers see it. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  route: Route;
  /** The token's `sub`: the events' actor ('' when anonymous). */
  subject: string;
  storage: RegistryStorage;
  /** Queues a notification about this request. */
  emit(action: EventAction, target: EventTarget): void;
}

export type Handler = (ctx: RequestContext) => Promise<void>;

/**
 * gorilla's MethodHandler, which Distribution wraps each route in: OPTIONS answers the Allow list,
 * any other method without a handler gets a plain-text 405.
 */
export async function dispatchMethod(ctx: RequestContext, handlers: Readonly<Record<string, Handler>>): Promise<void> {
  const method = ctx.req.method ?? 'GET';
  const handler = handlers[method];
  if (handler) return handler(ctx);
  const allow = Object.keys(handlers).sort().join(', ');
  if (method === 'OPTIONS') {
    ctx.res.writeHead(200, { Allow: allow, 'Content-Length': '0' });
    ctx.res.end();
    return;
  }
  writePlain(ctx.res, 405, 'Method not allowed', { Allow: allow });
}

/**
 * The whole body, or null as soon as it passes `limit` bytes. The rest is then read and dropped
 * (Go closes the connection instead; either way the client gets the answer).
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      length += chunk.length;
      if (length <= limit) {
        chunks.push(chunk);
        return;
      }
      stop();
      req.resume();
      resolve(null);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const onClose = () => {
      stop();
      reject(new Error('client disconnected'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
  });
}

/** An answer without a body: `Content-Length: 0`, except on a 204, where Go leaves the header out. */
export function writeEmpty(res: ServerResponse, status: number, headers: Record<string, string>): void {
  const { 'Content-Length': _length, ...rest } = headers;
  res.writeHead(status, status === 204 ? rest : { ...rest, 'Content-Length': '0' });
  res.end();
}
