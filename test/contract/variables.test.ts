import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { restApi } from '../../server/app';
import { effectiveVariables } from '../../server/domains/variables';
import type { EffectiveVariable, Variable, VariablesImport } from '../../server/domains/variables/schema';
import { queryRows } from '../db';
import { api, createApiKey, createProject, createUser, expectError, type ApiResult, type TestUser } from '../helpers';

const url = (projectId: string, suffix = '') => `/v1/projects/${projectId}/variables${suffix}`;

let owner: TestUser;
let projectId: string;

beforeAll(async () => {
  owner = await createUser('Ada Owner');
  ({ projectId } = await createProject(owner));
});

async function create(body: Record<string, unknown>, project = projectId, user = owner) {
  return api<Variable>('POST', url(project), { cookie: user.cookie, body });
}

async function importEnv(project: string, body: Record<string, unknown>) {
  return api<VariablesImport>('POST', url(project, '/import'), { cookie: owner.cookie, body });
}

async function names(project: string, environment?: string): Promise<string[]> {
  const list = await api<Variable[]>('GET', url(project, environment ? `?environment=${environment}` : ''), { cookie: owner.cookie });
  return list.data.map((v) => `${v.name}@${v.environment}=${v.value}`);
}

/** `error.fields` of a refusal (the helpers' envelope type leaves it out). */
function fieldsOf(res: ApiResult): Record<string, string> | undefined {
  return res.body && !res.body.success ? (res.body.error as { fields?: Record<string, string> }).fields : undefined;
}

async function eventsOf(project: string, type: string) {
  return queryRows<{ payload: Record<string, unknown> }>(sql`select payload from events where project_id = ${project} and type = ${type} order by seq`);
}

