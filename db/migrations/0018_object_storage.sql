CREATE TABLE "buckets" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"region" text NOT NULL,
	"tier" text NOT NULL,
	"public_access" boolean NOT NULL,
	"versioning" boolean NOT NULL,
	"cors_rules" jsonb NOT NULL,
	"cdn_enabled" boolean NOT NULL,
	"cdn_domain" text,
	"cdn_requested_at" timestamp with time zone,
	"status" text NOT NULL,
	"suspended_at" timestamp with time zone,
	"billing_suspended_at" timestamp with time zone,
	"billing_item_id" text NOT NULL,
	"storage_bytes" bigint DEFAULT 0 NOT NULL,
	"objects" bigint DEFAULT 0 NOT NULL,
	"egress_bytes" bigint DEFAULT 0 NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	"usage_measured_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "storage_credentials" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"access_key_id" text NOT NULL,
	"bucket_ids" jsonb,
	"access" text NOT NULL,
	"legacy" boolean DEFAULT false NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "buckets" ADD CONSTRAINT "buckets_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "storage_credentials" ADD CONSTRAINT "storage_credentials_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "storage_credentials" ADD CONSTRAINT "storage_credentials_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "buckets_live_name_key" ON "buckets" USING btree ("name") WHERE "buckets"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "buckets_project_idx" ON "buckets" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "storage_credentials_access_key_key" ON "storage_credentials" USING btree ("access_key_id");--> statement-breakpoint
CREATE UNIQUE INDEX "storage_credentials_project_name_key" ON "storage_credentials" USING btree ("project_id","name");