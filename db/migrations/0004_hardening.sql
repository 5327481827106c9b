CREATE TABLE `upload_usage` (
	`client_key` text NOT NULL,
	`day` integer NOT NULL,
	`bytes` integer NOT NULL,
	PRIMARY KEY(`client_key`, `day`)
);
--> statement-breakpoint
ALTER TABLE `admin_audit` ADD `request_id` text;--> statement-breakpoint
ALTER TABLE `admin_audit` ADD `client_ip` text;--> statement-breakpoint
ALTER TABLE `local_objects` ADD `pending` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `local_objects` ADD `intent_id` text;