import { describe, expect, it } from 'vitest';
import { PROJECT_ROLES, ROLE_DESCRIPTION, roleAtLeast, type ProjectRole } from './roles';

// Row: the caller's role; columns: the least role the operation needs (owner, admin, member, viewer).
const ADMITTED: Record<ProjectRole, Record<ProjectRole, boolean>> = {
  owner: { owner: true, admin: true, member: true, viewer: true },
  admin: { owner: false, admin: true, member: true, viewer: true },
  member: { owner: false, admin: false, member: true, viewer: true },
  viewer: { owner: false, admin: false, member: false, viewer: true },
};

describe('roleAtLeast', () => {
  it.each(PROJECT_ROLES.flatMap((role) => PROJECT_ROLES.map((required) => [role, required] as const)))(
    'a %s calling an operation that needs %s',
    (role, required) => {
      expect(roleAtLeast(role, required)).toBe(ADMITTED[role][required]);
    },
  );
});

describe('ROLE_DESCRIPTION', () => {
  it('tells a refused member which roles would have been enough', () => {
    expect(ROLE_DESCRIPTION).toEqual({
      owner: 'the owner role',
      admin: 'the owner or admin role',
      member: 'a role other than viewer',
      viewer: 'membership of the project',
    });
  });
});
