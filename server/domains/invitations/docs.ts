import { INVITATIONS_PER_ADDRESS_PER_HOUR } from './service';

const SESSION_ONLY_REASON = 'Session only: an API key reaches one project, so it cannot act on invitations to other projects of its creator.';
const WHO_MAY_ANSWER = [
  "Allowed when the account's email address is verified and is the invited one (case-insensitive), or when the body carries the `secret` of the emailed link, whatever the account's address:",
  'the link reached only the invited mailbox. Answering with the secret also verifies an unverified account whose address is the invited one.',
  "403 EMAIL_NOT_VERIFIED when the invited address is the account's but is not verified yet and no secret is given;",
  '403 FORBIDDEN when the invitation was sent to another address and no secret is given, or when the secret is wrong;',
].join(' ');

export const CREATE_INVITATION = [
  'Owner or admin. Emails a link to the accept-or-reject page carrying a secret that is never shown anywhere else; the invitation expires after the configured time (7 days by default).',
  'The owner role cannot be given by invitation.',
  '409 CONFLICT when the address already belongs to a member or a pending invitation for it exists.',
  `At most ${INVITATIONS_PER_ADDRESS_PER_HOUR} invitations to one address per hour, every project together, then 429 RATE_LIMITED with Retry-After.`,
].join(' ');

export const LIST_PROJECT_INVITATIONS = 'Owner or admin. Pending invitations that have not expired, newest first.';

export const REVOKE_INVITATION = 'Owner or admin. The link stops working at once. 404 when no pending invitation with this id exists in the project.';

export const LIST_MY_INVITATIONS = [
  "Pending, unexpired invitations addressed to the signed-in account's email (case-insensitive), newest first.",
  '403 EMAIL_NOT_VERIFIED until that address is verified: an unverified address is only a claim.',
  SESSION_ONLY_REASON,
].join(' ');

export const GET_PUBLIC_INVITATION =
  'Public. The invited address is masked and the secret of the emailed link is never part of the answer. status reads EXPIRED once expiresAt has passed. 404 when unknown.';

export const ACCEPT_INVITATION = [
  'Joins the project with the invited role.',
  WHO_MAY_ANSWER,
  '409 CONFLICT when it has expired or was already accepted, rejected or revoked, or when you are already a member.',
  SESSION_ONLY_REASON,
].join(' ');

export const REJECT_INVITATION = [
  'Declines the invitation.',
  WHO_MAY_ANSWER,
  '409 CONFLICT when it has expired or was already answered or revoked.',
  SESSION_ONLY_REASON,
].join(' ');
