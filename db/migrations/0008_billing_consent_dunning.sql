CREATE TYPE "public"."biller_transfer_status" AS ENUM('pending', 'accepted', 'declined', 'cancelled', 'expired');--> statement-breakpoint
CREATE TABLE "biller_transfers" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"from_user_id" text NOT NULL,
	"to_user_id" text NOT NULL,
	"proposed_by_user_id" text NOT NULL,
	"status" "biller_transfer_status" DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "invoices" DROP CONSTRAINT "invoices_project_id_projects_id_fk";
--> statement-breakpoint
ALTER TABLE "invoices" ALTER COLUMN "project_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "project_name" text;--> statement-breakpoint
UPDATE "invoices" SET "project_name" = "projects"."name" FROM "projects" WHERE "projects"."id" = "invoices"."project_id";--> statement-breakpoint
ALTER TABLE "invoices" ALTER COLUMN "project_name" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "first_failed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "next_attempt_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "paid_by_user_id" text;--> statement-breakpoint
UPDATE "invoices" SET "paid_by_user_id" = "projects"."biller_user_id" FROM "projects" WHERE "projects"."id" = "invoices"."project_id" AND "invoices"."status" = 'paid';--> statement-breakpoint
UPDATE "invoices" SET "first_failed_at" = now(), "next_attempt_at" = now() + interval '1 day' WHERE "status" = 'failed';--> statement-breakpoint
ALTER TABLE "servers" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "biller_transfers" ADD CONSTRAINT "biller_transfers_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "biller_transfers" ADD CONSTRAINT "biller_transfers_from_user_id_users_id_fk" FOREIGN KEY ("from_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "biller_transfers" ADD CONSTRAINT "biller_transfers_to_user_id_users_id_fk" FOREIGN KEY ("to_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "biller_transfers" ADD CONSTRAINT "biller_transfers_proposed_by_user_id_users_id_fk" FOREIGN KEY ("proposed_by_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "biller_transfers_pending_project_key" ON "biller_transfers" USING btree ("project_id") WHERE "biller_transfers"."status" = 'pending';--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_paid_by_user_id_users_id_fk" FOREIGN KEY ("paid_by_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "invoices_next_attempt_idx" ON "invoices" USING btree ("next_attempt_at") WHERE "invoices"."status" = 'failed';--> statement-breakpoint
CREATE INDEX "invoices_paid_by_idx" ON "invoices" USING btree ("paid_by_user_id","paid_at");