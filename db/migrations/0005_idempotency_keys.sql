CREATE TABLE "idempotency_keys" (
	"user_id" text NOT NULL,
	"credential" text NOT NULL,
	"key_hash" text NOT NULL,
	"fingerprint" text NOT NULL,
	"state" text NOT NULL,
	"claim_id" text NOT NULL,
	"locked_at" timestamp with time zone NOT NULL,
	"response" text,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_user_id_credential_key_hash_pk" PRIMARY KEY("user_id","credential","key_hash")
);
--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "idempotency_keys_expires_idx" ON "idempotency_keys" USING btree ("expires_at");