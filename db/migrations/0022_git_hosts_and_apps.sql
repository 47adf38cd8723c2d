CREATE TABLE "git_host1_installations" (
	"installation_id" text PRIMARY KEY NOT NULL,
	"account_login" text NOT NULL,
	"account_type" text NOT NULL,
	"installed_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "git_host1_links" (
	"project_id" text NOT NULL,
	"installation_id" text NOT NULL,
	"linked_by" text,
	"linked_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "git_host1_links_project_id_installation_id_pk" PRIMARY KEY("project_id","installation_id")
);
--> statement-breakpoint
CREATE TABLE "git_oauth_connections" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"host" text NOT NULL,
	"account_login" text NOT NULL,
	"sealed_access_token" text NOT NULL,
	"sealed_refresh_token" text,
	"access_token_expires_at" timestamp with time zone,
	"scopes" text DEFAULT '' NOT NULL,
	"connected_by" text,
	"connected_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "git_repository_webhooks" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"host" text NOT NULL,
	"repository" text NOT NULL,
	"upstream_hook_id" text NOT NULL,
	"sealed_secret" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "git_webhook_deliveries" (
	"host" text NOT NULL,
	"delivery_id" text NOT NULL,
	"event" text NOT NULL,
	"queued" integer DEFAULT 0 NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "git_webhook_deliveries_host_delivery_id_pk" PRIMARY KEY("host","delivery_id")
);
--> statement-breakpoint
CREATE TABLE "image_hub_connections" (
	"project_id" text PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"sealed_access_token" text NOT NULL,
	"connected_by" text,
	"connected_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "apps" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"region" text NOT NULL,
	"git_host" text NOT NULL,
	"repository" text NOT NULL,
	"branch" text NOT NULL,
	"auto_deploy" boolean DEFAULT true NOT NULL,
	"services" jsonb NOT NULL,
	"template_path" text,
	"status" text DEFAULT 'ACTIVE' NOT NULL,
	"billing_item_id" text NOT NULL,
	"live_deployment_id" text,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "deployment_log_lines" (
	"deployment_id" text NOT NULL,
	"seq" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"line" text NOT NULL,
	CONSTRAINT "deployment_log_lines_deployment_id_seq_pk" PRIMARY KEY("deployment_id","seq")
);
--> statement-breakpoint
CREATE TABLE "deployments" (
	"id" text PRIMARY KEY NOT NULL,
	"app_id" text NOT NULL,
	"project_id" text NOT NULL,
	"status" text DEFAULT 'QUEUED' NOT NULL,
	"trigger" text NOT NULL,
	"branch" text NOT NULL,
	"commit_sha" text,
	"commit_message" text,
	"delivery_id" text,
	"source_copy" text,
	"failure_reason" text,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "git_sim_commits" (
	"sha" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"repository" text NOT NULL,
	"branch" text NOT NULL,
	"message" text NOT NULL,
	"author" text NOT NULL,
	"pushed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "git_sim_copies" (
	"copy" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"source" text NOT NULL,
	"synced_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "git_sim_hooks" (
	"id" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"repository" text NOT NULL,
	"url" text NOT NULL,
	"sealed_secret" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "git_sim_installations" (
	"id" text PRIMARY KEY NOT NULL,
	"account" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"suspended" boolean DEFAULT false NOT NULL,
	"uninstalled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "git_sim_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"kind" text NOT NULL,
	"account" text NOT NULL,
	"scopes" text DEFAULT '' NOT NULL,
	"grant_id" text,
	"redirect_uri" text,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "oauth_states" ADD COLUMN "payload" jsonb;--> statement-breakpoint
ALTER TABLE "git_host1_installations" ADD CONSTRAINT "git_host1_installations_installed_by_users_id_fk" FOREIGN KEY ("installed_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "git_host1_links" ADD CONSTRAINT "git_host1_links_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "git_host1_links" ADD CONSTRAINT "git_host1_links_installation_id_git_host1_installations_installation_id_fk" FOREIGN KEY ("installation_id") REFERENCES "public"."git_host1_installations"("installation_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "git_host1_links" ADD CONSTRAINT "git_host1_links_linked_by_users_id_fk" FOREIGN KEY ("linked_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "git_oauth_connections" ADD CONSTRAINT "git_oauth_connections_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "git_oauth_connections" ADD CONSTRAINT "git_oauth_connections_connected_by_users_id_fk" FOREIGN KEY ("connected_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "git_repository_webhooks" ADD CONSTRAINT "git_repository_webhooks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_hub_connections" ADD CONSTRAINT "image_hub_connections_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "image_hub_connections" ADD CONSTRAINT "image_hub_connections_connected_by_users_id_fk" FOREIGN KEY ("connected_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "apps" ADD CONSTRAINT "apps_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "apps" ADD CONSTRAINT "apps_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployment_log_lines" ADD CONSTRAINT "deployment_log_lines_deployment_id_deployments_id_fk" FOREIGN KEY ("deployment_id") REFERENCES "public"."deployments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deployments" ADD CONSTRAINT "deployments_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "git_host1_links_installation_idx" ON "git_host1_links" USING btree ("installation_id");--> statement-breakpoint
CREATE UNIQUE INDEX "git_oauth_connections_project_host_key" ON "git_oauth_connections" USING btree ("project_id","host");--> statement-breakpoint
CREATE UNIQUE INDEX "git_repository_webhooks_project_repo_key" ON "git_repository_webhooks" USING btree ("project_id","host","repository");--> statement-breakpoint
CREATE INDEX "git_webhook_deliveries_received_idx" ON "git_webhook_deliveries" USING btree ("received_at");--> statement-breakpoint
CREATE UNIQUE INDEX "apps_project_name_key" ON "apps" USING btree ("project_id",lower("name")) WHERE "apps"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "apps_repository_idx" ON "apps" USING btree ("git_host",lower("repository"),"branch");--> statement-breakpoint
CREATE INDEX "deployments_app_idx" ON "deployments" USING btree ("app_id","created_at");--> statement-breakpoint
CREATE INDEX "git_sim_commits_branch_idx" ON "git_sim_commits" USING btree ("host","repository","branch","pushed_at");--> statement-breakpoint
CREATE INDEX "git_sim_hooks_repository_idx" ON "git_sim_hooks" USING btree ("host","repository");--> statement-breakpoint
CREATE INDEX "git_sim_tokens_account_idx" ON "git_sim_tokens" USING btree ("host","account");--> statement-breakpoint
CREATE INDEX "git_sim_tokens_grant_idx" ON "git_sim_tokens" USING btree ("grant_id");