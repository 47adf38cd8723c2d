import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter } from '@/server/app';
import { createRequestContext } from '@/server/platform/context';
import { AppError } from '@/server/platform/errors';
import { MAX_BODY_BYTES } from '@/server/platform/rest/handler';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** One HTTP request may carry a batch of calls; more than this is refused. */
const MAX_BATCH_SIZE = 10;

/** The body as bytes, or null once it passes the cap that /v1 has too: nothing reads an unbounded body. */
async function cappedBody(req: Request): Promise<ArrayBuffer | null> {
  if (Number(req.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) return null;
  if (!req.body) return new ArrayBuffer(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes.buffer;
}

function tooLarge(): Response {
  const message = 'Request body too large';
  return Response.json(
    { error: { message, code: -32600, data: { code: 'PAYLOAD_TOO_LARGE', httpStatus: 413, appError: { code: 'PAYLOAD_TOO_LARGE', message } } } },
    { status: 413 },
  );
}

async function handler(incoming: Request) {
  let req = incoming;
  if (incoming.method !== 'GET' && incoming.method !== 'HEAD') {
    const body = await cappedBody(incoming);
    if (!body) return tooLarge();
    req = new Request(incoming.url, { method: incoming.method, headers: incoming.headers, body });
  }
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req,
    router: appRouter,
    createContext: async () => {
      const procedures = new URL(req.url).pathname.split('/').pop()?.split(',') ?? [];
      if (procedures.length > MAX_BATCH_SIZE) {
        throw new AppError('BAD_REQUEST', `At most ${MAX_BATCH_SIZE} calls per batch`);
      }
      return createRequestContext(req.headers, req.method, 'trpc');
    },
    // Headers the procedures set (Idempotent-Replayed); the panel sends writes unbatched, one call per request.
    responseMeta: ({ ctx }) => ({ headers: ctx?.responseHeaders }),
  });
}

export { handler as GET, handler as POST };
