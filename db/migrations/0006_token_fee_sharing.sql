CREATE TABLE `token_fee_sharing` (
	`token_id` integer PRIMARY KEY NOT NULL,
	`current_creator` text NOT NULL,
	`is_sharing_config` integer NOT NULL,
	`service_share_bps` integer NOT NULL,
	`blocked_reason` text,
	`detected_at_ms` integer NOT NULL,
	`checked_at_ms` integer NOT NULL,
	FOREIGN KEY (`token_id`) REFERENCES `tokens`(`id`) ON UPDATE no action ON DELETE no action
);
