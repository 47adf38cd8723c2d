/**
 * The reference point of the bench: GET /v1/projects/{projectId} written as directly as it can
 * be, a bare node:http server and postgres.js with prepared statements (its default), doing the
 * same key lookup, checks and project read as the real endpoint and answering the same envelope.
 * It only serves that one route; the bench compares its answers with ours before loading both.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import postgres from 'postgres';
import { looksLikeApiKey, sha256Hex } from '../server/platform/auth/tokens';

type Role = 'owner' | 'admin' | 'member' | 'viewer';

interface KeyRow {
  id: string;
  projectId: string;
  userId: string;
  scopes: string[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  role: Role | null;
}

interface ProjectRow {
  id: string;
  name: string;
  slug: string;
  billingEmail: string | null;
  blockedAt: Date | null;
  blockedReason: string | null;
  suspendedAt: Date | null;
  createdAt: Date;
  role: Role | null;
  members: number;
}

const PATH_PREFIX = '/v1/projects/';
const LAST_USED_RESOLUTION_MS = 60_000;
const REQUIRED_SCOPE = 'projects:read';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const sql = postgres(databaseUrl, { max: Number(process.env.DATABASE_POOL_SIZE ?? 10), onnotice: () => {} });

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function resolveKey(authorization: string | undefined, xApiKey: string | undefined): Promise<KeyRow> {
  const bearer = authorization?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
  const key = bearer ?? xApiKey?.trim();
  if (!key) {
    if (authorization) throw new HttpError(401, 'UNAUTHORIZED', 'Unsupported Authorization scheme; use Bearer <API key>');
    throw new HttpError(401, 'UNAUTHORIZED', 'Authentication required: send an API key or sign in');
  }
  if (!looksLikeApiKey(key)) throw new HttpError(401, 'UNAUTHORIZED', 'Invalid API key');
  const [row] = await sql<KeyRow[]>`
    select k.id, k.project_id as "projectId", k.created_by_user_id as "userId", k.scopes,
           k.expires_at as "expiresAt", k.revoked_at as "revokedAt", k.last_used_at as "lastUsedAt", m.role
    from api_keys k
    left join memberships m on m.project_id = k.project_id and m.user_id = k.created_by_user_id
    where k.key_hash = ${sha256Hex(key)}
    limit 1`;
  if (!row) throw new HttpError(401, 'UNAUTHORIZED', 'Invalid API key');
  if (row.revokedAt) throw new HttpError(401, 'UNAUTHORIZED', 'This API key has been revoked');
  const now = new Date();
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) throw new HttpError(401, 'UNAUTHORIZED', 'This API key has expired');
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await sql`update api_keys set last_used_at = ${now} where id = ${row.id}`;
  }
  if (!row.scopes.includes(REQUIRED_SCOPE)) throw new HttpError(403, 'FORBIDDEN', `API key lacks the scope ${REQUIRED_SCOPE}`);
  return row;
}

async function getProject(key: KeyRow, ref: string): Promise<string> {
  const [row] = await sql<ProjectRow[]>`
    select p.id, p.name, p.slug, p.billing_email as "billingEmail", p.blocked_at as "blockedAt",
           p.blocked_reason as "blockedReason", p.suspended_at as "suspendedAt", p.created_at as "createdAt", m.role,
           (select count(*)::int from memberships c where c.project_id = p.id) as members
    from projects p
    left join memberships m on m.project_id = p.id and m.user_id = ${key.userId}
    where p.id = ${ref} or p.slug = ${ref.toLowerCase()}
    limit 1`;
  // Any refusal reads as absence on this endpoint, as SPEC asks of project get.
  if (!row || row.id !== key.projectId || !row.role) throw new HttpError(404, 'NOT_FOUND', 'Project not found');
  return JSON.stringify({
    success: true,
    data: {
      id: row.id,
      name: row.name,
      slug: row.slug,
      billingEmail: row.billingEmail,
      blockedAt: row.blockedAt?.toISOString() ?? null,
      blockedReason: row.blockedReason,
      suspendedAt: row.suspendedAt?.toISOString() ?? null,
      createdAt: row.createdAt.toISOString(),
      role: row.role,
      _count: { servers: 0, domains: 0, members: row.members, apps: 0, objectStorages: 0, containerRegistries: 0, databaseClusters: 0 },
    },
  });
}

function send(res: ServerResponse, requestId: string, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': requestId }).end(body);
}

function decodeRef(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const server = createServer((req, res) => {
  const requestId = randomUUID();
  const url = req.url ?? '/';
  const path = url.split('?', 1)[0]!;
  const ref = path.startsWith(PATH_PREFIX) ? path.slice(PATH_PREFIX.length).replace(/\/+$/, '') : '';
  if (!ref || ref.includes('/')) {
    send(res, requestId, 404, JSON.stringify({ success: false, error: { code: 'NOT_FOUND', message: `No endpoint at ${req.method} ${path}` } }));
    return;
  }
  if (req.method !== 'GET') {
    res.setHeader('allow', 'GET, PATCH, DELETE');
    send(res, requestId, 405, JSON.stringify({ success: false, error: { code: 'METHOD_NOT_ALLOWED', message: `${req.method} is not allowed on ${path}` } }));
    return;
  }
  const authorization = req.headers.authorization;
  const xApiKey = req.headers['x-api-key'];
  resolveKey(authorization, typeof xApiKey === 'string' ? xApiKey : undefined)
    .then((key) => getProject(key, decodeRef(ref)))
    .then(
      (body) => send(res, requestId, 200, body),
      (err: unknown) => {
        if (err instanceof HttpError) {
          send(res, requestId, err.status, JSON.stringify({ success: false, error: { code: err.code, message: err.message } }));
          return;
        }
        console.error(err);
        send(res, requestId, 500, '{"success":false,"error":{"code":"INTERNAL_ERROR","message":"Internal server error"}}');
      },
    );
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 3001), process.env.HOST ?? '127.0.0.1');

const shutdown = () => {
  server.close();
  void sql.end({ timeout: 5 }).finally(() => process.exit(0));
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
