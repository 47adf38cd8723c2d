CREATE TABLE "audit_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text,
	"actor_user_id" text NOT NULL,
	"api_key_id" text,
	"api_key_prefix" text,
	"action" text NOT NULL,
	"targets" jsonb NOT NULL,
	"request_id" text NOT NULL,
	"client_ip" text NOT NULL,
	"transport" text NOT NULL,
	"outcome" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "audit_entries_project_created_idx" ON "audit_entries" USING btree ("project_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_entries_created_idx" ON "audit_entries" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "audit_entries_pending_idx" ON "audit_entries" USING btree ("created_at") WHERE "audit_entries"."outcome" = 'pending';