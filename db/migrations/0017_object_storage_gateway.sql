CREATE TABLE "s3_gateway_buckets" (
	"name" text PRIMARY KEY NOT NULL,
	"region" text NOT NULL,
	"public_access" boolean NOT NULL,
	"versioning" boolean NOT NULL,
	"cors_rules" jsonb NOT NULL,
	"suspended" boolean NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "s3_gateway_credentials" (
	"access_key_id" text PRIMARY KEY NOT NULL,
	"label" text NOT NULL,
	"sealed_secret" text NOT NULL,
	"buckets" jsonb NOT NULL,
	"access" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "s3_gateway_traffic" (
	"bucket" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"requests" bigint NOT NULL,
	"egress_bytes" bigint NOT NULL,
	CONSTRAINT "s3_gateway_traffic_bucket_hour_pk" PRIMARY KEY("bucket","hour")
);
