CREATE TYPE "public"."ledger_card_behaviour" AS ENUM('succeed', 'decline', 'insufficient_funds', 'attach_then_decline');--> statement-breakpoint
CREATE TYPE "public"."invoice_status" AS ENUM('open', 'paid', 'failed');--> statement-breakpoint
CREATE TYPE "public"."purchase_status" AS ENUM('pending', 'completed', 'failed', 'refunded');--> statement-breakpoint
CREATE TABLE "billing_items" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"category" charge_category NOT NULL,
	"resource_type" text NOT NULL,
	"resource_id" text NOT NULL,
	"description" text NOT NULL,
	"monthly" integer NOT NULL,
	"currency" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "credit_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"amount" integer NOT NULL,
	"reason" text NOT NULL,
	"purchase_id" text,
	"invoice_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoice_lines" (
	"id" text PRIMARY KEY NOT NULL,
	"invoice_id" text NOT NULL,
	"billing_item_id" text NOT NULL,
	"category" charge_category NOT NULL,
	"description" text NOT NULL,
	"amount" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"period" text NOT NULL,
	"status" "invoice_status" DEFAULT 'open' NOT NULL,
	"subtotal" integer NOT NULL,
	"tax" integer,
	"credit_applied" integer NOT NULL,
	"total" integer NOT NULL,
	"currency" text NOT NULL,
	"processor_charge_id" text,
	"failure_code" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"paid_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ledger_payment_intents" (
	"id" text PRIMARY KEY NOT NULL,
	"customer_id" text NOT NULL,
	"payment_method_id" text,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"status" text NOT NULL,
	"decline_code" text,
	"description" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"amount_refunded" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ledger_payment_methods" (
	"id" text PRIMARY KEY NOT NULL,
	"customer_id" text NOT NULL,
	"brand" text NOT NULL,
	"last4" text NOT NULL,
	"exp_month" integer NOT NULL,
	"exp_year" integer NOT NULL,
	"country" text,
	"behaviour" "ledger_card_behaviour" NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"detached_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ledger_refunds" (
	"id" text PRIMARY KEY NOT NULL,
	"payment_intent_id" text NOT NULL,
	"amount" integer NOT NULL,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "purchases" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"kind" text NOT NULL,
	"resource_type" text NOT NULL,
	"resource_key" text NOT NULL,
	"category" charge_category NOT NULL,
	"description" text NOT NULL,
	"monthly" integer NOT NULL,
	"subtotal" integer NOT NULL,
	"tax" integer,
	"credit_applied" integer NOT NULL,
	"due_today" integer NOT NULL,
	"currency" text NOT NULL,
	"status" "purchase_status" DEFAULT 'pending' NOT NULL,
	"processor_charge_id" text,
	"failure_code" text,
	"billing_item_id" text,
	"created_by_user_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "billing_items" ADD CONSTRAINT "billing_items_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_entries" ADD CONSTRAINT "credit_entries_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_payment_intents" ADD CONSTRAINT "ledger_payment_intents_customer_id_ledger_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."ledger_customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_payment_intents" ADD CONSTRAINT "ledger_payment_intents_payment_method_id_ledger_payment_methods_id_fk" FOREIGN KEY ("payment_method_id") REFERENCES "public"."ledger_payment_methods"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_payment_methods" ADD CONSTRAINT "ledger_payment_methods_customer_id_ledger_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."ledger_customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_refunds" ADD CONSTRAINT "ledger_refunds_payment_intent_id_ledger_payment_intents_id_fk" FOREIGN KEY ("payment_intent_id") REFERENCES "public"."ledger_payment_intents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "purchases" ADD CONSTRAINT "purchases_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "billing_items_project_idx" ON "billing_items" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "billing_items_resource_idx" ON "billing_items" USING btree ("resource_type","resource_id");--> statement-breakpoint
CREATE INDEX "credit_entries_project_idx" ON "credit_entries" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "invoice_lines_invoice_idx" ON "invoice_lines" USING btree ("invoice_id");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_project_period_key" ON "invoices" USING btree ("project_id","period");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_payment_intents_idempotency_key" ON "ledger_payment_intents" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "ledger_payment_methods_customer_idx" ON "ledger_payment_methods" USING btree ("customer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_refunds_idempotency_key" ON "ledger_refunds" USING btree ("idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "purchases_pending_resource_key" ON "purchases" USING btree ("project_id","resource_type","resource_key") WHERE "purchases"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "purchases_status_idx" ON "purchases" USING btree ("status","created_at");