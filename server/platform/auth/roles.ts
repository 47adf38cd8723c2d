import type { ProjectRole } from '../../../db/schema/members';

export { PROJECT_ROLES, type ProjectRole } from '../../../db/schema/members';

/**
 * The least role an operation needs. `viewer` admits every member (reads), `member` admits every
 * non-viewer (most writes), `admin` admits owners and admins, `owner` only owners.
 */
export type RequiredRole = ProjectRole;

const RANK: Record<ProjectRole, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

export function roleAtLeast(role: ProjectRole, required: RequiredRole): boolean {
  return RANK[role] >= RANK[required];
}

export const ROLE_DESCRIPTION: Record<RequiredRole, string> = {
  owner: 'the owner role',
  admin: 'the owner or admin role',
  member: 'a role other than viewer',
  viewer: 'membership of the project',
};
