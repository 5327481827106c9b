CREATE TABLE `provider_usage` (
	`hour_at_ms` integer NOT NULL,
	`method` text NOT NULL,
	`requests` integer NOT NULL,
	`response_bytes` integer NOT NULL,
	PRIMARY KEY(`hour_at_ms`, `method`)
);
--> statement-breakpoint
CREATE TABLE `reading_schedule` (
	`token_id` integer PRIMARY KEY NOT NULL,
	`interval_ms` integer NOT NULL,
	`next_read_at_ms` integer NOT NULL,
	`active_at_ms` integer NOT NULL,
	FOREIGN KEY (`token_id`) REFERENCES `tokens`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `reading_schedule_next` ON `reading_schedule` (`next_read_at_ms`);--> statement-breakpoint
CREATE INDEX `reading_schedule_active` ON `reading_schedule` (`active_at_ms`);