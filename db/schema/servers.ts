import { sql } from 'drizzle-orm';
import { index, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { projects } from './projects';

/** The `<infra-provider>` of the specification: a server's `provider` and the catalogue's second path family. */
export const INFRA_PROVIDER_NAME = 'infra';

/**
 * PROVISIONING: first boot or a power action is still being applied. RUNNING: powered on.
 * OFF: powered off by power_off or shutdown (our name; the specification shows only the first two).
 */
export const SERVER_STATUSES = ['PROVISIONING', 'RUNNING', 'OFF'] as const;
export type ServerStatus = (typeof SERVER_STATUSES)[number];

export const POWER_ACTIONS = ['power_on', 'power_off', 'shutdown', 'reboot', 'power_cycle'] as const;
export type PowerAction = (typeof POWER_ACTIONS)[number];

/**
 * A server bought in a project. Rows stay after deletion (`terminatedAt`) so charges and events keep
 * pointing at something; only live rows (terminatedAt null) are listed, counted and hold their name.
 */
export const servers = pgTable(
  'servers',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    type: text('type', { enum: ['LAMP'] }).notNull(),
    region: text('region').notNull(),
    /** The size slug (SPEC's field name). */
    instanceType: text('instance_type').notNull(),
    image: text('image').notNull(),
    status: text('status', { enum: SERVER_STATUSES }).notNull(),
    /** The power action sent and not yet seen applied: reconciliation waits for its result. */
    pendingAction: text('pending_action', { enum: POWER_ACTIONS }),
    /** Null until the machine has started for the first time. */
    ipAddress: text('ip_address'),
    hostname: text('hostname').notNull(),
    sshUser: text('ssh_user').notNull(),
    phpVersion: text('php_version').notNull(),
    pgVersion: text('pg_version').notNull(),
    pgDatabase: text('pg_database').notNull(),
    pgUsername: text('pg_username').notNull(),
    providerMachineId: text('provider_machine_id').notNull(),
    billingItemId: text('billing_item_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /** Set by the first delete call; the server stays listed until the machine is gone upstream. */
    deleteRequestedAt: timestamp('delete_requested_at', { withTimezone: true, mode: 'date' }),
    /** Set when a billing suspension powered the server off; it is powered back on once the suspension is lifted. */
    suspendedAt: timestamp('suspended_at', { withTimezone: true, mode: 'date' }),
    terminatedAt: timestamp('terminated_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('servers_project_live_name_key')
      .on(t.projectId, t.name)
      .where(sql`${t.terminatedAt} is null`),
    index('servers_project_created_idx').on(t.projectId, t.createdAt),
    index('servers_provisioning_idx')
      .on(t.status)
      .where(sql`${t.terminatedAt} is null`),
  ],
);

/**
 * The keys a server was created with. Name and fingerprint are copied, and the key id is not a
 * foreign key, because the machine keeps trusting a key after it is deleted from the project.
 */
export const serverSshKeys = pgTable(
  'server_ssh_keys',
  {
    serverId: text('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    sshKeyId: text('ssh_key_id').notNull(),
    name: text('name').notNull(),
    fingerprint: text('fingerprint').notNull(),
  },
  (t) => [primaryKey({ columns: [t.serverId, t.sshKeyId] }), index('server_ssh_keys_key_idx').on(t.sshKeyId)],
);
