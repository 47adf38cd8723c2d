import { describe, expect, it } from 'vitest';
import { branchSchema, createAppInput, normaliseRepositoryPath, repositorySchema, serviceInputSchema } from './schema';

const service = (fields: Record<string, unknown>) => serviceInputSchema.safeParse({ name: 'web', instanceSize: 'apps-s-1vcpu-1gb', region: 'nyc', ...fields });
const issuesOf = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
  (result.error?.issues ?? []).map((issue) => [issue.path.join('.'), issue.message]);

describe('a service given in the body', () => {
  it('takes the template’s defaults, ports by app type', () => {
    expect(service({}).data).toEqual({
      name: 'web',
      appType: 'WEB',
      sourceDir: '.',
      buildStrategy: 'BUILDPACK',
      buildCommand: '',
      runCommand: '',
      outputDir: null,
      publicPort: 443,
      internalPort: 8080,
      instanceSize: 'apps-s-1vcpu-1gb',
      instances: 1,
      region: 'nyc',
      autoDeploy: true,
      envVars: [],
    });
    expect(service({ appType: 'WORKER' }).data).toMatchObject({ publicPort: 0, internalPort: 8080 });
    expect(service({ appType: 'STATIC', outputDir: './dist/' }).data).toMatchObject({ publicPort: 443, internalPort: 0, outputDir: 'dist' });
    expect(service({ envVars: [{ key: 'A', value: '1' }] }).data?.envVars).toEqual([{ key: 'A', value: '1', secret: false }]);
  });

  it('refuses ports, outputDir and env keys that do not fit the app type', () => {
    expect(issuesOf(service({ appType: 'WORKER', publicPort: 443 }))).toEqual([['publicPort', expect.stringContaining('WORKER')]]);
    expect(issuesOf(service({ publicPort: 0 }))).toEqual([['publicPort', expect.stringContaining('1 to 65535')]]);
    expect(issuesOf(service({ appType: 'STATIC', outputDir: 'dist', internalPort: 3000 }))).toEqual([['internalPort', expect.stringContaining('STATIC')]]);
    expect(issuesOf(service({ appType: 'STATIC' }))).toEqual([['outputDir', 'outputDir is required for a STATIC service']]);
    expect(issuesOf(service({ outputDir: 'dist' }))).toEqual([['outputDir', 'outputDir must be null for a WEB service']]);
    const twice = service({
      envVars: [
        { key: 'A', value: '1' },
        { key: 'A', value: '2' },
      ],
    });
    expect(issuesOf(twice)).toEqual([['envVars.1.key', '"A" is set twice']]);
    expect(service({ envVars: [{ key: 'lower', value: '1' }] }).success).toBe(false);
    expect(service({ instances: 21 }).success).toBe(false);
  });
});

describe('paths, repositories and branches', () => {
  it('keeps paths inside the repository, written without ./ and trailing /', () => {
    expect(normaliseRepositoryPath('./api/')).toBe('api');
    expect(normaliseRepositoryPath('a//b/./c')).toBe('a/b/c');
    expect(normaliseRepositoryPath('.')).toBe('.');
    for (const outside of ['../x', 'a/../../b', '/etc', 'a\\b', 'a\u0000b']) expect(normaliseRepositoryPath(outside), outside).toBeNull();
  });

  it('takes the full names of every host and git branch names', () => {
    for (const name of ['demo-user/hello-node', 'demo-group/backend/payments-api', 'a.b/c_d'])
      expect(repositorySchema.safeParse(name).success, name).toBe(true);
    for (const name of ['hello-node', '/a/b', 'a/../b', 'a b/c']) expect(repositorySchema.safeParse(name).success, name).toBe(false);
    for (const branch of ['main', 'release/1.x', 'feature/task-001']) expect(branchSchema.safeParse(branch).success, branch).toBe(true);
    for (const branch of ['', 'a..b', '-x', 'x/', 'a b', 'a:b', 'x.lock', 'tab\tbed']) expect(branchSchema.safeParse(branch).success, branch).toBe(false);
  });
});

describe('the creation body', () => {
  const base = { name: 'hello', gitHost: 'git-host-1', repository: 'demo-user/hello-node', branch: 'main' };

  it('needs exactly one of fromTemplate and service', () => {
    expect(issuesOf(createAppInput.safeParse(base))).toEqual([['service', 'service is required unless fromTemplate is true']]);
    expect(createAppInput.safeParse({ ...base, fromTemplate: true }).success).toBe(true);
    const both = createAppInput.safeParse({ ...base, fromTemplate: true, service: { name: 'web', instanceSize: 'apps-s-1vcpu-1gb', region: 'nyc' } });
    expect(issuesOf(both)).toEqual([['service', 'leave out service when fromTemplate is true']]);
  });

  it('takes app names of the template’s rule', () => {
    for (const name of ['a', 'hello-node', `a${'b'.repeat(39)}`])
      expect(createAppInput.safeParse({ ...base, name, fromTemplate: true }).success, name).toBe(true);
    for (const name of ['', '1app', 'Hello', 'a_b', `a${'b'.repeat(40)}`])
      expect(createAppInput.safeParse({ ...base, name, fromTemplate: true }).success, name).toBe(false);
  });
});
