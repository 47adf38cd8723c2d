CREATE TABLE "infra_sim_machines" (
	"id" text PRIMARY KEY NOT NULL,
	"reference" text NOT NULL,
	"name" text NOT NULL,
	"region" text NOT NULL,
	"size" text NOT NULL,
	"image" text NOT NULL,
	"ssh_public_keys" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"ready_at" timestamp with time zone NOT NULL,
	"power" text NOT NULL,
	"power_before_action" text,
	"last_action" text,
	"action_completes_at" timestamp with time zone,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "server_ssh_keys" (
	"server_id" text NOT NULL,
	"ssh_key_id" text NOT NULL,
	"name" text NOT NULL,
	"fingerprint" text NOT NULL,
	CONSTRAINT "server_ssh_keys_server_id_ssh_key_id_pk" PRIMARY KEY("server_id","ssh_key_id")
);
--> statement-breakpoint
CREATE TABLE "servers" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"region" text NOT NULL,
	"instance_type" text NOT NULL,
	"image" text NOT NULL,
	"status" text NOT NULL,
	"pending_action" text,
	"ip_address" text,
	"hostname" text NOT NULL,
	"ssh_user" text NOT NULL,
	"php_version" text NOT NULL,
	"pg_version" text NOT NULL,
	"pg_database" text NOT NULL,
	"pg_username" text NOT NULL,
	"provider_machine_id" text NOT NULL,
	"billing_item_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delete_requested_at" timestamp with time zone,
	"terminated_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ssh_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"public_key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"key_type" text NOT NULL,
	"bits" integer NOT NULL,
	"comment" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "server_ssh_keys" ADD CONSTRAINT "server_ssh_keys_server_id_servers_id_fk" FOREIGN KEY ("server_id") REFERENCES "public"."servers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "servers" ADD CONSTRAINT "servers_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ssh_keys" ADD CONSTRAINT "ssh_keys_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "infra_sim_machines_reference_key" ON "infra_sim_machines" USING btree ("reference");--> statement-breakpoint
CREATE INDEX "server_ssh_keys_key_idx" ON "server_ssh_keys" USING btree ("ssh_key_id");--> statement-breakpoint
CREATE UNIQUE INDEX "servers_project_live_name_key" ON "servers" USING btree ("project_id","name") WHERE "servers"."terminated_at" is null;--> statement-breakpoint
CREATE INDEX "servers_project_created_idx" ON "servers" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "servers_provisioning_idx" ON "servers" USING btree ("status") WHERE "servers"."terminated_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "ssh_keys_project_fingerprint_key" ON "ssh_keys" USING btree ("project_id","fingerprint");--> statement-breakpoint
CREATE INDEX "ssh_keys_project_created_idx" ON "ssh_keys" USING btree ("project_id","created_at");