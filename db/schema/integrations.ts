import { boolean, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './accounts';
import { projects } from './projects';

export const DNS_CONNECTION_TYPES = ['API_TOKEN', 'OAUTH'] as const;
export type DnsConnectionType = (typeof DNS_CONNECTION_TYPES)[number];

/**
 * A project's DNS provider integration. The settings outlive a disconnection: disconnecting clears
 * the credential and the connection columns only. The credential is sealed, bound to the project id.
 */
export const dnsProviderConnections = pgTable('dns_provider_connections', {
  projectId: text('project_id')
    .primaryKey()
    .references(() => projects.id, { onDelete: 'cascade' }),
  connectionType: text('connection_type', { enum: DNS_CONNECTION_TYPES }),
  sealedCredential: text('sealed_credential'),
  accountName: text('account_name'),
  autoDnsEnabled: boolean('auto_dns_enabled').notNull().default(false),
  connectedBy: text('connected_by').references(() => users.id, { onDelete: 'set null' }),
  connectedAt: timestamp('connected_at', { withTimezone: true, mode: 'date' }),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