describe('creating, reading, updating and deleting variables', () => {
  it('creates a variable with 201 in `default` unless told, and returns the value in create, list and get', async () => {
    const res = await create({ name: 'API_URL', value: 'https://api.example.com', description: 'Where the app calls' });
    expect(res.status).toBe(201);
    const summary = { id: owner.id, name: owner.name, email: owner.email };
    expect(res.data).toMatchObject({
      name: 'API_URL',
      value: 'https://api.example.com',
      environment: 'default',
      description: 'Where the app calls',
      createdBy: owner.id,
      updatedBy: owner.id,
      createdByUser: summary,
      updatedByUser: summary,
    });
    expect(res.data.id).toMatch(/^var_/);
    expect(res.data.createdAt).toBe(res.data.updatedAt);

    const got = await api<Variable>('GET', url(projectId, `/${res.data.id}`), { cookie: owner.cookie });
    expect(got.data).toEqual(res.data);
    expect((await api<Variable[]>('GET', url(projectId), { cookie: owner.cookie })).data).toContainEqual(res.data);
    expect((await eventsOf(projectId, 'variable.created')).at(-1)?.payload).toEqual({
      variableId: res.data.id,
      name: 'API_URL',
      environment: 'default',
      by: owner.id,
    });
  });

  it('allows an empty value and values up to 10,000 characters, and no description', async () => {
    const empty = await create({ name: 'EMPTY', value: '', environment: 'staging' });
    expect(empty.status).toBe(201);
    expect(empty.data).toMatchObject({ value: '', description: null, environment: 'staging' });
    expect((await create({ name: 'LONG', value: 'x'.repeat(10_000), description: '' })).data.description).toBeNull();
  });

  it.each([
    ['a lower-case name', { name: 'api_url', value: 'x' }, 'name'],
    ['a name starting with a digit', { name: '1API', value: 'x' }, 'name'],
    ['no name', { value: 'x' }, 'name'],
    ['no value', { name: 'NO_VALUE' }, 'value'],
    ['a value of 10,001 characters', { name: 'TOO_LONG', value: 'x'.repeat(10_001) }, 'value'],
    ['a description of 501 characters', { name: 'DESCRIBED', value: 'x', description: 'd'.repeat(501) }, 'description'],
    ['an unknown environment', { name: 'ENVIRONMENTAL', value: 'x', environment: 'prod' }, 'environment'],
  ])('refuses %s with 422 naming the field', async (_label, body, field) => {
    const res = await create(body);
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(fieldsOf(res)).toHaveProperty(field);
  });

  it('answers 409 CONFLICT on a name taken in the same environment, and allows it in another', async () => {
    await create({ name: 'REGION', value: 'eu', environment: 'production' });
    const again = await create({ name: 'REGION', value: 'us', environment: 'production' });
    expectError(again, 409, 'CONFLICT');
    expect(again.body?.success === false && again.body.error.message).toMatch(/REGION already exists in production/);
    expect((await create({ name: 'REGION', value: 'us', environment: 'staging' })).status).toBe(201);
  });

  it('makes one variable of concurrent creations of one name; the others get 409', async () => {
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => create({ name: 'RACE', value: `v${i}`, environment: 'development' })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect((await names(projectId, 'development')).filter((n) => n.startsWith('RACE@'))).toHaveLength(1);
  });

  it('updates the value and description, names who did it, and records which fields changed', async () => {
    const admin = await createUser('Grace Member');
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${projectId}, ${admin.id}, 'member')`);
    const created = (await create({ name: 'LOG_LEVEL', value: 'info', description: 'verbosity' })).data;
    const res = await api<Variable>('PATCH', url(projectId, `/${created.id}`), { cookie: admin.cookie, body: { value: 'debug', description: null } });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({
      value: 'debug',
      description: null,
      createdBy: owner.id,
      updatedBy: admin.id,
      updatedByUser: { id: admin.id, name: 'Grace Member' },
    });
    expect(Date.parse(res.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
    expect((await eventsOf(projectId, 'variable.updated')).at(-1)?.payload).toEqual({
      variableId: created.id,
      name: 'LOG_LEVEL',
      environment: 'default',
      changed: ['value', 'description'],
      by: admin.id,
    });
  });

  it('renames and moves a variable, with 409 when the target already has the name', async () => {
    const moving = (await create({ name: 'MOVING', value: '1', environment: 'development' })).data;
    await create({ name: 'TAKEN', value: '2', environment: 'production' });
    const moved = await api<Variable>('PATCH', url(projectId, `/${moving.id}`), { cookie: owner.cookie, body: { name: 'MOVED', environment: 'staging' } });
    expect(moved.data).toMatchObject({ id: moving.id, name: 'MOVED', environment: 'staging', value: '1' });
    const clash = await api('PATCH', url(projectId, `/${moving.id}`), { cookie: owner.cookie, body: { name: 'TAKEN', environment: 'production' } });
    expectError(clash, 409, 'CONFLICT');
    expect((await api<Variable>('GET', url(projectId, `/${moving.id}`), { cookie: owner.cookie })).data).toMatchObject({
      name: 'MOVED',
      environment: 'staging',
    });
  });

  it('refuses an empty patch or a bad field with 422', async () => {
    const target = (await create({ name: 'PATCHED', value: 'x' })).data;
    expectError(await api('PATCH', url(projectId, `/${target.id}`), { cookie: owner.cookie, body: {} }), 422, 'VALIDATION_ERROR');
    expectError(await api('PATCH', url(projectId, `/${target.id}`), { cookie: owner.cookie, body: { name: 'bad name' } }), 422, 'VALIDATION_ERROR');
    expectError(await api('PATCH', url(projectId, `/${target.id}`), { cookie: owner.cookie, body: { value: 'v'.repeat(10_001) } }), 422, 'VALIDATION_ERROR');
  });

  it('deletes with 204 and no body, then answers 404', async () => {
    const doomed = (await create({ name: 'DOOMED', value: 'x', environment: 'staging' })).data;
    const res = await api('DELETE', url(projectId, `/${doomed.id}`), { cookie: owner.cookie });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expectError(await api('GET', url(projectId, `/${doomed.id}`), { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expectError(await api('DELETE', url(projectId, `/${doomed.id}`), { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expectError(await api('PATCH', url(projectId, `/${doomed.id}`), { cookie: owner.cookie, body: { value: 'y' } }), 404, 'NOT_FOUND');
    expect((await eventsOf(projectId, 'variable.deleted')).at(-1)?.payload).toEqual({
      variableId: doomed.id,
      name: 'DOOMED',
      environment: 'staging',
      by: owner.id,
    });
  });

  it("answers 404 for another project's variable, even to its owner", async () => {
    const { projectId: other } = await createProject(owner);
    const elsewhere = (await create({ name: 'ELSEWHERE', value: 'x' }, other)).data;
    expectError(await api('GET', url(projectId, `/${elsewhere.id}`), { cookie: owner.cookie }), 404, 'NOT_FOUND');
    expectError(await api('DELETE', url(projectId, `/${elsewhere.id}`), { cookie: owner.cookie }), 404, 'NOT_FOUND');
  });
});

describe('environments', () => {
  let project: string;
  beforeAll(async () => {
    project = (await createProject(owner)).projectId;
    for (const [name, value, environment] of [
      ['API_URL', 'https://api.example.com', 'default'],
      ['API_URL', 'https://api.prod.example.com', 'production'],
      ['DEBUG', 'false', 'default'],
      ['SENTRY_DSN', 'https://sentry', 'production'],
      ['FEATURE_X', 'on', 'staging'],
    ]) {
      await create({ name, value, environment }, project);
    }
  });

  it('lists every environment by name, or only the one asked for', async () => {
    expect(await names(project)).toEqual([
      'API_URL@default=https://api.example.com',
      'API_URL@production=https://api.prod.example.com',
      'DEBUG@default=false',
      'FEATURE_X@staging=on',
      'SENTRY_DSN@production=https://sentry',
    ]);
    expect(await names(project, 'production')).toEqual(['API_URL@production=https://api.prod.example.com', 'SENTRY_DSN@production=https://sentry']);
    expect(await names(project, 'development')).toEqual([]);
    expectError(await api('GET', url(project, '?environment=prod'), { cookie: owner.cookie }), 422, 'VALIDATION_ERROR');
  });

  it('gives the effective set of an environment: its own entries over the default ones, marked inherited', async () => {
    const effective = async (environment: string) =>
      (await api<EffectiveVariable[]>('GET', url(project, `/effective?environment=${environment}`), { cookie: owner.cookie })).data.map(
        (v) => `${v.name}=${v.value}${v.inherited ? ' (default)' : ''}`,
      );
    expect(await effective('production')).toEqual(['API_URL=https://api.prod.example.com', 'DEBUG=false (default)', 'SENTRY_DSN=https://sentry']);
    expect(await effective('staging')).toEqual(['API_URL=https://api.example.com (default)', 'DEBUG=false (default)', 'FEATURE_X=on']);
    expect(await effective('default')).toEqual(['API_URL=https://api.example.com', 'DEBUG=false']);
    expectError(await api('GET', url(project, '/effective'), { cookie: owner.cookie }), 422, 'VALIDATION_ERROR');
  });

  it('exports effectiveVariables for deployments, with where each entry comes from', async () => {
    expect(await effectiveVariables(project, 'production')).toEqual([
      { name: 'API_URL', value: 'https://api.prod.example.com', environment: 'production' },
      { name: 'DEBUG', value: 'false', environment: 'default' },
      { name: 'SENTRY_DSN', value: 'https://sentry', environment: 'production' },
    ]);
    expect(await effectiveVariables(project, 'development')).toEqual([
      { name: 'API_URL', value: 'https://api.example.com', environment: 'default' },
      { name: 'DEBUG', value: 'false', environment: 'default' },
    ]);
  });
});

describe('importing a .env file', () => {
  const file = [
    '# app settings',
    'export API_URL=https://api.example.com',
    "GREETING='hello # not a comment'",
    'MULTI="first\\nsecond"',
    'PEM="-----BEGIN-----',
    'abc',
    '-----END-----"',
    'EMPTY=',
    'PORT=3000 # web',
    '',
  ].join('\n');

  it('creates every variable of the file in one environment and reports it', async () => {
    const { projectId: project } = await createProject(owner);
    const res = await importEnv(project, { environment: 'staging', content: file });
    expect(res.status).toBe(200);
    expect(res.data).toEqual({
      environment: 'staging',
      dryRun: false,
      created: ['API_URL', 'GREETING', 'MULTI', 'PEM', 'EMPTY', 'PORT'],
      updated: [],
      unchanged: [],
      skipped: [],
    });
    expect(await names(project, 'staging')).toEqual([
      'API_URL@staging=https://api.example.com',
      'EMPTY@staging=',
      'GREETING@staging=hello # not a comment',
      'MULTI@staging=first\nsecond',
      'PEM@staging=-----BEGIN-----\nabc\n-----END-----',
      'PORT@staging=3000',
    ]);
    const [event] = await eventsOf(project, 'variables.imported');
    expect(event?.payload).toEqual({ environment: 'staging', created: 6, updated: 0, unchanged: 0, skipped: 0, by: owner.id });
    expect(JSON.stringify(event?.payload)).not.toContain('api.example.com');
  });

  it('leaves existing names alone unless overwrite is true, and says which; a dry run writes nothing', async () => {
    const { projectId: project } = await createProject(owner);
    await create({ name: 'KEEP', value: 'old' }, project);
    await create({ name: 'SAME', value: 'same' }, project);
    await create({ name: 'KEEP', value: 'staging', environment: 'staging' }, project);
    const content = 'KEEP=new\nSAME=same\nFRESH=1\n';

    const kept = await importEnv(project, { content });
    expect(kept.data).toEqual({ environment: 'default', dryRun: false, created: ['FRESH'], updated: [], unchanged: ['SAME'], skipped: ['KEEP'] });
    expect(await names(project, 'default')).toEqual(['FRESH@default=1', 'KEEP@default=old', 'SAME@default=same']);

    const preview = await importEnv(project, { content: 'KEEP=newer\nOTHER=2\n', overwrite: true, dryRun: true });
    expect(preview.data).toEqual({ environment: 'default', dryRun: true, created: ['OTHER'], updated: ['KEEP'], unchanged: [], skipped: [] });
    expect(await names(project, 'default')).toEqual(['FRESH@default=1', 'KEEP@default=old', 'SAME@default=same']);

    const overwritten = await importEnv(project, { content: 'KEEP=newer\nOTHER=2\n', overwrite: true });
    expect(overwritten.data).toMatchObject({ created: ['OTHER'], updated: ['KEEP'] });
    expect(await names(project)).toEqual(['FRESH@default=1', 'KEEP@default=newer', 'KEEP@staging=staging', 'OTHER@default=2', 'SAME@default=same']);
    expect((await eventsOf(project, 'variables.imported')).map((e) => e.payload.updated)).toEqual([0, 1]);
  });

  it('refuses a file with bad names, duplicates or unreadable lines with 422 by line number, and writes nothing', async () => {
    const { projectId: project } = await createProject(owner);
    const res = await importEnv(project, { content: 'GOOD=1\napi_key=x\nGOOD=2\nno equals sign\nQUOTE="open\n' });
    expectError(res, 422, 'VALIDATION_ERROR');
    expect(fieldsOf(res)).toEqual({
      'content.2': '"api_key": Name must be upper-case letters, digits and underscores, starting with a letter',
      'content.3': 'GOOD is already set on line 1',
      'content.4': 'Expected NAME=value',
      'content.5': 'The " that opens the value is never closed',
    });
    expect(res.body?.success === false && res.body.error.message).toMatch(/^Validation failed: content\.2: /);
    expect(await names(project)).toEqual([]);
    expect(await eventsOf(project, 'variables.imported')).toEqual([]);
  });

  it('refuses values over 10,000 characters by line, an empty file, and content over 256 KB', async () => {
    const { projectId: project } = await createProject(owner);
    const long = await importEnv(project, { content: `A=1\nB=${'x'.repeat(10_001)}\n` });
    expectError(long, 422, 'VALIDATION_ERROR');
    expect(fieldsOf(long)).toEqual({
      'content.2': 'The value of B is longer than 10000 characters',
    });
    expectError(await importEnv(project, { content: '# nothing\n\n' }), 422, 'VALIDATION_ERROR');
    const big = await importEnv(project, { content: `A="${'x'.repeat(256 * 1024)}"` });
    expectError(big, 422, 'VALIDATION_ERROR');
    expect(big.body?.success === false && big.body.error.message).toMatch(/at most 256 KB/);
    expectError(await importEnv(project, { content: 'A=1', environment: 'qa' }), 422, 'VALIDATION_ERROR');
    expect(await names(project)).toEqual([]);
  });
});

describe('the limit of 500 variables per project', () => {
  it('refuses creations and imports beyond it with 409 VARIABLE_LIMIT_REACHED, writing nothing', async () => {
    const { projectId: project } = await createProject(owner);
    const lines = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => `${prefix}_${i}=${i}`).join('\n');
    expect((await importEnv(project, { content: lines(300, 'A') })).status).toBe(200);

    const tooMany = await importEnv(project, { content: lines(201, 'B'), environment: 'production' });
    expectError(tooMany, 409, 'VARIABLE_LIMIT_REACHED');
    expect(tooMany.body?.success === false && tooMany.body.error.message).toMatch(/at most 500 variables .* it has 300 and this would add 201/);
    expect(await names(project, 'production')).toEqual([]);

    expect((await importEnv(project, { content: lines(199, 'B'), environment: 'production' })).data.created).toHaveLength(199);
    // One place left: concurrent creations of different names take turns, so exactly one gets it.
    const racing = await Promise.all(['R1', 'R2', 'R3', 'R4'].map((name) => create({ name, value: 'x' }, project)));
    expect(racing.map((r) => (r.body?.success === false ? r.body.error.code : r.status)).sort()).toEqual([
      201,
      'VARIABLE_LIMIT_REACHED',
      'VARIABLE_LIMIT_REACHED',
      'VARIABLE_LIMIT_REACHED',
    ]);
    expectError(await create({ name: 'ONE_MORE', value: 'x' }, project), 409, 'VARIABLE_LIMIT_REACHED');
    // Overwriting names already there adds nothing, so it still works at the limit.
    expect((await importEnv(project, { content: 'A_1=changed', overwrite: true })).data.updated).toEqual(['A_1']);

    const file = await importEnv((await createProject(owner)).projectId, { content: lines(501, 'C') });
    expectError(file, 422, 'VALIDATION_ERROR');
  });
});

describe('access', () => {
  it('lets every member read and only non-viewers write; API keys need variables:read, and variables:write too for writes', async () => {
    const { projectId: project } = await createProject(owner);
    const variable = (await create({ name: 'SHARED', value: 'v' }, project)).data;
    const viewer = await createUser('Vera Viewer');
    await queryRows(sql`insert into memberships (project_id, user_id, role) values (${project}, ${viewer.id}, 'viewer')`);

    expect((await api<Variable[]>('GET', url(project), { cookie: viewer.cookie })).data.map((v) => v.value)).toEqual(['v']);
    expect((await api('GET', url(project, `/${variable.id}`), { cookie: viewer.cookie })).status).toBe(200);
    expect((await api('GET', url(project, '/effective?environment=staging'), { cookie: viewer.cookie })).status).toBe(200);
    expectError(await create({ name: 'BY_VIEWER', value: 'x' }, project, viewer), 403, 'FORBIDDEN');
    expectError(await api('PATCH', url(project, `/${variable.id}`), { cookie: viewer.cookie, body: { value: 'x' } }), 403, 'FORBIDDEN');
    expectError(await api('DELETE', url(project, `/${variable.id}`), { cookie: viewer.cookie }), 403, 'FORBIDDEN');
    expectError(await api('POST', url(project, '/import'), { cookie: viewer.cookie, body: { content: 'A=1' } }), 403, 'FORBIDDEN');

    const readOnly = await createApiKey(owner, project, ['variables:read']);
    expect((await api('GET', url(project), { key: readOnly.key })).status).toBe(200);
    expectError(await api('POST', url(project), { key: readOnly.key, body: { name: 'BY_KEY', value: 'x' } }), 403, 'FORBIDDEN');
    const writeOnly = await createApiKey(owner, project, ['variables:write']);
    expectError(await api('POST', url(project), { key: writeOnly.key, body: { name: 'BY_KEY', value: 'x' } }), 403, 'FORBIDDEN');
    const secretsKey = await createApiKey(owner, project, ['secrets:read']);
    expectError(await api('GET', url(project), { key: secretsKey.key }), 403, 'FORBIDDEN');
    const both = await createApiKey(owner, project, ['variables:read', 'variables:write']);
    const byKey = await api<Variable>('POST', url(project), { key: both.key, body: { name: 'BY_KEY', value: 'x' } });
    expect(byKey.status).toBe(201);
    expect(byKey.data.createdBy).toBe(owner.id);

    expectError(await api('GET', url(project)), 401, 'UNAUTHORIZED');
    const outsider = await createUser('Otto Outsider');
    expectError(await api('GET', url(project), { cookie: outsider.cookie }), 403, 'FORBIDDEN');
  });

  it('declares the scopes and roles the authorization matrix walks, for every operation', () => {
    const paths = restApi.openApiDocument().paths ?? {};
    const declared = Object.entries(paths)
      .filter(([path]) => path.startsWith('/projects/{projectId}/variables'))
      .flatMap(([path, item]) =>
        Object.entries(item as Record<string, Record<string, unknown>>).map(([method, op]) => [
          `${method.toUpperCase()} ${path}`,
          `${(op['x-required-scopes'] as string[]).join('+')} ${String(op['x-required-role'])}`,
        ]),
      );
    expect(Object.fromEntries(declared)).toEqual({
      'GET /projects/{projectId}/variables': 'variables:read viewer',
      'POST /projects/{projectId}/variables': 'variables:read+variables:write member',
      'GET /projects/{projectId}/variables/effective': 'variables:read viewer',
      'POST /projects/{projectId}/variables/import': 'variables:read+variables:write member',
      'GET /projects/{projectId}/variables/{variableId}': 'variables:read viewer',
      'PATCH /projects/{projectId}/variables/{variableId}': 'variables:read+variables:write member',
      'DELETE /projects/{projectId}/variables/{variableId}': 'variables:read+variables:write member',
    });
  });
});
