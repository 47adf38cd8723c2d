import type { NotificationType } from '../../../db/schema/notifications';

/** Who is told of an event, among the people of its project. */
export type Audience =
  /** Every member of the project, whatever their role. */
  | { kind: 'members' }
  /** Owners and admins: the people who manage the project. */
  | { kind: 'admins' }
  /** Whoever pays (the biller) and the owners: money matters. */
  | { kind: 'billing' }
  /** One person the payload names (`to`, `userId`), member or not. */
  | { kind: 'payloadUser'; field: string }
  /** Whoever sent the invitation the payload names. */
  | { kind: 'inviter' };

/** What a rule is given to write its notification from: the payload and the names it refers to. */
export interface RenderInput {
  payload: Record<string, unknown>;
  project: { id: string; name: string };
  /** A user's name (falls back to "Someone" for a user who no longer exists). */
  nameOf(userId: unknown): string;
}

export interface RenderedNotification {
  type: NotificationType;
  title: string;
  body: string;
  /** A panel path. */
  link: string;
}

export interface NotificationRule {
  audience: Audience;
  /**
   * The user who caused the event, who is not told of their own action: they know. `payload.by`
   * unless stated; events without an actor (the monthly close, dunning, webhook deliveries) tell
   * everyone in the audience.
   */
  actor?: (payload: Record<string, unknown>) => unknown;
  /** Tell the actor too: a security signal that means nothing to them only if they really did it. */
  tellActor?: boolean;
  /** Also left out: people another rule tells of the same happening (the inviter hears of their invitation's acceptance). */
  alsoExcludeInviter?: boolean;
  render(input: RenderInput): RenderedNotification;
}

const projectPath = (input: RenderInput, rest = '') => `/projects/${input.project.id}${rest}`;
const text = (payload: Record<string, unknown>, field: string): string | undefined => {
  const value = payload[field];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
};

/** Minor units in the currency's own decimals (USD 12.00, JPY 1200). */
function formatMoney(amount: unknown, currency: unknown): string {
  if (typeof amount !== 'number' || typeof currency !== 'string' || currency.length !== 3) return 'an amount';
  try {
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase(), currencyDisplay: 'code' });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(amount / 10 ** digits).replace(/\u00a0/g, ' ');
  } catch {
    return `${amount} ${currency.toUpperCase()} (minor units)`;
  }
}

const serverName = (payload: Record<string, unknown>) => {
  const name = text(payload, 'name');
  return name ? `the server ${name}` : 'a server';
};
const serverPath = (payload: Record<string, unknown>) => {
  const serverId = text(payload, 'serverId');
  return serverId ? `/servers/${serverId}` : '/servers';
};
const capitalised = (value: string) => value.charAt(0).toUpperCase() + value.slice(1);

function formatDay(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString().slice(0, 10);
}

/** Only the host: a webhook URL often carries its token in the path or query, and a notification must never show it. */
function hostOf(url: unknown): string {
  if (typeof url !== 'string') return 'the endpoint';
  try {
    return new URL(url).host || 'the endpoint';
  } catch {
    return 'the endpoint';
  }
}

const BILLING: Audience = { kind: 'billing' };
const MEMBERS: Audience = { kind: 'members' };
const ADMINS: Audience = { kind: 'admins' };

/**
 * The one table of what the platform tells people: event type → who is told → what they read.
 * Event types missing here notify no one (webhooks still deliver them).
 */
