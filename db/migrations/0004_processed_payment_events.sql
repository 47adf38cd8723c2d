ALTER TABLE "processed_webhook_events" RENAME TO "processed_payment_events";--> statement-breakpoint
ALTER TABLE "processed_payment_events" RENAME CONSTRAINT "processed_webhook_events_pkey" TO "processed_payment_events_pkey";
