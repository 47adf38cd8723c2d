import pino from 'pino';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { RequestContext } from '../context';
import type { AppError as AppErrorType } from '../errors';
import type { AccessRules, SignedInActor } from './access';
import type { Actor } from './actor';
import type { ProjectAccess } from './projectAccess';
import type { ProjectRole } from './roles';

const resolveAccess = vi.hoisted(() => vi.fn<(userId: string, ref: string) => Promise<ProjectAccess | null>>());
vi.mock('./projectAccess', () => ({ resolveProjectAccess: resolveAccess }));

// Under vitest.config.ts, test/setup.ts has already loaded the app, so the cached access.ts is bound
// to the real resolver; only a fresh copy picks up the mock above.
vi.resetModules();
const { requireProjectRole, requireSignedIn } = await import('./access');
const { AppError } = await import('../errors');

const PROJECT: ProjectAccess['project'] = {
  id: 'prj_home',
  slug: 'home',
  name: 'Home',
  billerUserId: 'usr_owner',
  createdByUserId: 'usr_owner',
  billingEmail: null,
  blockedAt: null,
  blockedReason: null,
  suspendedAt: null,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  updatedAt: new Date('2026-01-01T00:00:00Z'),
};

const session: SignedInActor = { kind: 'session', userId: 'usr_1' };
const apiKey = (scopes: string[], projectId = PROJECT.id): SignedInActor => ({
  kind: 'apiKey',
  userId: 'usr_1',
  keyId: 'key_1',
  keyPrefix: 'cpk_abcdefgh',
  projectId,
  scopes,
  role: 'owner',
});

function ctx(actor: Actor, crossSiteWrite = false): RequestContext {
  return {
    actor,
    requestId: 'req_1',
    ip: '203.0.113.9',
    transport: 'rest',
    crossSiteWrite,
    idempotencyKey: null,
    responseHeaders: {},
    log: pino({ level: 'silent' }),
  };
}

async function refusal(fn: () => unknown): Promise<{ code: string; status: number; message: string }> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const { code, status, message } = err as AppErrorType;
    return { code, status, message };
  }
  throw new Error('expected a refusal, but the call was allowed');
}

const UNAUTHENTICATED = { code: 'UNAUTHORIZED', status: 401, message: 'Authentication required: send an API key or sign in' };
const CROSS_SITE = {
  code: 'FORBIDDEN',
  status: 403,
  message: 'Cookie-authenticated writes need a same-origin Origin header and a JSON (or, for uploads, octet-stream) body',
};
const SESSION_ONLY = {
  code: 'FORBIDDEN',
  status: 403,
  message: 'This operation requires a signed-in session; API keys cannot call it',
};
const HIDDEN = { code: 'NOT_FOUND', status: 404, message: 'Project not found' };
const forbidden = (message: string) => ({ code: 'FORBIDDEN', status: 403, message });

describe('requireSignedIn', () => {
  it('turns away a request without credentials with 401', async () => {
    expect(await refusal(() => requireSignedIn(ctx({ kind: 'anonymous' }), {}))).toEqual(UNAUTHENTICATED);
  });

  it('turns away a bad credential with 401 and says what is wrong with it', async () => {
    const actor: Actor = { kind: 'invalid', reason: 'This API key has been revoked' };
    expect(await refusal(() => requireSignedIn(ctx(actor), {}))).toEqual({
      code: 'UNAUTHORIZED',
      status: 401,
      message: 'This API key has been revoked',
    });
  });

  it('answers 401, not 403, when a cross-site write carries no valid credential', async () => {
    expect(await refusal(() => requireSignedIn(ctx({ kind: 'anonymous' }, true), {}))).toEqual(UNAUTHENTICATED);
    const stale: Actor = { kind: 'invalid', reason: 'Session has ended; sign in again' };
    expect(await refusal(() => requireSignedIn(ctx(stale, true), {}))).toMatchObject({ status: 401 });
  });

  it('lets a signed-in session through, whatever scopes or session-only rule the operation has', () => {
    const rules: AccessRules = { scopes: ['servers:write'], sessionOnly: true };
    expect(requireSignedIn(ctx(session), rules)).toBe(session);
    expect(requireSignedIn(ctx(session), {})).toBe(session);
  });

  it('refuses a cookie-authenticated write from another site with 403', async () => {
    expect(await refusal(() => requireSignedIn(ctx(session, true), {}))).toEqual(CROSS_SITE);
  });

  it('refuses an API key on a session-only operation, even one holding every scope', async () => {
    const key = apiKey(['projects:read', 'projects:write']);
    expect(await refusal(() => requireSignedIn(ctx(key), { sessionOnly: true }))).toEqual(SESSION_ONLY);
    expect(await refusal(() => requireSignedIn(ctx(key), { sessionOnly: true, scopes: ['projects:read'] }))).toEqual(SESSION_ONLY);
  });

  it('lets an API key holding the scopes through', () => {
    const key = apiKey(['servers:read', 'servers:write']);
    expect(requireSignedIn(ctx(key), { scopes: ['servers:read', 'servers:write'], sessionOnly: false })).toBe(key);
  });

  it('lets an API key with no scopes call an operation that requires none', () => {
    const key = apiKey([]);
    expect(requireSignedIn(ctx(key), {})).toBe(key);
    expect(requireSignedIn(ctx(key), { scopes: [] })).toBe(key);
  });

  it('refuses an API key lacking a scope with 403 naming it', async () => {
    const key = apiKey(['servers:read']);
    expect(await refusal(() => requireSignedIn(ctx(key), { scopes: ['servers:read', 'servers:write'] }))).toEqual(
      forbidden('API key lacks the scope servers:write'),
    );
  });

  it('names every missing scope, in the order the operation lists them', async () => {
    const key = apiKey(['servers:read']);
    const rules: AccessRules = { scopes: ['domains:write', 'servers:read', 'servers:write'] };
    expect(await refusal(() => requireSignedIn(ctx(key), rules))).toEqual(forbidden('API key lacks the scope domains:write, servers:write'));
  });

  it('accepts storage for object-storage on an API key', () => {
    const key = apiKey(['storage:write']);
    expect(requireSignedIn(ctx(key), { scopes: ['object-storage:write'] })).toBe(key);
  });
});

