import { initTRPC, TRPCError } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { auditMutation } from './audit';
import { requireAuthenticated, requireCallerRules, requireProjectRole, type AccessRules, type SignedInActor } from './auth/access';
import type { ProjectAccess } from './auth/projectAccess';
import type { ProjectRole } from './auth/roles';
import type { RequestContext } from './context';
import { getConfig } from './config';
import { AppError, isInputSchemaFailure, toAppError, TRPC_CODE_OF, validationError, type ErrorCode } from './errors';
import { idempotently } from './idempotency';
import { refuseUnstorableText } from './storableText';

export interface ProcedureMeta extends OpenApiMeta, AccessRules {
  /** HTTP status of a successful REST call: 201 for creations, 204 for empty answers. */
  successStatus?: 200 | 201 | 202 | 204;
  /** Cache-Control of a successful REST answer, for responses identical for every caller (the catalogue). */
  cacheControl?: string;
  /** A page of ours (a path such as `/docs/ssh-keys`) that every refusal of the operation links to as `docsUrl`, authentication ones included. */
  docsPath?: string;
  /**
   * The codes the operation's own rules can answer with, beyond those the platform derives from
   * its access, path and method; the document lists both, each under its status from ERROR_STATUS.
   */
  errors?: readonly ErrorCode[];
  /**
   * The code input failing its schema answers instead of VALIDATION_ERROR (422), where SPEC names
   * another status for it (the Redis preview without `planSlug` is a 400). The operation's own
   * refusals keep their codes. List it in `errors` too.
   */
  invalidInputCode?: ErrorCode;
  /**
   * The JSON body as this deployment takes it, when the input schema cannot say it alone (a body
   * whose shape depends on the payments mode); the document shows this one.
   */
  requestBody?: () => z.ZodType;
  /**
   * The path's last parameter takes the rest of the path, slashes included, and may be absent
   * (`…/contents/{path}` also answers `…/contents` with no `path`): a file path in a repository.
   */
  trailingPathParam?: string;
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
          appError: { code: app.code, message: app.message, docsUrl: app.docsUrl, headers: app.headers, fields: app.reportedFields },
        },
      };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** An AppError as the TRPCError whose code gives /api/trpc the right status too, with the operation's docs link on refusals. */
function toTrpcError(error: unknown, meta: ProcedureMeta | undefined): TRPCError {
  let app = toAppError(error);
  if (meta?.invalidInputCode && isInputSchemaFailure(error)) {
    app = new AppError(meta.invalidInputCode, app.message, { headers: app.headers, fields: app.fields, cause: app });
  }
  if (meta?.docsPath && !app.docsUrl && app.status < 500) {
    app = new AppError(app.code, app.message, { docsUrl: `${getConfig().APP_URL}${meta.docsPath}`, headers: app.headers, fields: app.fields, cause: app });
  }
  return new TRPCError({ code: TRPC_CODE_OF[app.status] ?? 'INTERNAL_SERVER_ERROR', message: app.message, cause: app });
}

/**
 * First of every chain: refuses input PostgreSQL cannot store (a NUL or an unpaired surrogate)
 * before any check reads it, and maps every refusal to its tRPC code. One middleware rather than
 * two: each level of a tRPC chain copies the call's options, on every request.
 */
const guardInputAndMapErrors = t.middleware(async ({ meta, getRawInput, next }) => {
  try {
    refuseUnstorableText(await getRawInput());
  } catch (err) {
    throw toTrpcError(err, meta);
  }
  const result = await next();
  if (!result.ok) throw toTrpcError(result.error, meta);
  return result;
});

export const publicProcedure = t.procedure.use(guardInputAndMapErrors);

/**
 * Once the caller is known (a 401 names no one and is not recorded), a mutation is recorded in the
 * audit log whatever happens next, refusals included. See audit.ts.
 */
