import { pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts';
import { projects } from './projects';

/**
 * Plaintext configuration of a project, one row per name and deployment environment. `environment`
 * holds one of the platform's environments (server/platform/configuration.ts), checked on input.
 */
export const variables = pgTable(
  'variables',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    value: text('value').notNull(),
    environment: text('environment').notNull().default('default'),
    description: text('description'),
    createdByUserId: text('created_by_user_id')
      .notNull()
      .references(() => users.id),
    updatedByUserId: text('updated_by_user_id')
      .notNull()
      .references(() => users.id),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('variables_project_environment_name_key').on(t.projectId, t.environment, t.name)],
);
