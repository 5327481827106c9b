CREATE TABLE `reconciliation_items` (
	`signature` text PRIMARY KEY NOT NULL,
	`reconciliation_id` integer NOT NULL,
	`position` integer NOT NULL,
	`slot` integer NOT NULL,
	`status` text NOT NULL,
	`kind` text,
	`note` text
);
--> statement-breakpoint
CREATE INDEX `reconciliation_items_order` ON `reconciliation_items` (`reconciliation_id`,`status`,`position`);--> statement-breakpoint
CREATE TABLE `reconciliations` (
	`id` integer PRIMARY KEY NOT NULL,
	`reason` text NOT NULL,
	`status` text NOT NULL,
	`started_at_ms` integer NOT NULL,
	`finished_at_ms` integer,
	`scanned` integer DEFAULT 0 NOT NULL,
	`total` integer DEFAULT 0 NOT NULL,
	`applied` integer DEFAULT 0 NOT NULL,
	`unknown` integer DEFAULT 0 NOT NULL,
	`detail` text
);
--> statement-breakpoint
CREATE INDEX `reconciliations_status` ON `reconciliations` (`status`);