const requireActorAndAudit = t.middleware(async ({ ctx, type, path, getRawInput, next }) => {
  const actor = requireAuthenticated(ctx);
  if (type !== 'mutation') return next({ ctx: { actor } });
  const call = { ctx, actor, action: path, rawInput: await getRawInput() };
  return auditMutation(call, (audit) => next({ ctx: { actor, audit } }));
});

const enforceCallerRules = t.middleware(({ ctx, meta, next }) => {
  requireCallerRules(ctx, ctx.actor as SignedInActor, meta ?? {});
  return next();
});

/** Past the access checks and before the procedure can write: the audit entry is committed first. */
const writeAuditAhead = t.middleware(async ({ ctx, next }) => {
  await ctx.audit?.writeAhead();
  return next();
});

const signedInProcedure = publicProcedure.use(requireActorAndAudit).use(enforceCallerRules);

/** After the access checks: a write sent with an Idempotency-Key runs once per caller and key (idempotency.ts). */
const idempotent = t.middleware(({ ctx, type, path, getRawInput, next }) => idempotently({ ctx, type, path, getRawInput }, () => next()));

/** Any signed-in caller (session or API key, as meta allows). */
export const authedProcedure = signedInProcedure.use(idempotent).use(writeAuditAhead);

/**
 * Checks the caller's access to `{projectId}` before input validation, so an unauthorised caller
 * learns nothing from validation messages.
 */
const requireProjectAccess = t.middleware(async ({ ctx, meta, next, getRawInput }) => {
  const actor = ctx.actor as SignedInActor;
  const { project, role } = await requireProjectRole(actor, projectRefOf(await getRawInput()), meta ?? {}, (projectId) => {
    if (ctx.audit) ctx.audit.projectId = projectId;
  });
  return next({ ctx: { actor, project, role } });
});

export const projectProcedure = signedInProcedure.use(requireProjectAccess).use(idempotent).use(writeAuditAhead);

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

type WriteMethod = 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Who may call a resource area's reads and writes: what its operations' metas share. */
export interface AreaAccess {
  tags: string[];
  read: Pick<AccessRules, 'scopes' | 'role' | 'sessionOnly'>;
  write: Pick<AccessRules, 'scopes' | 'role' | 'sessionOnly'>;
  /** Codes every write of the area may answer with (a provider's UPSTREAM_ERROR), when its own list is not given. */
  writeErrors?: readonly ErrorCode[];
}

/**
 * The metas of a resource area's operations, built from its access rules once: `read(path, …)` for
 * a GET, `write(method, path, …)` for the rest.
 */
export function areaMeta(area: AreaAccess) {
  return {
    read(path: `/${string}`, summary: string, description: string, errors: readonly ErrorCode[] = []): ProcedureMeta {
      return { openapi: { method: 'GET', path, tags: area.tags, summary, description }, ...area.read, errors };
    },
    write(method: WriteMethod, path: `/${string}`, summary: string, description: string, errors: readonly ErrorCode[] = area.writeErrors ?? []): ProcedureMeta {
      return { openapi: { method, path, tags: area.tags, summary, description }, ...area.write, errors };
    },
  };
}

const MAX_PATH_PARAM_LENGTH = 200;

/**
 * A path parameter in an input schema: decoded first, then limited, so the limit counts the
 * characters of the id and not the bytes of its percent-encoding.
 */
export const pathParam = (name: string) =>
  z
    .string({ error: `${name} is required` })
    .overwrite(decodePathParam)
    .min(1, `${name} is required`)
    .max(MAX_PATH_PARAM_LENGTH, `${name} must be at most ${MAX_PATH_PARAM_LENGTH} characters`);

const projectRefInput = z.object({ projectId: pathParam('projectId') }).loose();

/** `{projectId}` of a request's raw input, decoded and limited like every path parameter (422 naming it). */
export function projectRefOf(rawInput: unknown): string {
  const parsed = projectRefInput.safeParse(rawInput);
  if (!parsed.success) throw validationError(parsed.error.issues);
  return parsed.data.projectId;
}
