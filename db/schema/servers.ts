import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { POWER_ACTIONS } from '../../server/providers/infra/types';
import { SERVER_STATUSES } from '../../server/domains/servers/schema';
import { SSH_KEY_TYPES } from '../../server/domains/sshKeys/schema';
import { projects } from './projects';

/** OpenSSH public keys registered in a project; a server trusts the ones chosen at its creation. */
export const sshKeys = pgTable(
  'ssh_keys',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** Normalised to `<type> <base64>[ <comment>]`. */
    publicKey: text('public_key').notNull(),
    /** `SHA256:<unpadded base64>`, as `ssh-keygen -lf` prints it. */
    fingerprint: text('fingerprint').notNull(),
    keyType: text('key_type', { enum: SSH_KEY_TYPES }).notNull(),
    bits: integer('bits').notNull(),
    comment: text('comment'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('ssh_keys_project_fingerprint_key').on(t.projectId, t.fingerprint), index('ssh_keys_project_created_idx').on(t.projectId, t.createdAt)],
);

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
    terminatedAt: timestamp('terminated_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('servers_project_live_name_key').on(t.projectId, t.name).where(sql`${t.terminatedAt} is null`),
    index('servers_project_created_idx').on(t.projectId, t.createdAt),
    index('servers_provisioning_idx').on(t.status).where(sql`${t.terminatedAt} is null`),
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
  (t) => [uniqueIndex('infra_sim_machines_reference_key').on(t.reference)],
);
