import { describe, expect, it } from 'vitest';
import { ALL_SCOPES, hasScopes, missingScopes, SCOPE_RESOURCES, scopeDirections, scopeSchema, type Scope } from './scopes';

// Written out by hand rather than derived from SCOPE_RESOURCES: a resource dropped or renamed in the
// catalogue would make every existing key that holds its scopes fail validation on update.
const CATALOGUE = [
  'projects',
  'members',
  'billing',
  'servers',
  'domains',
  'redis',
  'secrets',
  'variables',
  'webhooks',
  'object-storage',
  'storage',
  'registry',
  'hosting',
  'databases',
  'apps',
  'integrations',
  'notifications',
  'audit',
];
const READ_ONLY = ['audit'];
const CATALOGUE_SCOPES = CATALOGUE.flatMap((r) => (READ_ONLY.includes(r) ? [`${r}:read`] : [`${r}:read`, `${r}:write`]));

const unknownScopeMessage = (input: string) => `Unknown scope ${input}; allowed scopes are <resource>:read or <resource>:write`;

describe('scope catalogue', () => {
  it('offers a read and a write scope for every resource, read first, in catalogue order; only read for the audit log', () => {
    expect(SCOPE_RESOURCES).toEqual(CATALOGUE);
    expect(ALL_SCOPES).toEqual(CATALOGUE_SCOPES);
    expect(ALL_SCOPES).toHaveLength(35);
    expect(scopeDirections('audit')).toEqual(['read']);
    expect(scopeDirections('servers')).toEqual(['read', 'write']);
  });

  it.each(CATALOGUE_SCOPES)('accepts %s when a key is created', (scope) => {
    expect(scopeSchema.parse(scope)).toBe(scope);
  });

  it.each([
    ['an unknown direction', 'projects:admin'],
    ['an unknown resource', 'payments:read'],
    ['a bare resource', 'projects'],
    ['a wildcard', '*'],
    ['the empty string', ''],
    ['different case', 'Projects:read'],
    ['surrounding spaces', ' projects:read'],
    ['a write scope of a read-only resource', 'audit:write'],
  ])('refuses %s and says which value and which form is allowed', (_label, input) => {
    const result = scopeSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message)).toEqual([unknownScopeMessage(JSON.stringify(input))]);
  });

  it('quotes non-string input as JSON in the refusal', () => {
    expect(scopeSchema.safeParse(42).error?.issues[0]?.message).toBe(unknownScopeMessage('42'));
    expect(scopeSchema.safeParse(null).error?.issues[0]?.message).toBe(unknownScopeMessage('null'));
  });
});

describe('hasScopes', () => {
  it('grants an operation whose every required scope is held', () => {
    expect(hasScopes(['servers:read', 'servers:write', 'domains:read'], ['servers:read', 'servers:write'])).toBe(true);
  });

  it('refuses when only some of the required scopes are held', () => {
    expect(hasScopes(['servers:read'], ['servers:read', 'servers:write'])).toBe(false);
  });

  it('refuses when none are held', () => {
    expect(hasScopes([], ['projects:read'])).toBe(false);
  });

  it('does not let read stand in for write, nor write for read', () => {
    expect(hasScopes(['projects:read'], ['projects:write'])).toBe(false);
    expect(hasScopes(['projects:write'], ['projects:read'])).toBe(false);
  });

  it('does not let one resource stand in for another, even with a similar name', () => {
    expect(hasScopes(['projects:read'], ['servers:read'])).toBe(false);
    expect(hasScopes(['servers:read'], ['secrets:read'])).toBe(false);
    expect(hasScopes(['registry:write'], ['redis:write'])).toBe(false);
    expect(hasScopes(['object-storage:read'], ['databases:read'])).toBe(false);
  });

  it('needs no scope for an operation that lists none', () => {
    expect(hasScopes([], [])).toBe(true);
    expect(hasScopes(['projects:read'], [])).toBe(true);
  });

  it('treats storage and object-storage as the same scope, in both directions', () => {
    expect(hasScopes(['storage:read'], ['object-storage:read'])).toBe(true);
    expect(hasScopes(['object-storage:write'], ['storage:write'])).toBe(true);
    expect(hasScopes(['storage:read'], ['object-storage:write'])).toBe(false);
    expect(hasScopes(['object-storage:read'], ['storage:write'])).toBe(false);
  });

  it('is indifferent to duplicates and order in the granted list', () => {
    expect(hasScopes(['domains:read', 'servers:read', 'servers:read'], ['servers:read', 'domains:read'])).toBe(true);
  });

  it('ignores granted strings that are not scopes instead of matching on them', () => {
    expect(hasScopes(['*', 'projects', 'admin'], ['projects:read'])).toBe(false);
  });
});

describe('missingScopes', () => {
  it('names exactly the required scopes not held, in the order the operation lists them', () => {
    const required: Scope[] = ['servers:read', 'domains:write', 'servers:write', 'billing:read'];
    expect(missingScopes(['servers:read', 'billing:read'], required)).toEqual(['domains:write', 'servers:write']);
  });

  it('is empty when everything is held or nothing is required', () => {
    expect(missingScopes(['servers:read', 'servers:write'], ['servers:write', 'servers:read'])).toEqual([]);
    expect(missingScopes([], [])).toEqual([]);
  });

  it('names everything when nothing is held', () => {
    expect(missingScopes([], ['projects:read', 'projects:write'])).toEqual(['projects:read', 'projects:write']);
  });

  it('counts an alias as held and names a missing scope as the operation spells it', () => {
    expect(missingScopes(['storage:read'], ['object-storage:read', 'object-storage:write'])).toEqual(['object-storage:write']);
    expect(missingScopes(['object-storage:write'], ['storage:read', 'storage:write'])).toEqual(['storage:read']);
  });

  it('keeps read and write and resources apart', () => {
    expect(missingScopes(['projects:write', 'servers:read'], ['projects:read', 'secrets:read'])).toEqual(['projects:read', 'secrets:read']);
  });
});
