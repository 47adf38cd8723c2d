import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import type { Actor } from './auth/actor';
import { ROLE_DESCRIPTION, roleAtLeast, type ProjectRole, type RequiredRole } from './auth/roles';
import { hasScopes, missingScopes, type Scope } from './auth/scopes';
import type { RequestContext } from './context';
import { AppError, toAppError, TRPC_CODE_OF } from './errors';
import { resolveProjectAccess, type ProjectAccess } from './auth/projectAccess';

export interface ProcedureMeta extends OpenApiMeta {
  /** Scopes an API key must hold; R/W operations list both. */
  scopes?: Scope[];
  /** The least project role the caller needs (project-scoped procedures). */
  role?: RequiredRole;
  /** Only the panel's session may call it; API keys get 403. */
  sessionOnly?: boolean;
  /** Answer 404 rather than 403 when the caller may not see the project (SPEC: project get and delete). */
  hideForbiddenAsNotFound?: boolean;
  /** HTTP status of a successful REST call: 201 for creations, 204 for empty answers. */
  successStatus?: 200 | 201 | 204;
  /** Cache-Control of a successful REST answer, for responses identical for every caller (the catalogue). */
  cacheControl?: string;
}

const t = initTRPC
  .context<RequestContext>()
  .meta<ProcedureMeta>()
  .create({
    errorFormatter({ shape, error }) {
      const app = toAppError(error);
      return {
        message: app.message,
        code: shape.code,
        data: {
          code: shape.data.code,
          httpStatus: app.status,
          path: shape.data.path,
          appError: { code: app.code, message: app.message, docsUrl: app.docsUrl, headers: app.headers },
        },
      };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Re-throws AppErrors with the matching tRPC code so /api/trpc answers with the right status too. */
const mapAppErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) {
    const app = toAppError(result.error);
    throw new TRPCError({ code: TRPC_CODE_OF[app.status] ?? 'INTERNAL_SERVER_ERROR', message: app.message, cause: app });
  }
  return result;
});

export const publicProcedure = t.procedure.use(mapAppErrors);

type SignedInActor = Exclude<Actor, { kind: 'anonymous' } | { kind: 'invalid' }>;

const requireActor = t.middleware(({ ctx, meta, next }) => {
  const { actor } = ctx;
  if (actor.kind === 'anonymous') throw new AppError('UNAUTHORIZED', 'Authentication required: send an API key or sign in');
  if (actor.kind === 'invalid') throw new AppError('UNAUTHORIZED', actor.reason);
  if (ctx.crossSiteWrite) {
    throw new AppError('FORBIDDEN', 'Cookie-authenticated writes need a same-origin Origin header and a JSON body');
  }
  if (actor.kind === 'apiKey') {
    if (meta?.sessionOnly) throw new AppError('FORBIDDEN', 'This operation requires a signed-in session; API keys cannot call it');
    const required = meta?.scopes ?? [];
    if (!hasScopes(actor.scopes, required)) {
      throw new AppError('FORBIDDEN', `API key lacks the scope ${missingScopes(actor.scopes, required).join(', ')}`);
    }
  }
  return next({ ctx: { ...ctx, actor: actor as SignedInActor } });
});

/** Any signed-in caller (session or API key, as meta allows). */
export const authedProcedure = publicProcedure.use(requireActor);

const projectInput = z.object({ projectId: z.string() }).loose();

/**
 * Resolves `{projectId}` (id or slug), then checks that an API key belongs to that project, that
 * the caller is a member and that their role reaches meta.role. Runs before input validation so
 * an unauthorised caller learns nothing from validation messages.
 */
const requireProjectAccess = t.middleware(async ({ ctx, meta, next, getRawInput }) => {
  const actor = ctx.actor as SignedInActor;
  const parsed = projectInput.safeParse(await getRawInput());
  if (!parsed.success) throw new AppError('VALIDATION_ERROR', 'projectId: Required');
  const hide = meta?.hideForbiddenAsNotFound === true;
  const denied = (message: string) => (hide ? new AppError('NOT_FOUND', 'Project not found') : new AppError('FORBIDDEN', message));

  const access = await resolveProjectAccess(actor.userId, decodePathParam(parsed.data.projectId));
  if (!access) throw new AppError('NOT_FOUND', 'Project not found');
  if (actor.kind === 'apiKey' && access.project.id !== actor.projectId) {
    throw denied('This API key belongs to another project');
  }
  if (!access.role) throw denied('You are not a member of this project');
  const required = meta?.role ?? 'viewer';
  if (!roleAtLeast(access.role, required)) throw denied(`This operation needs ${ROLE_DESCRIPTION[required]}`);
  return next({ ctx: { ...ctx, actor, project: access.project, role: access.role as ProjectRole } });
});

export const projectProcedure = authedProcedure.use(requireProjectAccess);

export type ProjectContext = RequestContext & { actor: SignedInActor; project: ProjectAccess['project']; role: ProjectRole };

/** Path parameters can arrive still percent-encoded from the REST bridge; decode them in one place. */
export function decodePathParam(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A path parameter in an input schema: decoded, non-empty. */
export const pathParam = (name: string) =>
  z
    .string()
    .min(1, `${name} is required`)
    .max(200)
    .transform((v) => decodePathParam(v));
