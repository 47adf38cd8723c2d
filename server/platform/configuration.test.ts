import { describe, expect, it } from 'vitest';
import { configNameSchema, effectiveConfiguration, type Environment } from './configuration';

const entry = (name: string, environment: Environment, value = `${name}@${environment}`) => ({ name, environment, value });

describe('effectiveConfiguration', () => {
  const entries = [
    entry('API_URL', 'default'),
    entry('API_URL', 'production'),
    entry('DEBUG', 'default'),
    entry('SENTRY_DSN', 'staging'),
    entry('ALPHA', 'production'),
  ];

  it("takes an environment's own entry over the default one of the same name, and the default ones it lacks", () => {
    expect(effectiveConfiguration(entries, 'production').map((e) => e.value)).toEqual(['ALPHA@production', 'API_URL@production', 'DEBUG@default']);
    expect(effectiveConfiguration(entries, 'staging').map((e) => e.value)).toEqual(['API_URL@default', 'DEBUG@default', 'SENTRY_DSN@staging']);
    expect(effectiveConfiguration(entries, 'development').map((e) => e.value)).toEqual(['API_URL@default', 'DEBUG@default']);
  });

  it('gives only the default entries for the default environment', () => {
    expect(effectiveConfiguration(entries, 'default').map((e) => e.value)).toEqual(['API_URL@default', 'DEBUG@default']);
  });

  it('does not depend on the order the entries come in', () => {
    expect(effectiveConfiguration([...entries].reverse(), 'production')).toEqual(effectiveConfiguration(entries, 'production'));
  });
});

describe('configNameSchema', () => {
  it.each(['A', 'DATABASE_URL', 'X1_2', 'A'.repeat(100)])('accepts %s', (name) => {
    expect(configNameSchema.safeParse(name).success).toBe(true);
  });

  it.each(['', 'database_url', '1ABC', '_ABC', 'A-B', 'A B', 'Ä', 'A'.repeat(101)])('refuses %j', (name) => {
    expect(configNameSchema.safeParse(name).success).toBe(false);
  });
});
