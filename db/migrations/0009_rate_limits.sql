-- UNLOGGED (written by hand; drizzle-kit has no such option): every API request updates this table,
-- and its rows need no crash safety, since losing them only gives every caller a full budget again.
CREATE UNLOGGED TABLE "rate_limits" (
	"key" text PRIMARY KEY NOT NULL,
	"tat_us" bigint NOT NULL
);
--> statement-breakpoint
DROP TABLE "rate_limit_counters" CASCADE;
