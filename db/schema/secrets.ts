import { index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts';
import { projects } from './projects';

/** The deployment environments of configuration (the same list as server/platform/configuration.ts). */
export const SECRET_ENVIRONMENTS = ['default', 'development', 'staging', 'production'] as const;

/** What the secret audit trail records (SPEC: Secret audit entry). */
export const SECRET_AUDIT_ACTIONS = ['CREATED', 'UPDATED', 'DELETED'] as const;
export type SecretAuditAction = (typeof SECRET_AUDIT_ACTIONS)[number];

/**
 * A project's secret in one environment. The value is sealed (envelope encryption bound to the
 * row's id) and never stored in the clear; one name per environment, held by a unique index so two
 * concurrent creations cannot both win.
 */
export const secrets = pgTable(
  'secrets',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    environment: text('environment', { enum: SECRET_ENVIRONMENTS }).notNull(),
    description: text('description').notNull().default(''),
    sealedValue: text('sealed_value').notNull(),
    version: integer('version').notNull().default(1),
    createdBy: text('created_by')
      .notNull()
      .references(() => users.id),
    updatedBy: text('updated_by')
      .notNull()
      .references(() => users.id),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('secrets_project_environment_name_key').on(t.projectId, t.environment, t.name)],
);

/**
 * The trail of one secret: who created, changed and deleted it. No foreign key to the secret, so the
 * trail outlives it; it goes with its project.
 */
export const secretAuditEntries = pgTable(
  'secret_audit_entries',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    secretId: text('secret_id').notNull(),
    action: text('action', { enum: SECRET_AUDIT_ACTIONS }).notNull(),
    actorUserId: text('actor_user_id')
      .notNull()
      .references(() => users.id),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('secret_audit_entries_secret_idx').on(t.projectId, t.secretId, t.createdAt)],
);

/**
 * Packs of extra secrets bought by one upgrade, each a subscription item of its own: the monthly
 * close bills them while their item is active.
 */
export const secretPacks = pgTable(
  'secret_packs',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    packs: integer('packs').notNull(),
    /** The item the billing engine writes right after the packs, in the same transaction (so no foreign key). */
    billingItemId: text('billing_item_id').notNull(),
    purchasedBy: text('purchased_by')
      .notNull()
      .references(() => users.id),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('secret_packs_project_idx').on(t.projectId)],
);
