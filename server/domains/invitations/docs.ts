import { INVITATIONS_PER_ADDRESS_PER_HOUR } from './service';

const SESSION_ONLY_REASON = 'Session only: an API key reaches one project, so it cannot act on invitations to other projects of its creator.';
const ADDRESSED_TO_ANOTHER = "403 FORBIDDEN when the invitation was sent to another email address than the account's;";

export const CREATE_INVITATION = [
  'Owner or admin. Emails a link to the accept-or-reject page; the invitation expires after the configured time (7 days by default).',
  'The owner role cannot be given by invitation.',
  '409 CONFLICT when the address already belongs to a member or a pending invitation for it exists.',
  `At most ${INVITATIONS_PER_ADDRESS_PER_HOUR} invitations to one address per hour, every project together, then 429 RATE_LIMITED with Retry-After.`,
].join(' ');

export const LIST_PROJECT_INVITATIONS = 'Owner or admin. Pending invitations that have not expired, newest first.';

export const REVOKE_INVITATION = 'Owner or admin. The link stops working at once. 404 when no pending invitation with this id exists in the project.';

export const LIST_MY_INVITATIONS = `Pending, unexpired invitations addressed to the signed-in account's email (case-insensitive), newest first. ${SESSION_ONLY_REASON}`;

export const GET_PUBLIC_INVITATION = 'Public. The invited address is masked. status reads EXPIRED once expiresAt has passed. 404 when unknown.';

export const ACCEPT_INVITATION = [
  'Joins the project with the invited role.',
  ADDRESSED_TO_ANOTHER,
  '409 CONFLICT when it has expired or was already accepted, rejected or revoked, or when you are already a member.',
  SESSION_ONLY_REASON,
].join(' ');

export const REJECT_INVITATION = [ADDRESSED_TO_ANOTHER, '409 CONFLICT when it has expired or was already answered or revoked.', SESSION_ONLY_REASON].join(' ');
