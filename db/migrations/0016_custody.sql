CREATE TABLE `custody_incidents` (
	`id` integer PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`detail` text NOT NULL,
	`halts` integer NOT NULL,
	`at_ms` integer NOT NULL,
	`resolved_at_ms` integer,
	`resolved_by` text,
	`resolve_reason` text
);
--> statement-breakpoint
CREATE INDEX `custody_incidents_open` ON `custody_incidents` (`resolved_at_ms`,`kind`);--> statement-breakpoint
CREATE TABLE `withdrawals` (
	`id` integer PRIMARY KEY NOT NULL,
	`lamports` integer NOT NULL,
	`wallet` text NOT NULL,
	`reason` text NOT NULL,
	`actor` text NOT NULL,
	`status` text NOT NULL,
	`signature` text,
	`last_valid_block_height` integer,
	`attempt` integer DEFAULT 0 NOT NULL,
	`error` text,
	`created_at_ms` integer NOT NULL,
	`sent_at_ms` integer,
	`confirmed_at_ms` integer
);
--> statement-breakpoint
CREATE INDEX `withdrawals_status` ON `withdrawals` (`status`);--> statement-breakpoint
CREATE INDEX `burn_buys_created_at` ON `burn_buys` (`created_at_ms`);--> statement-breakpoint
CREATE INDEX `payouts_sent_at` ON `payouts` (`sent_at_ms`);