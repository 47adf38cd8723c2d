CREATE TABLE "container_images" (
	"id" text PRIMARY KEY NOT NULL,
	"repository_id" text NOT NULL,
	"digest" text NOT NULL,
	"media_type" text NOT NULL,
	"size_bytes" bigint NOT NULL,
	"pushed_at" timestamp with time zone NOT NULL,
	"last_pulled_at" timestamp with time zone,
	"scan_status" text,
	"scan_findings" jsonb,
	"expired_at" timestamp with time zone,
	"removed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "container_registries" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"region" text NOT NULL,
	"image_tag_mutability" text NOT NULL,
	"scan_on_push" boolean NOT NULL,
	"encryption_type" text NOT NULL,
	"kms_key_arn" text,
	"lifecycle_enabled" boolean NOT NULL,
	"lifecycle_keep_last_n" integer NOT NULL,
	"lifecycle_untagged_after_days" integer NOT NULL,
	"billing_item_id" text NOT NULL,
	"billing_suspended_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone,
	"final_usage" jsonb
);
--> statement-breakpoint
CREATE TABLE "container_repositories" (
	"id" text PRIMARY KEY NOT NULL,
	"registry_id" text NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"visibility" text NOT NULL,
	"public_egress_cap_gb" integer,
	"public_egress_used_bytes" bigint DEFAULT 0 NOT NULL,
	"egress_period" text NOT NULL,
	"public_egress_cap_hit_at" timestamp with time zone,
	"egress_bytes" bigint DEFAULT 0 NOT NULL,
	"image_tag_mutability" text NOT NULL,
	"scan_on_push" boolean NOT NULL,
	"encryption_type" text NOT NULL,
	"kms_key_arn" text,
	"gc_enabled" boolean NOT NULL,
	"gc_keep_last_n" integer NOT NULL,
	"gc_delete_untagged" boolean NOT NULL,
	"gc_untagged_after_days" integer NOT NULL,
	"last_pushed_at" timestamp with time zone,
	"last_pulled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone,
	"purged_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "container_images" ADD CONSTRAINT "container_images_repository_id_container_repositories_id_fk" FOREIGN KEY ("repository_id") REFERENCES "public"."container_repositories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "container_registries" ADD CONSTRAINT "container_registries_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "container_repositories" ADD CONSTRAINT "container_repositories_registry_id_container_registries_id_fk" FOREIGN KEY ("registry_id") REFERENCES "public"."container_registries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "container_repositories" ADD CONSTRAINT "container_repositories_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "container_images_repository_digest_key" ON "container_images" USING btree ("repository_id","digest");--> statement-breakpoint
CREATE INDEX "container_images_expired_idx" ON "container_images" USING btree ("expired_at");--> statement-breakpoint
CREATE UNIQUE INDEX "container_registries_live_name_key" ON "container_registries" USING btree ("name") WHERE "container_registries"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "container_registries_project_idx" ON "container_registries" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "container_repositories_live_name_key" ON "container_repositories" USING btree ("registry_id","name") WHERE "container_repositories"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "container_repositories_project_idx" ON "container_repositories" USING btree ("project_id");