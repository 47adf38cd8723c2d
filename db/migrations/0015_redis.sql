CREATE TABLE "redis_databases" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"plan_slug" text NOT NULL,
	"region" text NOT NULL,
	"memory_mb" integer NOT NULL,
	"replication" boolean NOT NULL,
	"data_persistence" text NOT NULL,
	"status" text NOT NULL,
	"host" text NOT NULL,
	"port" integer NOT NULL,
	"tls" boolean NOT NULL,
	"sealed_password" text NOT NULL,
	"billing_item_id" text NOT NULL,
	"start_attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"suspended_at" timestamp with time zone,
	"terminated_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "redis_plan_regions" (
	"plan_slug" text NOT NULL,
	"region_slug" text NOT NULL,
	CONSTRAINT "redis_plan_regions_plan_slug_region_slug_pk" PRIMARY KEY("plan_slug","region_slug")
);
--> statement-breakpoint
CREATE TABLE "redis_plans" (
	"slug" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"provider" text NOT NULL,
	"engine" text NOT NULL,
	"plan_type" text NOT NULL,
	"memory_mb" integer NOT NULL,
	"throughput_ops" integer,
	"cpu_milli" integer NOT NULL,
	"supports_replication" boolean NOT NULL,
	"supports_persistence" boolean NOT NULL,
	"price_monthly" integer NOT NULL,
	"available" boolean DEFAULT true NOT NULL,
	"sort_order" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "redis_regions" (
	"slug" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"country" text NOT NULL,
	"available" boolean DEFAULT true NOT NULL,
	"sort_order" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "redis_usage_samples" (
	"redis_id" text NOT NULL,
	"sampled_at" timestamp with time zone NOT NULL,
	"memory_used_bytes" bigint NOT NULL,
	"memory_limit_bytes" bigint NOT NULL,
	"network_in_bytes" bigint NOT NULL,
	"network_out_bytes" bigint NOT NULL,
	"operations" bigint NOT NULL,
	CONSTRAINT "redis_usage_samples_redis_id_sampled_at_pk" PRIMARY KEY("redis_id","sampled_at")
);
--> statement-breakpoint
ALTER TABLE "redis_databases" ADD CONSTRAINT "redis_databases_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "redis_plan_regions" ADD CONSTRAINT "redis_plan_regions_plan_slug_redis_plans_slug_fk" FOREIGN KEY ("plan_slug") REFERENCES "public"."redis_plans"("slug") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "redis_plan_regions" ADD CONSTRAINT "redis_plan_regions_region_slug_redis_regions_slug_fk" FOREIGN KEY ("region_slug") REFERENCES "public"."redis_regions"("slug") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "redis_usage_samples" ADD CONSTRAINT "redis_usage_samples_redis_id_redis_databases_id_fk" FOREIGN KEY ("redis_id") REFERENCES "public"."redis_databases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "redis_databases_project_live_name_key" ON "redis_databases" USING btree ("project_id","name") WHERE "redis_databases"."terminated_at" is null;--> statement-breakpoint
CREATE INDEX "redis_databases_project_created_idx" ON "redis_databases" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "redis_databases_provisioning_idx" ON "redis_databases" USING btree ("status") WHERE "redis_databases"."terminated_at" is null;--> statement-breakpoint
INSERT INTO "redis_regions" ("slug", "name", "country", "available", "sort_order") VALUES
	('fra1', 'Frankfurt', 'DE', true, 1),
	('nyc1', 'New York', 'US', true, 2),
	('sgp1', 'Singapore', 'SG', true, 3);--> statement-breakpoint
INSERT INTO "redis_plans" ("slug", "name", "provider", "engine", "plan_type", "memory_mb", "throughput_ops", "cpu_milli", "supports_replication", "supports_persistence", "price_monthly", "available", "sort_order") VALUES
	('redis-256mb', 'Hobby 256 MB', 'PLATFORM', 'VALKEY', 'RAM', 256, NULL, 250, false, false, 5, true, 1),
	('redis-1gb', 'Standard 1 GB', 'PLATFORM', 'VALKEY', 'RAM', 1024, NULL, 500, true, true, 15, true, 2),
	('redis-2gb', 'Standard 2 GB', 'PLATFORM', 'VALKEY', 'RAM', 2048, NULL, 1000, true, true, 30, true, 3),
	('redis-4gb', 'Pro 4 GB', 'PLATFORM', 'VALKEY', 'RAM', 4096, NULL, 2000, true, true, 60, true, 4),
	('redis-8gb', 'Pro 8 GB', 'PLATFORM', 'VALKEY', 'RAM', 8192, NULL, 4000, true, true, 120, true, 5);--> statement-breakpoint
INSERT INTO "redis_plan_regions" ("plan_slug", "region_slug") VALUES
	('redis-256mb', 'fra1'), ('redis-256mb', 'nyc1'), ('redis-256mb', 'sgp1'),
	('redis-1gb', 'fra1'), ('redis-1gb', 'nyc1'), ('redis-1gb', 'sgp1'),
	('redis-2gb', 'fra1'), ('redis-2gb', 'nyc1'), ('redis-2gb', 'sgp1'),
	('redis-4gb', 'fra1'), ('redis-4gb', 'nyc1'), ('redis-4gb', 'sgp1'),
	('redis-8gb', 'fra1'), ('redis-8gb', 'nyc1');
