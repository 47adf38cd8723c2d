import { describe, expect, it } from 'vitest';
import { appNameSchema } from '@/server/domains/apps/schema';
import { appNameFromRepository, commitTitle, deploymentPath, formatDuration, servicesSummary } from './apps';

describe('appNameFromRepository', () => {
  it.each([
    ['demo-user/hello-node', 'hello-node'],
    ['demo-group/backend/payments-api', 'payments-api'],
    ['acme/Hello_Node.js', 'hello-node-js'],
    ['acme/2048-game', 'game'],
    ['acme/--Weird--Name--', 'weird-name'],
    ['acme/a'.padEnd(60, 'b'), 'a'.padEnd(40, 'b')],
  ])('suggests a name the API takes for %s', (repository, expected) => {
    const name = appNameFromRepository(repository);
    expect(name).toBe(expected);
    expect(appNameSchema.safeParse(name).success).toBe(true);
  });

  it('suggests nothing when no letter is left to start a name with', () => {
    expect(appNameFromRepository('acme/2048')).toBe('');
    expect(appNameFromRepository('acme/___')).toBe('');
  });

  it('never ends a cut name on a hyphen', () => {
    const name = appNameFromRepository(`acme/${'a'.repeat(39)}-tail`);
    expect(name).toBe('a'.repeat(39));
    expect(appNameSchema.safeParse(name).success).toBe(true);
  });
});

describe('formatDuration', () => {
  const start = '2026-11-24T10:00:00.000Z';
  it('says nothing until the deployment has finished', () => {
    expect(formatDuration(start, null)).toBeNull();
    expect(formatDuration(null, start)).toBeNull();
  });

  it('counts seconds, then minutes and seconds', () => {
    expect(formatDuration(start, '2026-11-24T10:00:00.400Z')).toBe('0 s');
    expect(formatDuration(start, '2026-11-24T10:00:42.000Z')).toBe('42 s');
    expect(formatDuration(start, '2026-11-24T10:02:00.000Z')).toBe('2 min');
    expect(formatDuration(start, '2026-11-24T10:03:05.000Z')).toBe('3 min 5 s');
  });
});

describe('commitTitle and servicesSummary', () => {
  it('keeps the first line of a commit message', () => {
    expect(commitTitle('Say hello in French\n\nBonjour instead of Hello.')).toBe('Say hello in French');
    expect(commitTitle('')).toBe('');
  });

  it('lists each service with its size and instances', () => {
    expect(
      servicesSummary([
        { name: 'web', instanceSize: 'apps-s-1vcpu-1gb', instances: 2 },
        { name: 'worker', instanceSize: 'apps-s-1vcpu-0.5gb', instances: 1 },
      ]),
    ).toBe('web: apps-s-1vcpu-1gb × 2, worker: apps-s-1vcpu-0.5gb × 1');
  });
});

describe('deploymentPath', () => {
  it('is the deployment’s page under its app’s', () => {
    expect(deploymentPath('prj_1', 'app_2', 'dpl_3')).toBe('/projects/prj_1/apps/app_2/deployments/dpl_3');
  });
});
