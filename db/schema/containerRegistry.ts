import { sql } from 'drizzle-orm';
import { bigint, boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { projects } from './projects';

export const TAG_MUTABILITIES = ['MUTABLE', 'IMMUTABLE'] as const;
export const ENCRYPTION_TYPES = ['AES256', 'KMS'] as const;
export const REPOSITORY_VISIBILITIES = ['PRIVATE', 'PUBLIC'] as const;

export type TagMutability = (typeof TAG_MUTABILITIES)[number];
export type EncryptionType = (typeof ENCRYPTION_TYPES)[number];
export type RepositoryVisibility = (typeof REPOSITORY_VISIBILITIES)[number];

/**
 * A container registry bought in a project. Its name is the first path component of every image
 * (`<host>/<name>/<repository>`), so one live registry holds a name across every project. Deleted
 * rows stay (`deletedAt`) for the charges that point at them.
 */
export const containerRegistries = pgTable(
  'container_registries',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    region: text('region').notNull(),
    imageTagMutability: text('image_tag_mutability', { enum: TAG_MUTABILITIES }).notNull(),
    scanOnPush: boolean('scan_on_push').notNull(),
    /** Applies to repositories created from now on; each repository keeps the one it was made with. */
    encryptionType: text('encryption_type', { enum: ENCRYPTION_TYPES }).notNull(),
    kmsKeyArn: text('kms_key_arn'),
    lifecycleEnabled: boolean('lifecycle_enabled').notNull(),
    lifecycleKeepLastN: integer('lifecycle_keep_last_n').notNull(),
    lifecycleUntaggedAfterDays: integer('lifecycle_untagged_after_days').notNull(),
    billingItemId: text('billing_item_id').notNull(),
    /** Set while a billing suspension keeps the registry closed to pushes and anonymous pulls. */
    billingSuspendedAt: timestamp('billing_suspended_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
    /** The last reading taken when billing stopped: bytes stored and pulled in its final period. */
    finalUsage: jsonb('final_usage').$type<{ storageBytes: number; egressBytes: number; measuredAt: string }>(),
  },
  (t) => [
    uniqueIndex('container_registries_live_name_key')
      .on(t.name)
      .where(sql`${t.deletedAt} is null`),
    index('container_registries_project_idx').on(t.projectId, t.createdAt),
  ],
);

/** A repository of a registry: its visibility, its egress cap when public, and its retention policy. */
export const containerRepositories = pgTable(
  'container_repositories',
  {
    id: text('id').primaryKey(),
    registryId: text('registry_id')
      .notNull()
      .references(() => containerRegistries.id, { onDelete: 'cascade' }),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    visibility: text('visibility', { enum: REPOSITORY_VISIBILITIES }).notNull(),
    publicEgressCapGb: integer('public_egress_cap_gb'),
    /** Anonymous egress of `egressPeriod` (YYYY-MM), in bytes; a new period starts from zero. */
    publicEgressUsedBytes: bigint('public_egress_used_bytes', { mode: 'number' }).notNull().default(0),
    egressPeriod: text('egress_period').notNull(),
    publicEgressCapHitAt: timestamp('public_egress_cap_hit_at', { withTimezone: true, mode: 'date' }),
    /** Every pull's bytes this period, keyed or anonymous: what the registry's egress is metered from. */
    egressBytes: bigint('egress_bytes', { mode: 'number' }).notNull().default(0),
    imageTagMutability: text('image_tag_mutability', { enum: TAG_MUTABILITIES }).notNull(),
    scanOnPush: boolean('scan_on_push').notNull(),
    encryptionType: text('encryption_type', { enum: ENCRYPTION_TYPES }).notNull(),
    kmsKeyArn: text('kms_key_arn'),
    gcEnabled: boolean('gc_enabled').notNull(),
    gcKeepLastN: integer('gc_keep_last_n').notNull(),
    gcDeleteUntagged: boolean('gc_delete_untagged').notNull(),
    gcUntaggedAfterDays: integer('gc_untagged_after_days').notNull(),
    lastPushedAt: timestamp('last_pushed_at', { withTimezone: true, mode: 'date' }),
    lastPulledAt: timestamp('last_pulled_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
    /** When the images of a deleted repository were gone from the registry; a job finishes what a delete could not. */
    purgedAt: timestamp('purged_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    uniqueIndex('container_repositories_live_name_key')
      .on(t.registryId, t.name)
      .where(sql`${t.deletedAt} is null`),
    index('container_repositories_project_idx').on(t.projectId),
  ],
);

export type ScanFindings = Record<string, number>;

/**
 * What the platform learnt of an image from the registry's notifications: when it was pushed and
 * last pulled, and its scan. Tags are never stored: they are read from the registry.
 */
export const containerImages = pgTable(
  'container_images',
  {
    id: text('id').primaryKey(),
    repositoryId: text('repository_id')
      .notNull()
      .references(() => containerRepositories.id, { onDelete: 'cascade' }),
    digest: text('digest').notNull(),
    mediaType: text('media_type').notNull(),
    sizeBytes: bigint('size_bytes', { mode: 'number' }).notNull(),
    pushedAt: timestamp('pushed_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastPulledAt: timestamp('last_pulled_at', { withTimezone: true, mode: 'date' }),
    scanStatus: text('scan_status', { enum: ['COMPLETE'] }),
    scanFindings: jsonb('scan_findings').$type<ScanFindings>(),
    /** Deleted by the retention policy; listed until the registry's garbage collection frees it. */
    expiredAt: timestamp('expired_at', { withTimezone: true, mode: 'date' }),
    /** Gone from the registry: deleted by a customer, or expired and collected. */
    removedAt: timestamp('removed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('container_images_repository_digest_key').on(t.repositoryId, t.digest), index('container_images_expired_idx').on(t.expiredAt)],
);
