CREATE TABLE "database_tenants" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text,
	"db_name" text NOT NULL,
	"db_user" text NOT NULL,
	"pool_user" text NOT NULL,
	"tier" text NOT NULL,
	"pool_mode" text NOT NULL,
	"billing_item_id" text NOT NULL,
	"storage_bytes" bigint,
	"storage_measured_at" timestamp with time zone,
	"read_only_since" timestamp with time zone,
	"billing_suspended_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone,
	"purged_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "database_tenants" ADD CONSTRAINT "database_tenants_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "database_tenants_cluster_name_key" ON "database_tenants" USING btree ("db_name") WHERE "database_tenants"."purged_at" is null;--> statement-breakpoint
CREATE INDEX "database_tenants_project_idx" ON "database_tenants" USING btree ("project_id","created_at");