export const NOTIFICATION_RULES: Readonly<Record<string, NotificationRule>> = {
  'invoice.paid': {
    audience: BILLING,
    render: ({ payload, project }) => {
      const amount = formatMoney(payload.amount, payload.currency);
      const period = text(payload, 'period');
      return {
        type: 'SUCCESS',
        title: 'Invoice paid',
        body: period ? `The ${period} invoice of ${project.name} (${amount}) is paid.` : `A payment of ${amount} for ${project.name} was received.`,
        link: `/projects/${project.id}/billing`,
      };
    },
  },
  'invoice.payment_failed': {
    audience: BILLING,
    render: (input) => {
      const { payload, project } = input;
      const retry = formatDay(payload.nextAttemptAt);
      return {
        type: 'ERROR',
        title: 'Invoice payment failed',
        body:
          `The ${text(payload, 'period') ?? 'latest'} invoice of ${project.name} (${formatMoney(payload.amount, payload.currency)}) could not be charged; ` +
          `new paid resources are blocked until it is paid. ${retry ? `The card is charged again on ${retry}; ` : ''}pay it or change the card on the Billing page.`,
        link: projectPath(input, '/billing'),
      };
    },
  },
  'payment.failed': {
    audience: BILLING,
    render: (input) => ({
      type: 'ERROR',
      title: 'Payment failed',
      body: `A payment of ${formatMoney(input.payload.amount, input.payload.currency)} for ${input.project.name} was declined. Check the card on the Billing page.`,
      link: projectPath(input, '/billing'),
    }),
  },
  'order.refunded': {
    audience: BILLING,
    render: (input) => ({
      type: 'INFO',
      title: 'Refund issued',
      body: `${formatMoney(input.payload.amount, input.payload.currency)} for ${input.project.name} was refunded to the card it was charged to.`,
      link: projectPath(input, '/billing'),
    }),
  },
  'billing.project_suspended': {
    audience: MEMBERS,
    render: (input) => ({
      type: 'ERROR',
      title: 'Project suspended',
      body: `${input.project.name} is suspended: an invoice stayed unpaid past the grace period. Its servers are stopped, nothing is deleted; paying the unpaid invoices brings them back.`,
      link: projectPath(input, '/billing'),
    }),
  },
  'billing.project_resumed': {
    audience: MEMBERS,
    render: (input) => ({
      type: 'SUCCESS',
      title: 'Project resumed',
      body: `The unpaid invoices of ${input.project.name} are paid; what the suspension stopped is starting again.`,
      link: projectPath(input),
    }),
  },
  'billing.transfer_proposed': {
    audience: { kind: 'payloadUser', field: 'to' },
    render: (input) => ({
      type: 'INFO',
      title: 'Billing offered to you',
      body: `${input.nameOf(input.payload.by)} asks you to pay for ${input.project.name} with your card. Accept or decline on the Billing page.`,
      link: projectPath(input, '/billing'),
    }),
  },
  'server.created': {
    audience: MEMBERS,
    render: (input) => ({
      type: 'INFO',
      title: 'Server created',
      body: `${input.nameOf(input.payload.by)} created ${serverName(input.payload)} in ${input.project.name}.`,
      link: projectPath(input, serverPath(input.payload)),
    }),
  },
  'server.deleted': {
    audience: MEMBERS,
    render: (input) => ({
      type: 'WARNING',
      title: 'Server deleted',
      body: `${input.nameOf(input.payload.by)} deleted ${serverName(input.payload)} in ${input.project.name}; its billing stopped.`,
      link: projectPath(input, '/servers'),
    }),
  },
  'server.suspended': {
    audience: ADMINS,
    render: (input) => ({
      type: 'WARNING',
      title: 'Server stopped',
      body: `${capitalised(serverName(input.payload))} in ${input.project.name} was powered off because the project is suspended for an unpaid invoice. It starts again once the invoice is paid.`,
      link: projectPath(input, serverPath(input.payload)),
    }),
  },
  'database_tenant.storage_limit_reached': {
    audience: MEMBERS,
    render: (input) => {
      const dbName = text(input.payload, 'dbName') ?? 'a database';
      const limit = typeof input.payload.limitGb === 'number' ? `${input.payload.limitGb} GB` : 'its storage limit';
      return {
        type: 'WARNING',
        title: 'Database is read-only',
        body: `The PostgreSQL database ${dbName} in ${input.project.name} grew past ${limit} and is now read-only. Delete data (in a session opened with SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE) or raise its tier to write again.`,
        link: projectPath(input, '/databases'),
      };
    },
  },
  'database_tenant.writable_again': {
    audience: MEMBERS,
    render: (input) => ({
      type: 'SUCCESS',
      title: 'Database is writable again',
      body: `The PostgreSQL database ${text(input.payload, 'dbName') ?? 'a database'} in ${input.project.name} is back under its storage limit and accepts writes again.`,
      link: projectPath(input, '/databases'),
    }),
  },
  'member.joined': {
    audience: ADMINS,
    actor: (payload) => payload.userId,
    alsoExcludeInviter: true,
    render: (input) => ({
      type: 'INFO',
      title: 'New member',
      body: `${input.nameOf(input.payload.userId)} joined ${input.project.name} as ${text(input.payload, 'role') ?? 'a member'}.`,
      link: projectPath(input, '/members'),
    }),
  },
  'member.removed': {
    audience: { kind: 'payloadUser', field: 'userId' },
    render: (input) => ({
      type: 'WARNING',
      title: 'Removed from a project',
      body: `${input.nameOf(input.payload.by)} removed you from ${input.project.name}. Your API keys of that project were revoked.`,
      link: '/projects',
    }),
  },
  'invitation.accepted': {
    audience: { kind: 'inviter' },
    actor: (payload) => payload.userId,
    render: (input) => ({
      type: 'SUCCESS',
      title: 'Invitation accepted',
      body: `${input.nameOf(input.payload.userId)} accepted your invitation to ${input.project.name}.`,
      link: projectPath(input, '/members'),
    }),
  },
  'api_key.created': {
    audience: ADMINS,
    tellActor: true,
    render: (input) => {
      const scopes = Array.isArray(input.payload.scopes) ? input.payload.scopes.filter((s) => typeof s === 'string') : [];
      return {
        type: 'INFO',
        title: 'API key created',
        body: `${input.nameOf(input.payload.by)} created the API key "${text(input.payload, 'name') ?? ''}" in ${input.project.name}${scopes.length > 0 ? ` with ${scopes.join(', ')}` : ''}. If that was not expected, revoke it.`,
        link: projectPath(input, '/api-keys'),
      };
    },
  },
  'webhook.endpoint_paused': {
    audience: ADMINS,
    render: (input) => {
      const failures = typeof input.payload.consecutiveFailures === 'number' ? input.payload.consecutiveFailures : undefined;
      return {
        type: 'WARNING',
        title: 'Webhook endpoint paused',
        body: `Deliveries to ${hostOf(input.payload.url)} in ${input.project.name} are paused${failures ? ` after ${failures} failed attempts in a row` : ''}. They are kept and sent again when you resume the endpoint.`,
        link: projectPath(input, '/webhooks'),
      };
    },
  },
};
