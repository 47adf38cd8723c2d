import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { projects } from './projects';

export const HOSTING_TIERS = ['STARTER', 'GROWTH', 'SCALE'] as const;
export const PHP_VERSIONS = ['8.1', '8.2', '8.3'] as const;
export const HOSTING_DOMAIN_KINDS = ['SITE', 'REDIRECT', 'PARKED'] as const;
export const ROUTING_STATUSES = ['VERIFYING', 'ACTIVE'] as const;

export type HostingTier = (typeof HOSTING_TIERS)[number];
export type PhpVersion = (typeof PHP_VERSIONS)[number];
export type HostingDomainKind = (typeof HOSTING_DOMAIN_KINDS)[number];

/**
 * A PHP hosting site: a home folder of files, served by its own PHP pool, reached over SFTP with
 * its name as the username. The name is global (it is the SFTP username and the site's own
 * address), so one live site holds a name across every project.
 */
export const hostingSites = pgTable(
  'hosting_sites',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    siteName: text('site_name').notNull(),
    tier: text('tier', { enum: HOSTING_TIERS }).notNull(),
    phpVersion: text('php_version', { enum: PHP_VERSIONS }).notNull(),
    /** Bought on top of the tier's disk, in blocks of 10 GB. */
    extraStorageGb: integer('extra_storage_gb').notNull(),
    /** The disk the site was given: the tier's at creation plus extra storage; a tier change leaves it. */
    diskGb: integer('disk_gb').notNull(),
    /** The SFTP password, sealed to the site's id. */
    sealedSftpPassword: text('sealed_sftp_password').notNull(),
    billingItemId: text('billing_item_id').notNull(),
    /** Set while a billing suspension keeps the site offline and its SFTP closed. */
    billingSuspendedAt: timestamp('billing_suspended_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('hosting_sites_live_name_key')
      .on(t.siteName)
      .where(sql`${t.deletedAt} is null`),
    index('hosting_sites_project_idx').on(t.projectId, t.createdAt),
  ],
);

/** A MySQL database of a site, with its own user limited to it. */
export const hostingDatabases = pgTable(
  'hosting_databases',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => hostingSites.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    dbName: text('db_name').notNull(),
    dbUser: text('db_user').notNull(),
    sealedPassword: text('sealed_password').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('hosting_databases_live_name_key')
      .on(t.siteId, t.name)
      .where(sql`${t.deletedAt} is null`),
  ],
);

/** A hostname attached to a site: served from a folder, redirected, or parked. */
export const hostingDomains = pgTable(
  'hosting_domains',
  {
    id: text('id').primaryKey(),
    siteId: text('site_id')
      .notNull()
      .references(() => hostingSites.id, { onDelete: 'cascade' }),
    hostname: text('hostname').notNull(),
    kind: text('kind', { enum: HOSTING_DOMAIN_KINDS }).notNull(),
    /** Relative to the site's home; null unless kind is SITE. */
    documentRoot: text('document_root'),
    redirectTarget: text('redirect_target'),
    redirectStatus: integer('redirect_status'),
    routingStatus: text('routing_status', { enum: ROUTING_STATUSES }).notNull(),
    /** The value of the ownership TXT record asked for. */
    verificationToken: text('verification_token').notNull(),
    certificateIssuedAt: timestamp('certificate_issued_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('hosting_domains_live_hostname_key')
      .on(t.hostname)
      .where(sql`${t.deletedAt} is null`),
    index('hosting_domains_site_idx').on(t.siteId),
  ],
);
