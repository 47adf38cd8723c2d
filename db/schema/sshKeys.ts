import { index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { projects } from './projects';

/** The OpenSSH public key types servers accept; DSA and security-key types are refused. */
export const SSH_KEY_TYPES = ['ssh-ed25519', 'ssh-rsa', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521'] as const;
export type SshKeyType = (typeof SSH_KEY_TYPES)[number];

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
