import { boolean, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * What the simulated git hosts hold beyond their seeded accounts and repositories: installations of
 * the platform's app (host 1), OAuth codes and tokens (hosts 2 and 3, stored as SHA-256 hashes),
 * repository webhooks, pushed commits and deployment copies. Kept in the database so every process
 * of the platform sees the same upstream.
 */
export const gitSimInstallations = pgTable('git_sim_installations', {
  id: text('id').primaryKey(),
  account: text('account').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  suspended: boolean('suspended').notNull().default(false),
  uninstalledAt: timestamp('uninstalled_at', { withTimezone: true, mode: 'date' }),
});

export const gitSimTokens = pgTable(
  'git_sim_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    host: text('host').notNull(),
    kind: text('kind', { enum: ['code', 'access', 'refresh'] }).notNull(),
    account: text('account').notNull(),
    scopes: text('scopes').notNull().default(''),
    /** The grant a code or token belongs to: revoking the grant ends all of its tokens, and a refresh ends the earlier ones. */
    grantId: text('grant_id'),
    /** A code's redirect URI: the exchange must name the same one, as OAuth requires. */
    redirectUri: text('redirect_uri'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('git_sim_tokens_account_idx').on(t.host, t.account), index('git_sim_tokens_grant_idx').on(t.grantId)],
);

export const gitSimHooks = pgTable(
  'git_sim_hooks',
  {
    id: text('id').primaryKey(),
    host: text('host').notNull(),
    repository: text('repository').notNull(),
    url: text('url').notNull(),
    /** Sealed, bound to `id`: the simulated host signs its deliveries with it. */
    sealedSecret: text('sealed_secret').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('git_sim_hooks_repository_idx').on(t.host, t.repository)],
);

/** Commits pushed to a branch after the seed; the newest is the branch's head. */
export const gitSimCommits = pgTable(
  'git_sim_commits',
  {
    sha: text('sha').primaryKey(),
    host: text('host').notNull(),
    repository: text('repository').notNull(),
    branch: text('branch').notNull(),
    message: text('message').notNull(),
    author: text('author').notNull(),
    pushedAt: timestamp('pushed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('git_sim_commits_branch_idx').on(t.host, t.repository, t.branch, t.pushedAt)],
);

/** Repositories copied into the deployment organisation (hosts 2 and 3). */
export const gitSimCopies = pgTable('git_sim_copies', {
  copy: text('copy').primaryKey(),
  host: text('host').notNull(),
  source: text('source').notNull(),
  syncedAt: timestamp('synced_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
