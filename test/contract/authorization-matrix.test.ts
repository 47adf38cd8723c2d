import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROLES, roleAtLeast, type ProjectRole } from '../../server/platform/auth/roles';
import { ALL_SCOPES, type Scope } from '../../server/platform/auth/scopes';
import { restApi } from '../../server/app';
import { api, createApiKey, createProject, createUser, type ApiResult, type Credentials, type TestUser } from '../helpers';
import { databaseFingerprint, queryRows } from '../db';

/**
 * Walks every operation of the generated OpenAPI document, so operations added later are covered
 * without new test code: each refused call must be refused with the right status and leave the
 * database untouched, except that a refused write by a known caller leaves exactly one audit
 * entry carrying its code (and a read or a 401 none).
 */
interface Operation {
  method: string;
  path: string;
  isPublic: boolean;
  sessionOnly: boolean;
  anyCredential: boolean;
  scopes: Scope[];
  role: ProjectRole | undefined;
  hidesAsNotFound: boolean;
}

const doc = restApi.openApiDocument();
const operations: Operation[] = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
  Object.entries(item as Record<string, Record<string, unknown>>).map(([method, op]) => ({
    method: method.toUpperCase(),
    path,
    isPublic: Array.isArray(op.security) && op.security.length === 0,
    sessionOnly: op['x-session-only'] === true,
    anyCredential: op['x-any-credential'] === true,
    scopes: (op['x-required-scopes'] as Scope[] | undefined) ?? [],
    role: op['x-required-role'] as ProjectRole | undefined,
    hidesAsNotFound: op['x-forbidden-as-not-found'] === true,
  })),
);
const label = (op: Operation) => `${op.method} ${op.path}`;
const projectScoped = (op: Operation) => op.path.includes('{projectId}');

interface World {
  owner: TestUser;
  outsider: TestUser;
  members: Record<ProjectRole, TestUser>;
  projectId: string;
  params: Record<string, string>;
  keys: { otherProject: string; wrongScopeFor: (op: Operation) => Promise<string>; fullFor: Record<ProjectRole, string> };
}

let world: World;