describe('requireProjectRole', () => {
  const grant = (role: ProjectRole | null, project = PROJECT) => resolveAccess.mockResolvedValue({ project, role });

  beforeEach(() => {
    resolveAccess.mockReset();
  });

  it('looks the project up by the reference given, for the calling user', async () => {
    grant('viewer');
    await requireProjectRole(session, 'home', {});
    expect(resolveAccess).toHaveBeenCalledExactlyOnceWith('usr_1', 'home');
  });

  it('answers 404 for a project that does not exist, whatever the rules', async () => {
    resolveAccess.mockResolvedValue(null);
    expect(await refusal(() => requireProjectRole(session, 'nope', {}))).toEqual(HIDDEN);
    expect(await refusal(() => requireProjectRole(session, 'nope', { hideForbiddenAsNotFound: false }))).toEqual(HIDDEN);
  });

  it('returns the project and the caller role when the role suffices', async () => {
    grant('admin');
    expect(await requireProjectRole(session, 'home', { role: 'admin' })).toEqual({ project: PROJECT, role: 'admin' });
  });

  it('admits any member, viewers included, when the operation names no role', async () => {
    grant('viewer');
    expect(await requireProjectRole(session, 'home', {})).toEqual({ project: PROJECT, role: 'viewer' });
  });

  it('refuses a signed-in user who is not a member with 403', async () => {
    grant(null);
    expect(await refusal(() => requireProjectRole(session, 'home', {}))).toEqual(forbidden('You are not a member of this project'));
  });

  it.each([
    ['member', 'owner', 'This operation needs the owner role'],
    ['admin', 'owner', 'This operation needs the owner role'],
    ['member', 'admin', 'This operation needs the owner or admin role'],
    ['viewer', 'member', 'This operation needs a role other than viewer'],
  ] as const)('refuses a %s on an operation needing %s with 403 saying which roles would do', async (role, required, message) => {
    grant(role);
    expect(await refusal(() => requireProjectRole(session, 'home', { role: required }))).toEqual(forbidden(message));
  });

  it('lets an API key act on its own project with its creator role', async () => {
    grant('member');
    const key = apiKey(['servers:write']);
    expect(await requireProjectRole(key, 'home', { role: 'member' })).toEqual({ project: PROJECT, role: 'member' });
  });

  it('refuses an API key on another project with 403, even when its creator is the owner there', async () => {
    grant('owner');
    const key = apiKey(['projects:read'], 'prj_elsewhere');
    expect(await refusal(() => requireProjectRole(key, 'home', {}))).toEqual(forbidden('This API key belongs to another project'));
  });

  it('refuses an API key whose creator has left the project', async () => {
    grant(null);
    expect(await refusal(() => requireProjectRole(apiKey(['projects:read']), 'home', {}))).toEqual(forbidden('You are not a member of this project'));
  });

  describe('with hideForbiddenAsNotFound', () => {
    const rules = (role?: ProjectRole): AccessRules => ({ hideForbiddenAsNotFound: true, role });

    it('answers a non-member 404, so the project cannot be told apart from a missing one', async () => {
      grant(null);
      expect(await refusal(() => requireProjectRole(session, 'home', rules()))).toEqual(HIDDEN);
    });

    it('answers an API key of another project 404', async () => {
      grant('owner');
      expect(await refusal(() => requireProjectRole(apiKey([], 'prj_elsewhere'), 'home', rules()))).toEqual(HIDDEN);
    });

    it('answers a member whose role is too low 404', async () => {
      grant('admin');
      expect(await refusal(() => requireProjectRole(session, 'home', rules('owner')))).toEqual(HIDDEN);
    });

    it('still lets a member with the role through', async () => {
      grant('owner');
      expect(await requireProjectRole(session, 'home', rules('owner'))).toEqual({ project: PROJECT, role: 'owner' });
    });
  });
});
