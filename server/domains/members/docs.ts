export const LIST_MEMBERS =
  'Every member with their role; owners first, then in the order they joined. isBiller marks the member whose card pays for the project.';

export const UPDATE_MEMBER_ROLE =
  "Owner or admin. Only an owner may grant the owner role or change an owner's role (403 FORBIDDEN). The last owner cannot be demoted, nor the member who holds billing below admin (409 CONFLICT: hand billing to another member first). A member who drops below admin loses the pending invitations they sent and any pending offer of billing to or from them. 404 when the user is not a member.";

export const REMOVE_MEMBER = [
  'With your own user id this is leaving the project, open to every role.',
  'Removing someone else needs the owner or admin role, and only an owner may remove an owner (403 FORBIDDEN).',
  'The last owner cannot leave or be removed, nor can the member who holds billing until they hand billing to another member (409 CONFLICT).',
  'The API keys the member created for the project are revoked at once (401 from then on).',
].join(' ');