beforeAll(async () => {
  const owner = await createUser('Owner');
  const { projectId } = await createProject(owner, 'Matrix');
  const members = { owner } as Record<ProjectRole, TestUser>;
  for (const role of PROJECT_ROLES.filter((r) => r !== 'owner')) {
    const user = await createUser(`A ${role}`);
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${user.id}, ${role})`);
    members[role] = user;
  }
  const outsider = await createUser('Outsider');
  const other = await createProject(outsider, 'Elsewhere');
  const otherKey = await createApiKey(outsider, other.projectId, [...ALL_SCOPES]);

  // Every member's key holds every scope, so only the role decides; keys are created by the owner session
  // and then attributed to each member, as if each had created their own.
  const fullFor = {} as Record<ProjectRole, string>;
  for (const role of PROJECT_ROLES) {
    const key = await createApiKey(owner, projectId, [...ALL_SCOPES]);
    await queryRows(sql`update api_keys set created_by_user_id = ${members[role].id} where id = ${key.id}`);
    fullFor[role] = key.key;
  }
  const invitationId = 'inv_matrixinvitation01';
  await queryRows(sql`insert into invitations (id, project_id, email, role, invited_by_user_id, expires_at)
    values (${invitationId}, ${projectId}, 'invitee@example.com', 'member', ${owner.id}, now() + interval '1 day')`);
  const anyKey = await createApiKey(owner, projectId, ['projects:read']);

  world = {
    owner,
    outsider,
    members,
    projectId,
    params: { projectId, keyId: anyKey.id, userId: members.member.id, invitationId },
    keys: {
      otherProject: otherKey.key,
      fullFor,
      wrongScopeFor: async (op) => {
        const wrong = ALL_SCOPES.find((s) => !op.scopes.includes(s) && !s.startsWith(op.scopes[0]?.split(':')[0] ?? '#')) as Scope;
        return (await createApiKey(owner, projectId, [wrong])).key;
      },
    },
  };
  // Warm every key once so lastUsedAt bookkeeping happens before the fingerprints are taken.
  for (const key of [...Object.values(fullFor), otherKey.key]) await api('GET', '/v1/projects', { key });
});

function urlFor(op: Operation): string {
  return `/v1${op.path.replace(/\{(\w+)\}/g, (_, name: string) => world.params[name] ?? `unknown-${name}`)}`;
}

async function call(op: Operation, credentials: Credentials): Promise<ApiResult> {
  const hasBody = op.method === 'POST' || op.method === 'PATCH' || op.method === 'PUT';
  return api(op.method, urlFor(op), { ...credentials, body: hasBody ? {} : undefined });
}

async function expectRefused(op: Operation, credentials: Credentials, status: number, code: string) {
  const before = await databaseFingerprint();
  const audited = await auditEntries();
  const res = await call(op, credentials);
  expect({ status: res.status, code: res.body && !res.body.success ? res.body.error.code : 'success' }, label(op)).toEqual({ status, code });
  expect(await databaseFingerprint(), `${label(op)} changed the database`).toEqual(before);
  const added = (await auditEntries()).filter((entry) => !audited.some((old) => old.id === entry.id)).map((entry) => entry.outcome);
  const recorded = op.method !== 'GET' && status !== 401;
  expect(added, `${label(op)} audit entries`).toEqual(recorded ? [code] : []);
}

async function auditEntries(): Promise<{ id: string; outcome: string }[]> {
  return queryRows(sql`select id, outcome from audit_entries`);
}

interface MatrixCase {
  name: string;
  run(): Promise<void>;
}

/** The refusals that apply to an operation: only these become tests, none is skipped. */
function casesFor(op: Operation): MatrixCase[] {
  const cases: MatrixCase[] = [
    { name: 'answers 401 without credentials', run: () => expectRefused(op, {}, 401, 'UNAUTHORIZED') },
    op.anyCredential
      ? {
          name: 'answers an API key whatever its scopes',
          run: async () => {
            const res = await call(op, { key: await world.keys.wrongScopeFor(op) });
            expect(res.status, label(op)).toBeLessThan(300);
          },
        }
      : {
          name: 'answers 403 to an API key lacking its scopes (or any key, when session-only)',
          run: async () => expectRefused(op, { key: await world.keys.wrongScopeFor(op) }, 403, 'FORBIDDEN'),
        },
  ];
  if (!projectScoped(op)) return cases;
  cases.push(
    {
      name: 'refuses a key of another project',
      run: () => expectRefused(op, { key: world.keys.otherProject }, ...(op.sessionOnly ? ([403, 'FORBIDDEN'] as [number, string]) : forbiddenOrHidden(op))),
    },
    { name: 'refuses a signed-in non-member', run: () => expectRefused(op, { cookie: world.outsider.cookie }, ...forbiddenOrHidden(op)) },
  );
  const required = op.role;
  for (const role of required ? PROJECT_ROLES.filter((r) => !roleAtLeast(r, required)) : []) {
    cases.push({
      name: `refuses a ${role} (needs ${required})`,
      run: async () => {
        await expectRefused(op, { cookie: world.members[role].cookie }, ...forbiddenOrHidden(op));
        if (!op.sessionOnly) await expectRefused(op, { key: world.keys.fullFor[role] }, ...forbiddenOrHidden(op));
      },
    });
  }
  return cases;
}

const forbiddenOrHidden = (op: Operation): [number, string] => (op.hidesAsNotFound ? [404, 'NOT_FOUND'] : [403, 'FORBIDDEN']);

describe('authorization matrix over the OpenAPI document', () => {
  it('finds the operations and every protected one declares scopes, session-only or any credential', () => {
    expect(operations.length).toBeGreaterThan(10);
    for (const op of operations.filter((o) => !o.isPublic)) {
      expect(
        [op.sessionOnly, op.scopes.length > 0, op.anyCredential].filter(Boolean),
        `${label(op)} declares not exactly one of scopes, session-only, any credential`,
      ).toHaveLength(1);
    }
    for (const op of operations.filter((o) => o.isPublic)) expect(projectScoped(op), `${label(op)} is public but project-scoped`).toBe(false);
  });

  it('covers the audit log: owners and admins, and API keys holding audit:read', () => {
    const auditLog = operations.find((o) => label(o) === 'GET /projects/{projectId}/audit-log');
    expect(auditLog).toMatchObject({ isPublic: false, sessionOnly: false, scopes: ['audit:read'], role: 'admin', hidesAsNotFound: false });
  });

  it('covers secrets: reads for every member with secrets:read; writes and the secret audit for owners and admins', () => {
    const secretOps = Object.fromEntries(operations.filter((o) => o.path.includes('/secrets')).map((o) => [label(o), { scopes: o.scopes, role: o.role }]));
    const read = { scopes: ['secrets:read'], role: 'viewer' };
    const write = { scopes: ['secrets:write'], role: 'admin' };
    expect(secretOps).toEqual({
      'GET /projects/{projectId}/secrets': read,
      'POST /projects/{projectId}/secrets': write,
      'GET /projects/{projectId}/secrets/usage': read,
      'GET /projects/{projectId}/secrets/upgrade/preview': read,
      'POST /projects/{projectId}/secrets/upgrade': write,
      'GET /projects/{projectId}/secrets/{secretId}': read,
      'PATCH /projects/{projectId}/secrets/{secretId}': write,
      'DELETE /projects/{projectId}/secrets/{secretId}': write,
      'GET /projects/{projectId}/secrets/{secretId}/audit': { scopes: ['secrets:read'], role: 'admin' },
    });
  });

  it('covers webhooks: members read, owners and admins write, any credential reads the event catalogue', () => {
    const webhookOps = operations.filter((o) => o.path.startsWith('/projects/{projectId}/webhooks'));
    expect(webhookOps.length).toBe(11);
    for (const op of webhookOps) {
      const write = op.method !== 'GET';
      expect(op, label(op)).toMatchObject(
        write ? { scopes: ['webhooks:read', 'webhooks:write'], role: 'admin' } : { scopes: ['webhooks:read'], role: 'viewer' },
      );
    }
    expect(operations.find((o) => label(o) === 'GET /webhooks/event-types')).toMatchObject({ isPublic: false, anyCredential: true, scopes: [] });
  });

  describe.each(operations.filter((o) => !o.isPublic).map((o) => [label(o), o] as const))('%s', (_name, op) => {
    it.each(casesFor(op).map((c) => [c.name, c] as const))('%s', async (_case, c) => {
      await c.run();
    });
  });
});
