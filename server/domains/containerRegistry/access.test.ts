import { describe, expect, it } from 'vitest';
import { allowedActions, parseScopes, tokenSubject, type RegistryCaller, type ScopeTarget } from './access';

const PROJECT = 'prj_owner';
const target = (overrides: Partial<ScopeTarget> = {}): ScopeTarget => ({
  projectId: PROJECT,
  exists: true,
  visibility: 'PRIVATE',
  suspended: false,
  ...overrides,
});
const key = (scopes: string[], overrides: Partial<Extract<RegistryCaller, { kind: 'apiKey' }>> = {}): RegistryCaller => ({
  kind: 'apiKey',
  keyId: 'key_1',
  projectId: PROJECT,
  scopes,
  role: 'member',
  ...overrides,
});
const anonymous: RegistryCaller = { kind: 'anonymous' };
const BOTH = ['registry:read', 'registry:write'];
const ALL = ['pull', 'push', 'delete', '*'];

describe('parseScopes', () => {
  it('reads repository scopes, several per parameter or in several parameters', () => {
    expect(parseScopes(['repository:acme/web:pull,push', 'repository:acme/api:pull repository:acme/db:push'])).toEqual([
      { repository: 'acme/web', actions: ['pull', 'push'] },
      { repository: 'acme/api', actions: ['pull'] },
      { repository: 'acme/db', actions: ['push'] },
    ]);
  });

  it('drops other resource types, empty names, empty action lists and malformed values', () => {
    expect(parseScopes(['registry:catalog:*', 'repository::pull', 'repository:acme/web:', 'repository:acme/web', 'pull', ':x:y', ''])).toEqual([]);
    expect(parseScopes(['repository:acme/web:pull,,push'])).toEqual([{ repository: 'acme/web', actions: ['pull', 'push'] }]);
    expect(parseScopes(['repository:acme/web:,', 'xrepository:acme/web:pull', 'image:repository:acme/web:pull'])).toEqual([]);
  });

  it('keeps a name holding a colon, splitting the actions at the last one', () => {
    expect(parseScopes(['repository:host:5000/acme/web:pull'])).toEqual([{ repository: 'host:5000/acme/web', actions: ['pull'] }]);
  });
});

describe('allowedActions', () => {
  it('grants nothing for a repository no live registry has', () => {
    expect(allowedActions(key(BOTH), null, ALL)).toEqual([]);
    expect(allowedActions(anonymous, null, ALL)).toEqual([]);
  });

  it('lets anyone pull a PUBLIC repository, and nobody anonymous push or touch a PRIVATE one', () => {
    expect(allowedActions(anonymous, target({ visibility: 'PUBLIC' }), ALL)).toEqual(['pull']);
    expect(allowedActions(anonymous, target(), ALL)).toEqual([]);
    expect(allowedActions(anonymous, target({ visibility: 'PUBLIC', exists: false }), ALL)).toEqual([]);
    expect(allowedActions(anonymous, target({ visibility: 'PUBLIC', suspended: true }), ALL)).toEqual([]);
  });

  it('lets registry:read pull and registry:read with registry:write push, for members of the project', () => {
    expect(allowedActions(key(['registry:read']), target(), ALL)).toEqual(['pull']);
    expect(allowedActions(key(['registry:write']), target(), ALL)).toEqual([]);
    expect(allowedActions(key(BOTH), target(), ALL)).toEqual(['pull', 'push']);
    expect(allowedActions(key(BOTH), target({ exists: false }), ALL)).toEqual(['pull', 'push']);
    expect(allowedActions(key(['servers:read', 'servers:write']), target(), ALL)).toEqual([]);
  });

  it('never grants delete nor what was not asked for', () => {
    expect(allowedActions(key(BOTH), target(), ['delete', '*'])).toEqual([]);
    expect(allowedActions(key(BOTH), target(), ['pull'])).toEqual(['pull']);
    expect(allowedActions(key(BOTH), target(), ['push'])).toEqual(['push']);
    expect(allowedActions(key(BOTH), target({ visibility: 'PUBLIC' }), [])).toEqual([]);
  });

  it('keeps viewers to pulls and a departed creator to nothing but public pulls', () => {
    expect(allowedActions(key(BOTH, { role: 'viewer' }), target(), ALL)).toEqual(['pull']);
    expect(allowedActions(key(BOTH, { role: 'admin' }), target(), ALL)).toEqual(['pull', 'push']);
    expect(allowedActions(key(BOTH, { role: null }), target(), ALL)).toEqual([]);
    expect(allowedActions(key(BOTH, { role: null }), target({ visibility: 'PUBLIC' }), ALL)).toEqual(['pull']);
  });

  it("gives another project's key only what anyone gets", () => {
    const stranger = key(BOTH, { projectId: 'prj_other', role: 'owner' });
    expect(allowedActions(stranger, target(), ALL)).toEqual([]);
    expect(allowedActions(stranger, target({ visibility: 'PUBLIC' }), ALL)).toEqual(['pull']);
  });

  it('stops pushes during a suspension and keeps keyed pulls', () => {
    expect(allowedActions(key(BOTH), target({ suspended: true }), ALL)).toEqual(['pull']);
    expect(allowedActions(key(BOTH), target({ suspended: true, visibility: 'PUBLIC' }), ALL)).toEqual(['pull']);
  });
});

describe('tokenSubject', () => {
  it('names the key on its own project, and nobody otherwise', () => {
    expect(tokenSubject(key(BOTH), [PROJECT])).toBe('key:key_1');
    expect(tokenSubject(key(BOTH), ['prj_other'])).toBeNull();
    expect(tokenSubject(key(BOTH), [])).toBeNull();
    expect(tokenSubject(anonymous, [PROJECT])).toBeNull();
  });
});
