CREATE TABLE `chain_transaction_totals` (
	`job` text PRIMARY KEY NOT NULL,
	`prepared` integer DEFAULT 0 NOT NULL,
	`sends` integer DEFAULT 0 NOT NULL,
	`rebroadcasts` integer DEFAULT 0 NOT NULL,
	`landed` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`lapsed` integer DEFAULT 0 NOT NULL,
	`replacements` integer DEFAULT 0 NOT NULL,
	`priority_fee_lamports` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `chain_transactions` (
	`signature` text PRIMARY KEY NOT NULL,
	`job` text NOT NULL,
	`wire` blob,
	`last_valid_block_height` integer NOT NULL,
	`sent_from_slot` integer NOT NULL,
	`compute_unit_limit` integer NOT NULL,
	`compute_unit_price_micro_lamports` integer NOT NULL,
	`attempt` integer NOT NULL,
	`state` text NOT NULL,
	`send_count` integer DEFAULT 0 NOT NULL,
	`prepared_at_ms` integer NOT NULL,
	`last_sent_at_ms` integer,
	`landed_slot` integer,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `chain_transactions_live` ON `chain_transactions` (`state`,`prepared_at_ms`);--> statement-breakpoint
CREATE INDEX `chain_transactions_job` ON `chain_transactions` (`job`,`prepared_at_ms`);