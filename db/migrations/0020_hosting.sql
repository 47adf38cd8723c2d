CREATE TABLE "hosting_databases" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"name" text NOT NULL,
	"db_name" text NOT NULL,
	"db_user" text NOT NULL,
	"sealed_password" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "hosting_domains" (
	"id" text PRIMARY KEY NOT NULL,
	"site_id" text NOT NULL,
	"hostname" text NOT NULL,
	"kind" text NOT NULL,
	"document_root" text,
	"redirect_target" text,
	"redirect_status" integer,
	"routing_status" text NOT NULL,
	"verification_token" text NOT NULL,
	"certificate_issued_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "hosting_sites" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"site_name" text NOT NULL,
	"tier" text NOT NULL,
	"php_version" text NOT NULL,
	"extra_storage_gb" integer NOT NULL,
	"disk_gb" integer NOT NULL,
	"sealed_sftp_password" text NOT NULL,
	"billing_item_id" text NOT NULL,
	"billing_suspended_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "hosting_databases" ADD CONSTRAINT "hosting_databases_site_id_hosting_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."hosting_sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hosting_domains" ADD CONSTRAINT "hosting_domains_site_id_hosting_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."hosting_sites"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hosting_sites" ADD CONSTRAINT "hosting_sites_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "hosting_databases_live_name_key" ON "hosting_databases" USING btree ("site_id","name") WHERE "hosting_databases"."deleted_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "hosting_domains_live_hostname_key" ON "hosting_domains" USING btree ("hostname") WHERE "hosting_domains"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "hosting_domains_site_idx" ON "hosting_domains" USING btree ("site_id");--> statement-breakpoint
CREATE UNIQUE INDEX "hosting_sites_live_name_key" ON "hosting_sites" USING btree ("site_name") WHERE "hosting_sites"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "hosting_sites_project_idx" ON "hosting_sites" USING btree ("project_id","created_at");