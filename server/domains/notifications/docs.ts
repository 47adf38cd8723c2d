import { NOTIFICATIONS_DEFAULT_LIMIT, NOTIFICATIONS_MAX_LIMIT } from './schema';
import { NOTIFICATION_RETENTION_DAYS } from './service';

const WHO =
  'A session reaches every notification of its user. An API key (`notifications:read`; writes also `notifications:write`) reaches only the notifications of the user who created it that concern the key’s own project, since a key reaches exactly one project.';

export const LIST_NOTIFICATIONS = [
  `The caller’s notifications, newest first: ${NOTIFICATIONS_DEFAULT_LIMIT} without filters, \`limit\` up to ${NOTIFICATIONS_MAX_LIMIT}.`,
  'Notifications are written from the platform’s events (invoices, payments, suspensions, billing transfers, servers, members, invitations, API keys, webhook endpoints) for the people each concerns: money matters to the biller and the owners, what happens to the project’s resources to its members or its owners and admins, a billing offer or a removal to the person it names. Whoever caused an event is not told of their own action, except of a new API key (a key made with your account that you did not make is worth knowing of).',
  'Filters: `eventType` (repeatable; each must be a type of the event catalogue), `type`, `read`, `from` (on or after; a bare date starts at 00:00 UTC) and `to` (on or before; a bare date covers that whole UTC day). An unknown event type, a `limit` outside 1 to 200, a malformed date or `to` before `from` is 422 VALIDATION_ERROR naming the field; nothing is ignored or clamped.',
  'To read further back than one answer, pass the `createdAt` of the oldest notification received as `to` (inclusive: skip the ids already seen).',
  `Notifications are kept ${NOTIFICATION_RETENTION_DAYS} days. Texts name people, projects and resources, never secrets; a webhook endpoint is named by its host only, since its URL may carry a token.`,
  WHO,
].join(' ');

export const COUNT_UNREAD_NOTIFICATIONS = `How many of the caller’s notifications are unread: what the panel’s bell shows. ${WHO}`;

export const MARK_ALL_NOTIFICATIONS_READ = `Marks every unread notification of the caller read, whatever filters a list used; \`marked\` says how many. ${WHO}`;

export const MARK_NOTIFICATION_READ = `Marks one notification read (\`marked\` is 0 when it already was). Another user’s notification, or with an API key one of another project, is 404 NOT_FOUND. ${WHO}`;
