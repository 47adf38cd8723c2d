import { index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * The infrastructure simulator's own machines: what the upstream provider would hold. Status is
 * derived from these timestamps whenever a machine is read, so every process, and a restarted one,
 * sees the same machine at the same moment.
 */
export const infraSimMachines = pgTable(
  'infra_sim_machines',
  {
    id: text('id').primaryKey(),
    /** The caller's reference (a provider tag), unique so a retried creation finds its machine. */
    reference: text('reference').notNull(),
    /** The caller's project (a provider tag): a project's machines are read without the others. Null on machines made before it was recorded. */
    project: text('project'),
    name: text('name').notNull(),
    region: text('region').notNull(),
    size: text('size').notNull(),
    image: text('image').notNull(),
    sshPublicKeys: jsonb('ssh_public_keys').$type<string[]>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** When first boot completes; the machine is `new` and locked until then. */
    readyAt: timestamp('ready_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** Power once the latest action has been applied. */
    power: text('power', { enum: ['on', 'off'] }).notNull(),
    /** Power while the latest action is still being applied. */
    powerBeforeAction: text('power_before_action', { enum: ['on', 'off'] }),
    lastAction: text('last_action'),
    actionCompletesAt: timestamp('action_completes_at', { withTimezone: true, mode: 'date' }),
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('infra_sim_machines_reference_key').on(t.reference), index('infra_sim_machines_project_idx').on(t.project)],
);
