CREATE TABLE `admin_audit` (
	`id` integer PRIMARY KEY NOT NULL,
	`at_ms` integer NOT NULL,
	`actor` text NOT NULL,
	`action` text NOT NULL,
	`subject` text,
	`reason` text
);
--> statement-breakpoint
CREATE TABLE `burn_buys` (
	`id` integer PRIMARY KEY NOT NULL,
	`mint` text NOT NULL,
	`signature` text NOT NULL,
	`last_valid_block_height` integer NOT NULL,
	`status` text NOT NULL,
	`lamports` integer NOT NULL,
	`token_amount` integer,
	`burn_signature` text,
	`burn_last_valid_block_height` integer,
	`error` text,
	`created_at_ms` integer NOT NULL,
	`landed_at_ms` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `burn_buys_signature` ON `burn_buys` (`signature`);--> statement-breakpoint
CREATE INDEX `burn_buys_status` ON `burn_buys` (`status`);--> statement-breakpoint
CREATE TABLE `burn_orders` (
	`id` integer PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`idp_user_id` text,
	`mint` text NOT NULL,
	`lamports` integer NOT NULL,
	`sweep_id` integer,
	`status` text NOT NULL,
	`buy_id` integer,
	`created_at_ms` integer NOT NULL,
	FOREIGN KEY (`sweep_id`) REFERENCES `sweeps`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `burn_orders_status_mint` ON `burn_orders` (`status`,`mint`);--> statement-breakpoint
CREATE INDEX `burn_orders_user` ON `burn_orders` (`idp_user_id`);--> statement-breakpoint
CREATE TABLE `burns` (
	`id` integer PRIMARY KEY NOT NULL,
	`buy_id` integer NOT NULL,
	`source` text NOT NULL,
	`mint` text NOT NULL,
	`signature` text NOT NULL,
	`lamports` integer NOT NULL,
	`token_amount` integer NOT NULL,
	`landed_at_ms` integer NOT NULL,
	FOREIGN KEY (`buy_id`) REFERENCES `burn_buys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `burns_buy_source` ON `burns` (`buy_id`,`source`);--> statement-breakpoint
CREATE TABLE `feed_events` (
	`at_us` integer PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`ref_id` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `feed_events_ref` ON `feed_events` (`type`,`ref_id`);--> statement-breakpoint
CREATE TABLE `handles` (
	`handle` text PRIMARY KEY NOT NULL,
	`display_handle` text NOT NULL,
	`name` text NOT NULL,
	`avatar_url` text NOT NULL,
	`followers` integer DEFAULT 0 NOT NULL,
	`idp_user_id` text,
	`pinned_at_ms` integer,
	FOREIGN KEY (`idp_user_id`) REFERENCES `identities`(`idp_user_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `handles_idp_user` ON `handles` (`idp_user_id`);--> statement-breakpoint
CREATE TABLE `identities` (
	`idp_user_id` text PRIMARY KEY NOT NULL,
	`handle` text NOT NULL,
	`display_handle` text NOT NULL,
	`name` text NOT NULL,
	`avatar_url` text NOT NULL,
	`followers` integer DEFAULT 0 NOT NULL,
	`routing` text,
	`payout_wallet` text,
	`declined` integer DEFAULT false NOT NULL,
	`first_sign_in_at_ms` integer,
	`last_sign_in_at_ms` integer,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `job_leases` (
	`job` text PRIMARY KEY NOT NULL,
	`holder` text,
	`generation` integer DEFAULT 0 NOT NULL,
	`expires_at_ms` integer DEFAULT 0 NOT NULL,
	`runs` integer DEFAULT 0 NOT NULL,
	`last_run_at_ms` integer,
	`last_ok_at_ms` integer,
	`last_error` text
);
--> statement-breakpoint
CREATE TABLE `job_runs` (
	`id` integer PRIMARY KEY NOT NULL,
	`job` text NOT NULL,
	`generation` integer NOT NULL,
	`holder` text NOT NULL,
	`started_at_ms` integer NOT NULL,
	`finished_at_ms` integer,
	`ok` integer,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `job_runs_job` ON `job_runs` (`job`,`id`);--> statement-breakpoint
CREATE TABLE `launch_intents` (
	`id` text PRIMARY KEY NOT NULL,
	`wallet` text NOT NULL,
	`mint` text NOT NULL,
	`digest` text NOT NULL,
	`draft` text NOT NULL,
	`creator_index` integer NOT NULL,
	`creator` text NOT NULL,
	`status` text NOT NULL,
	`metadata_uri` text,
	`image_uri` text,
	`signature` text,
	`error` text,
	`created_at_ms` integer NOT NULL,
	`expires_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `launch_intents_mint` ON `launch_intents` (`mint`);--> statement-breakpoint
CREATE UNIQUE INDEX `launch_intents_creator_index` ON `launch_intents` (`creator_index`);--> statement-breakpoint
CREATE INDEX `launch_intents_status` ON `launch_intents` (`status`);--> statement-breakpoint
CREATE TABLE `ledger_accounts` (
	`id` integer PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`ref` text NOT NULL,
	`balance` integer DEFAULT 0 NOT NULL,
	`entry_sum` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_accounts_kind_ref` ON `ledger_accounts` (`kind`,`ref`);--> statement-breakpoint
CREATE INDEX `ledger_accounts_kind` ON `ledger_accounts` (`kind`);--> statement-breakpoint
CREATE TABLE `ledger_entries` (
	`id` integer PRIMARY KEY NOT NULL,
	`posting_id` integer NOT NULL,
	`account_id` integer NOT NULL,
	`amount` integer NOT NULL,
	`token_id` integer,
	`handle` text,
	FOREIGN KEY (`posting_id`) REFERENCES `ledger_postings`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`account_id`) REFERENCES `ledger_accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `ledger_entries_account` ON `ledger_entries` (`account_id`,`token_id`);--> statement-breakpoint
CREATE INDEX `ledger_entries_posting` ON `ledger_entries` (`posting_id`);--> statement-breakpoint
CREATE INDEX `ledger_entries_token_handle` ON `ledger_entries` (`token_id`,`handle`);--> statement-breakpoint
CREATE TABLE `ledger_postings` (
	`id` integer PRIMARY KEY NOT NULL,
	`command_key` text NOT NULL,
	`kind` text NOT NULL,
	`at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_postings_command_key` ON `ledger_postings` (`command_key`);--> statement-breakpoint
CREATE TABLE `local_objects` (
	`cid` text PRIMARY KEY NOT NULL,
	`content_type` text NOT NULL,
	`body` blob NOT NULL,
	`created_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `payouts` (
	`id` integer PRIMARY KEY NOT NULL,
	`idp_user_id` text NOT NULL,
	`lamports` integer NOT NULL,
	`wallet` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`signature` text,
	`last_valid_block_height` integer,
	`replaces_id` integer,
	`error` text,
	`created_at_ms` integer NOT NULL,
	`sent_at_ms` integer,
	`confirmed_at_ms` integer,
	FOREIGN KEY (`idp_user_id`) REFERENCES `identities`(`idp_user_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `payouts_user` ON `payouts` (`idp_user_id`,`id`);--> statement-breakpoint
CREATE INDEX `payouts_status` ON `payouts` (`status`);--> statement-breakpoint
CREATE INDEX `payouts_signature` ON `payouts` (`signature`);--> statement-breakpoint
CREATE UNIQUE INDEX `payouts_replaces` ON `payouts` (`replaces_id`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`idp_user_id` text NOT NULL,
	`created_at_ms` integer NOT NULL,
	`expires_at_ms` integer NOT NULL,
	FOREIGN KEY (`idp_user_id`) REFERENCES `identities`(`idp_user_id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sessions_user` ON `sessions` (`idp_user_id`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sweeps` (
	`id` integer PRIMARY KEY NOT NULL,
	`token_id` integer NOT NULL,
	`signature` text NOT NULL,
	`last_valid_block_height` integer NOT NULL,
	`status` text NOT NULL,
	`total_lamports` integer DEFAULT 0 NOT NULL,
	`platform_lamports` integer DEFAULT 0 NOT NULL,
	`error` text,
	`created_at_ms` integer NOT NULL,
	`confirmed_at_ms` integer,
	FOREIGN KEY (`token_id`) REFERENCES `tokens`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sweeps_signature_token` ON `sweeps` (`signature`,`token_id`);--> statement-breakpoint
CREATE INDEX `sweeps_token` ON `sweeps` (`token_id`,`id`);--> statement-breakpoint
CREATE INDEX `sweeps_status` ON `sweeps` (`status`);--> statement-breakpoint
CREATE TABLE `token_images` (
	`token_id` integer PRIMARY KEY NOT NULL,
	`webp` blob NOT NULL,
	`sha256` text NOT NULL,
	FOREIGN KEY (`token_id`) REFERENCES `tokens`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `token_recipients` (
	`token_id` integer NOT NULL,
	`position` integer NOT NULL,
	`handle` text NOT NULL,
	`display_handle` text NOT NULL,
	`bps` integer NOT NULL,
	PRIMARY KEY(`token_id`, `handle`),
	FOREIGN KEY (`token_id`) REFERENCES `tokens`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `token_recipients_handle` ON `token_recipients` (`handle`);--> statement-breakpoint
CREATE TABLE `tokens` (
	`id` integer PRIMARY KEY NOT NULL,
	`mint` text NOT NULL,
	`name` text NOT NULL,
	`symbol` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`website` text,
	`twitter` text,
	`telegram` text,
	`metadata_uri` text NOT NULL,
	`image_uri` text,
	`creator_index` integer NOT NULL,
	`creator` text NOT NULL,
	`creator_vault` text NOT NULL,
	`deployer` text NOT NULL,
	`launch_signature` text NOT NULL,
	`launched_at_ms` integer NOT NULL,
	`platform_bps` integer NOT NULL,
	`swept_lamports` integer DEFAULT 0 NOT NULL,
	`vault_lamports` integer DEFAULT 0 NOT NULL,
	`vault_checked_at_ms` integer NOT NULL,
	`fees_lamports` integer GENERATED ALWAYS AS (swept_lamports + vault_lamports) STORED,
	`bonded` integer DEFAULT false NOT NULL,
	`market_cap_usd` real,
	`volume_24h_usd` real,
	`market_checked_at_ms` integer,
	`last_swept_at_ms` integer,
	`hidden` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tokens_mint` ON `tokens` (`mint`);--> statement-breakpoint
CREATE UNIQUE INDEX `tokens_creator_index` ON `tokens` (`creator_index`);--> statement-breakpoint
CREATE UNIQUE INDEX `tokens_launch_signature` ON `tokens` (`launch_signature`);--> statement-breakpoint
CREATE INDEX `tokens_creator` ON `tokens` (`creator`);--> statement-breakpoint
CREATE INDEX `tokens_new` ON `tokens` (`hidden`,`launched_at_ms`,`mint`);--> statement-breakpoint
CREATE INDEX `tokens_fees` ON `tokens` (`hidden`,`fees_lamports`,`mint`);--> statement-breakpoint
CREATE INDEX `tokens_mcap` ON `tokens` (`hidden`,`market_cap_usd`,`mint`);