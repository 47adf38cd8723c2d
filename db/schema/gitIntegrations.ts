import { index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts';
import { projects } from './projects';

/** The git hosts a project can connect, by SPEC's path segment. */
export const GIT_HOSTS = ['git-host-1', 'git-host-2', 'git-host-3'] as const;
export type GitHost = (typeof GIT_HOSTS)[number];
/** The OAuth-based hosts (2 and 3): a grant per project. Host 1 works with app installations. */
export const OAUTH_GIT_HOSTS = ['git-host-2', 'git-host-3'] as const;
export type OAuthGitHost = (typeof OAUTH_GIT_HOSTS)[number];

/**
 * An installation of the platform's app on a git host 1 account, as far as the platform knows it.
 * Shared by every project that links it; removed upstream when no project references it any more.
 */
export const gitHost1Installations = pgTable('git_host1_installations', {
  installationId: text('installation_id').primaryKey(),
  accountLogin: text('account_login').notNull(),
  accountType: text('account_type', { enum: ['User', 'Organization'] }).notNull(),
  /** The user who installed or first linked it; linkable for that user in their other projects. */
  installedBy: text('installed_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/** A project's use of an installation. */
export const gitHost1Links = pgTable(
  'git_host1_links',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    installationId: text('installation_id')
      .notNull()
      .references(() => gitHost1Installations.installationId, { onDelete: 'cascade' }),
    linkedBy: text('linked_by').references(() => users.id, { onDelete: 'set null' }),
    linkedAt: timestamp('linked_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.installationId] }), index('git_host1_links_installation_idx').on(t.installationId)],
);

/** A project's OAuth grant on git host 2 or 3; both tokens sealed, bound to `id`. */
export const gitOAuthConnections = pgTable(
  'git_oauth_connections',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    host: text('host', { enum: OAUTH_GIT_HOSTS }).notNull(),
    accountLogin: text('account_login').notNull(),
    sealedAccessToken: text('sealed_access_token').notNull(),
    sealedRefreshToken: text('sealed_refresh_token'),
    /** When the access token stops working; null when it does not expire. */
    accessTokenExpiresAt: timestamp('access_token_expires_at', { withTimezone: true, mode: 'date' }),
    scopes: text('scopes').notNull().default(''),
    connectedBy: text('connected_by').references(() => users.id, { onDelete: 'set null' }),
    connectedAt: timestamp('connected_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('git_oauth_connections_project_host_key').on(t.projectId, t.host)],
);

/**
 * A push webhook the platform registered on a repository of git host 2 or 3 for a project. Its
 * secret (host 2's HMAC key, host 3's token) is scoped to that repository and sealed, bound to `id`;
 * the delivery URL names `id`, so a delivery is checked against its own repository's secret.
 */
export const gitRepositoryWebhooks = pgTable(
  'git_repository_webhooks',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    host: text('host', { enum: OAUTH_GIT_HOSTS }).notNull(),
    repository: text('repository').notNull(),
    upstreamHookId: text('upstream_hook_id').notNull(),
    sealedSecret: text('sealed_secret').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('git_repository_webhooks_project_repo_key').on(t.projectId, t.host, t.repository)],
);

/** Inbound webhook deliveries already processed, by the host's delivery id: a replay is answered, not acted on. */
export const gitWebhookDeliveries = pgTable(
  'git_webhook_deliveries',
  {
    host: text('host', { enum: GIT_HOSTS }).notNull(),
    deliveryId: text('delivery_id').notNull(),
    event: text('event').notNull(),
    queued: integer('queued').notNull().default(0),
    receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.host, t.deliveryId] }), index('git_webhook_deliveries_received_idx').on(t.receivedAt)],
);

/** A project's image hub credential (SPEC's `image-hub`): the access token sealed, bound to the project id. */
export const imageHubConnections = pgTable('image_hub_connections', {
  projectId: text('project_id')
    .primaryKey()
    .references(() => projects.id, { onDelete: 'cascade' }),
  username: text('username').notNull(),
  sealedAccessToken: text('sealed_access_token').notNull(),
  connectedBy: text('connected_by').references(() => users.id, { onDelete: 'set null' }),
  connectedAt: timestamp('connected_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
