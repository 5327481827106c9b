-- CHECK constraints on every status, kind and source column and on amounts and counts that are never
-- negative (db/schema.ts, `oneOf` and `notNegative`). SQLite adds a CHECK only by rebuilding the
-- table. Not drizzle-kit's rebuild as generated: drizzle runs all migrations in one transaction, where
-- `PRAGMA foreign_keys=OFF` does nothing, so dropping a table other rows reference (identities,
-- sweeps, burn_buys, the ledger's accounts and postings) failed at once; and its rename of
-- `__new_<table>` re-reads every trigger, which fails while a trigger on ledger_entries names a
-- dropped ledger table. Instead each table is copied aside, dropped, created under its own name with
-- its CHECKs and filled back, with foreign keys checked at commit: the rows that reference a table
-- are whole again once it is filled. Its indexes follow, and its own triggers exactly as 0001 and
-- 0023 made them (a table's triggers go with it; those of ledger_entries that name the rebuilt
-- ledger tables stay and find them under the same names). No view names any table. A table without
-- an INTEGER PRIMARY KEY keeps its rowids too (src/reconcile/store.ts marks chain_transactions' by rowid).
PRAGMA defer_foreign_keys = ON;
--> statement-breakpoint
CREATE TABLE `__old_burn_buys` AS SELECT * FROM `burn_buys`;
--> statement-breakpoint
DROP TABLE `burn_buys`;
--> statement-breakpoint
CREATE TABLE `burn_buys` (
	`id` integer PRIMARY KEY NOT NULL,
	`mint` text NOT NULL,
	`signature` text NOT NULL,
	`last_valid_block_height` integer NOT NULL,
	`status` text NOT NULL,
	`lamports` integer NOT NULL,
	`spent_lamports` integer,
	`rent_lamports` integer,
	`token_amount` integer,
	`burn_signature` text,
	`burn_last_valid_block_height` integer,
	`error` text,
	`created_at_ms` integer NOT NULL,
	`landed_at_ms` integer,
	CONSTRAINT "burn_buys_status" CHECK("status" IN ('sent', 'bought', 'burning', 'confirmed', 'failed')),
	CONSTRAINT "burn_buys_lamports_not_negative" CHECK("lamports" >= 0),
	CONSTRAINT "burn_buys_spent_lamports_not_negative" CHECK("spent_lamports" >= 0),
	CONSTRAINT "burn_buys_rent_lamports_not_negative" CHECK("rent_lamports" >= 0),
	CONSTRAINT "burn_buys_token_amount_not_negative" CHECK("token_amount" >= 0)
);
--> statement-breakpoint
INSERT INTO `burn_buys`("id", "mint", "signature", "last_valid_block_height", "status", "lamports", "spent_lamports", "rent_lamports", "token_amount", "burn_signature", "burn_last_valid_block_height", "error", "created_at_ms", "landed_at_ms") SELECT "id", "mint", "signature", "last_valid_block_height", "status", "lamports", "spent_lamports", "rent_lamports", "token_amount", "burn_signature", "burn_last_valid_block_height", "error", "created_at_ms", "landed_at_ms" FROM `__old_burn_buys`;
--> statement-breakpoint
DROP TABLE `__old_burn_buys`;
--> statement-breakpoint
CREATE UNIQUE INDEX `burn_buys_signature` ON `burn_buys` (`signature`);
--> statement-breakpoint
CREATE INDEX `burn_buys_status` ON `burn_buys` (`status`);
--> statement-breakpoint
CREATE INDEX `burn_buys_created_at` ON `burn_buys` (`created_at_ms`);
--> statement-breakpoint
CREATE TABLE `__old_burn_orders` AS SELECT * FROM `burn_orders`;
--> statement-breakpoint
DROP TABLE `burn_orders`;
--> statement-breakpoint
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
	`split_from_id` integer,
	FOREIGN KEY (`sweep_id`) REFERENCES `sweeps`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "burn_orders_source" CHECK("source" IN ('recipient', 'platform')),
	CONSTRAINT "burn_orders_status" CHECK("status" IN ('pending', 'buying', 'done')),
	CONSTRAINT "burn_orders_lamports_not_negative" CHECK("lamports" >= 0)
);
--> statement-breakpoint
INSERT INTO `burn_orders`("id", "source", "idp_user_id", "mint", "lamports", "sweep_id", "status", "buy_id", "created_at_ms", "split_from_id") SELECT "id", "source", "idp_user_id", "mint", "lamports", "sweep_id", "status", "buy_id", "created_at_ms", "split_from_id" FROM `__old_burn_orders`;
--> statement-breakpoint
DROP TABLE `__old_burn_orders`;
--> statement-breakpoint
CREATE INDEX `burn_orders_status_mint` ON `burn_orders` (`status`,`mint`);
--> statement-breakpoint
CREATE INDEX `burn_orders_user` ON `burn_orders` (`idp_user_id`);
--> statement-breakpoint
CREATE INDEX `burn_orders_buy` ON `burn_orders` (`buy_id`);
--> statement-breakpoint
CREATE TABLE `__old_burns` AS SELECT * FROM `burns`;
--> statement-breakpoint
DROP TABLE `burns`;
--> statement-breakpoint
CREATE TABLE `burns` (
	`id` integer PRIMARY KEY NOT NULL,
	`buy_id` integer NOT NULL,
	`source` text NOT NULL,
	`mint` text NOT NULL,
	`signature` text NOT NULL,
	`lamports` integer NOT NULL,
	`token_amount` integer NOT NULL,
	`landed_at_ms` integer NOT NULL,
	FOREIGN KEY (`buy_id`) REFERENCES `burn_buys`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "burns_source" CHECK("source" IN ('recipient', 'platform')),
	CONSTRAINT "burns_lamports_not_negative" CHECK("lamports" >= 0),
	CONSTRAINT "burns_token_amount_not_negative" CHECK("token_amount" >= 0)
);
--> statement-breakpoint
INSERT INTO `burns`("id", "buy_id", "source", "mint", "signature", "lamports", "token_amount", "landed_at_ms") SELECT "id", "buy_id", "source", "mint", "signature", "lamports", "token_amount", "landed_at_ms" FROM `__old_burns`;
--> statement-breakpoint
DROP TABLE `__old_burns`;
--> statement-breakpoint
CREATE UNIQUE INDEX `burns_buy_source` ON `burns` (`buy_id`,`source`);
--> statement-breakpoint
CREATE TABLE `__old_chain_transaction_totals` AS SELECT rowid, * FROM `chain_transaction_totals`;
--> statement-breakpoint
DROP TABLE `chain_transaction_totals`;
--> statement-breakpoint
CREATE TABLE `chain_transaction_totals` (
	`job` text PRIMARY KEY NOT NULL,
	`prepared` integer DEFAULT 0 NOT NULL,
	`sends` integer DEFAULT 0 NOT NULL,
	`rebroadcasts` integer DEFAULT 0 NOT NULL,
	`landed` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`lapsed` integer DEFAULT 0 NOT NULL,
	`replacements` integer DEFAULT 0 NOT NULL,
	`priority_fee_lamports` integer DEFAULT 0 NOT NULL,
	CONSTRAINT "chain_transaction_totals_job" CHECK("job" IN ('sweep', 'payouts', 'burn-buy', 'burn', 'anchor', 'withdrawal')),
	CONSTRAINT "chain_transaction_totals_prepared_not_negative" CHECK("prepared" >= 0),
	CONSTRAINT "chain_transaction_totals_sends_not_negative" CHECK("sends" >= 0),
	CONSTRAINT "chain_transaction_totals_rebroadcasts_not_negative" CHECK("rebroadcasts" >= 0),
	CONSTRAINT "chain_transaction_totals_landed_not_negative" CHECK("landed" >= 0),
	CONSTRAINT "chain_transaction_totals_failed_not_negative" CHECK("failed" >= 0),
	CONSTRAINT "chain_transaction_totals_lapsed_not_negative" CHECK("lapsed" >= 0),
	CONSTRAINT "chain_transaction_totals_replacements_not_negative" CHECK("replacements" >= 0),
	CONSTRAINT "chain_transaction_totals_priority_fee_lamports_not_negative" CHECK("priority_fee_lamports" >= 0)
);
--> statement-breakpoint
INSERT INTO `chain_transaction_totals`("rowid", "job", "prepared", "sends", "rebroadcasts", "landed", "failed", "lapsed", "replacements", "priority_fee_lamports") SELECT "rowid", "job", "prepared", "sends", "rebroadcasts", "landed", "failed", "lapsed", "replacements", "priority_fee_lamports" FROM `__old_chain_transaction_totals`;
--> statement-breakpoint
DROP TABLE `__old_chain_transaction_totals`;
--> statement-breakpoint
CREATE TABLE `__old_chain_transactions` AS SELECT rowid, * FROM `chain_transactions`;
--> statement-breakpoint
DROP TABLE `chain_transactions`;
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
	`error` text,
	CONSTRAINT "chain_transactions_job" CHECK("job" IN ('sweep', 'payouts', 'burn-buy', 'burn', 'anchor', 'withdrawal')),
	CONSTRAINT "chain_transactions_state" CHECK("state" IN ('live', 'landed', 'lapsed', 'expired')),
	CONSTRAINT "chain_transactions_compute_unit_limit_not_negative" CHECK("compute_unit_limit" >= 0),
	CONSTRAINT "chain_transactions_compute_unit_price_micro_lamports_not_negative" CHECK("compute_unit_price_micro_lamports" >= 0),
	CONSTRAINT "chain_transactions_attempt_not_negative" CHECK("attempt" >= 0),
	CONSTRAINT "chain_transactions_send_count_not_negative" CHECK("send_count" >= 0)
);
--> statement-breakpoint
INSERT INTO `chain_transactions`("rowid", "signature", "job", "wire", "last_valid_block_height", "sent_from_slot", "compute_unit_limit", "compute_unit_price_micro_lamports", "attempt", "state", "send_count", "prepared_at_ms", "last_sent_at_ms", "landed_slot", "error") SELECT "rowid", "signature", "job", "wire", "last_valid_block_height", "sent_from_slot", "compute_unit_limit", "compute_unit_price_micro_lamports", "attempt", "state", "send_count", "prepared_at_ms", "last_sent_at_ms", "landed_slot", "error" FROM `__old_chain_transactions`;
--> statement-breakpoint
DROP TABLE `__old_chain_transactions`;
--> statement-breakpoint
CREATE INDEX `chain_transactions_live` ON `chain_transactions` (`state`,`prepared_at_ms`);
--> statement-breakpoint
CREATE INDEX `chain_transactions_job` ON `chain_transactions` (`job`,`prepared_at_ms`);
--> statement-breakpoint
CREATE TABLE `__old_custody_incidents` AS SELECT * FROM `custody_incidents`;
--> statement-breakpoint
DROP TABLE `custody_incidents`;
--> statement-breakpoint
CREATE TABLE `custody_incidents` (
	`id` integer PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`detail` text NOT NULL,
	`halts` integer NOT NULL,
	`at_ms` integer NOT NULL,
	`resolved_at_ms` integer,
	`resolved_by` text,
	`resolve_reason` text,
	CONSTRAINT "custody_incidents_kind" CHECK("kind" IN ('shortfall', 'audit', 'outflow-hour', 'outflow-day', 'reconciling', 'unknown-transaction', 'reserve-low', 'token-anomaly', 'program-changed', 'backup-missed')),
	CONSTRAINT "custody_incidents_halts" CHECK("halts" IN (0, 1))
);
--> statement-breakpoint
INSERT INTO `custody_incidents`("id", "kind", "detail", "halts", "at_ms", "resolved_at_ms", "resolved_by", "resolve_reason") SELECT "id", "kind", "detail", "halts", "at_ms", "resolved_at_ms", "resolved_by", "resolve_reason" FROM `__old_custody_incidents`;
--> statement-breakpoint
DROP TABLE `__old_custody_incidents`;
--> statement-breakpoint
CREATE INDEX `custody_incidents_open` ON `custody_incidents` (`resolved_at_ms`,`kind`);
--> statement-breakpoint
CREATE TABLE `__old_feed_events` AS SELECT * FROM `feed_events`;
--> statement-breakpoint
DROP TABLE `feed_events`;
--> statement-breakpoint
CREATE TABLE `feed_events` (
	`at_us` integer PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`ref_id` integer NOT NULL,
	CONSTRAINT "feed_events_type" CHECK("type" IN ('launch', 'sweep', 'payout', 'payoutStatus', 'burn'))
);
--> statement-breakpoint
INSERT INTO `feed_events`("at_us", "type", "ref_id") SELECT "at_us", "type", "ref_id" FROM `__old_feed_events`;
--> statement-breakpoint
DROP TABLE `__old_feed_events`;
--> statement-breakpoint
CREATE UNIQUE INDEX `feed_events_ref` ON `feed_events` (`type`,`ref_id`);
--> statement-breakpoint
CREATE TABLE `__old_identities` AS SELECT rowid, * FROM `identities`;
--> statement-breakpoint
DROP TABLE `identities`;
--> statement-breakpoint
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
	`created_at_ms` integer NOT NULL,
	CONSTRAINT "identities_routing" CHECK("routing" IN ('hold', 'autopay', 'burn')),
	CONSTRAINT "identities_followers_not_negative" CHECK("followers" >= 0)
);
--> statement-breakpoint
INSERT INTO `identities`("rowid", "idp_user_id", "handle", "display_handle", "name", "avatar_url", "followers", "routing", "payout_wallet", "declined", "first_sign_in_at_ms", "last_sign_in_at_ms", "created_at_ms") SELECT "rowid", "idp_user_id", "handle", "display_handle", "name", "avatar_url", "followers", "routing", "payout_wallet", "declined", "first_sign_in_at_ms", "last_sign_in_at_ms", "created_at_ms" FROM `__old_identities`;
--> statement-breakpoint
DROP TABLE `__old_identities`;
--> statement-breakpoint
CREATE INDEX `identities_recipient` ON `identities` (`idp_user_id`,`first_sign_in_at_ms`,`routing`,`declined`);
--> statement-breakpoint
CREATE TABLE `__old_launch_intents` AS SELECT rowid, * FROM `launch_intents`;
--> statement-breakpoint
DROP TABLE `launch_intents`;
--> statement-breakpoint
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
	`expires_at_ms` integer NOT NULL,
	CONSTRAINT "launch_intents_status" CHECK("status" IN ('prepared', 'metadata', 'confirmed', 'failed', 'expired'))
);
--> statement-breakpoint
INSERT INTO `launch_intents`("rowid", "id", "wallet", "mint", "digest", "draft", "creator_index", "creator", "status", "metadata_uri", "image_uri", "signature", "error", "created_at_ms", "expires_at_ms") SELECT "rowid", "id", "wallet", "mint", "digest", "draft", "creator_index", "creator", "status", "metadata_uri", "image_uri", "signature", "error", "created_at_ms", "expires_at_ms" FROM `__old_launch_intents`;
--> statement-breakpoint
DROP TABLE `__old_launch_intents`;
--> statement-breakpoint
CREATE UNIQUE INDEX `launch_intents_mint` ON `launch_intents` (`mint`);
--> statement-breakpoint
CREATE UNIQUE INDEX `launch_intents_creator_index` ON `launch_intents` (`creator_index`);
--> statement-breakpoint
CREATE INDEX `launch_intents_status` ON `launch_intents` (`status`);
--> statement-breakpoint
CREATE TABLE `__old_ledger_accounts` AS SELECT * FROM `ledger_accounts`;
--> statement-breakpoint
DROP TABLE `ledger_accounts`;
--> statement-breakpoint
CREATE TABLE `ledger_accounts` (
	`id` integer PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`ref` text NOT NULL,
	`balance` integer DEFAULT 0 NOT NULL,
	`entry_sum` integer DEFAULT 0 NOT NULL,
	CONSTRAINT "ledger_accounts_kind" CHECK("kind" IN ('sweep_source', 'platform', 'user', 'handle', 'payout', 'burn_pending', 'buyback_pending', 'paid_out', 'burned', 'rent', 'operator_float', 'withdrawal', 'withdrawn'))
);
--> statement-breakpoint
INSERT INTO `ledger_accounts`("id", "kind", "ref", "balance", "entry_sum") SELECT "id", "kind", "ref", "balance", "entry_sum" FROM `__old_ledger_accounts`;
--> statement-breakpoint
DROP TABLE `__old_ledger_accounts`;
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_accounts_kind_ref` ON `ledger_accounts` (`kind`,`ref`);
--> statement-breakpoint
CREATE INDEX `ledger_accounts_kind` ON `ledger_accounts` (`kind`);
--> statement-breakpoint
CREATE TRIGGER ledger_accounts_no_delete BEFORE DELETE ON ledger_accounts
BEGIN SELECT RAISE(ABORT, 'ledger accounts are permanent'); END;
--> statement-breakpoint
CREATE TABLE `__old_ledger_postings` AS SELECT * FROM `ledger_postings`;
--> statement-breakpoint
DROP TABLE `ledger_postings`;
--> statement-breakpoint
CREATE TABLE `ledger_postings` (
	`id` integer PRIMARY KEY NOT NULL,
	`command_key` text NOT NULL,
	`kind` text NOT NULL,
	`at_ms` integer NOT NULL,
	CONSTRAINT "ledger_postings_kind" CHECK("kind" IN ('sweep', 'pin', 'payout_reserve', 'payout_confirm', 'payout_fail', 'payout_replace', 'burn_order', 'burn_done', 'burn_refund', 'rent_paid', 'rent_returned', 'withdrawal_reserve', 'withdrawal_confirm', 'withdrawal_fail'))
);
--> statement-breakpoint
INSERT INTO `ledger_postings`("id", "command_key", "kind", "at_ms") SELECT "id", "command_key", "kind", "at_ms" FROM `__old_ledger_postings`;
--> statement-breakpoint
DROP TABLE `__old_ledger_postings`;
--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_postings_command_key` ON `ledger_postings` (`command_key`);
--> statement-breakpoint
CREATE TRIGGER ledger_postings_no_update BEFORE UPDATE ON ledger_postings
BEGIN SELECT RAISE(ABORT, 'ledger postings are append-only'); END;
--> statement-breakpoint
CREATE TRIGGER ledger_postings_no_delete BEFORE DELETE ON ledger_postings
BEGIN SELECT RAISE(ABORT, 'ledger postings are append-only'); END;
--> statement-breakpoint
CREATE TABLE `__old_liability_leaves` AS SELECT rowid, * FROM `liability_leaves`;
--> statement-breakpoint
DROP TABLE `liability_leaves`;
--> statement-breakpoint
CREATE TABLE `liability_leaves` (
	`snapshot_id` integer NOT NULL,
	`account_kind` text NOT NULL,
	`account_ref` text NOT NULL,
	`nonce` blob NOT NULL,
	`lamports` integer NOT NULL,
	`leaf_hash` blob NOT NULL,
	PRIMARY KEY(`snapshot_id`, `account_kind`, `account_ref`),
	FOREIGN KEY (`snapshot_id`) REFERENCES `liability_snapshots`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "liability_leaves_account_kind" CHECK("account_kind" IN ('user', 'handle')),
	CONSTRAINT "liability_leaves_lamports_not_negative" CHECK("lamports" >= 0)
);
--> statement-breakpoint
INSERT INTO `liability_leaves`("rowid", "snapshot_id", "account_kind", "account_ref", "nonce", "lamports", "leaf_hash") SELECT "rowid", "snapshot_id", "account_kind", "account_ref", "nonce", "lamports", "leaf_hash" FROM `__old_liability_leaves`;
--> statement-breakpoint
DROP TABLE `__old_liability_leaves`;
--> statement-breakpoint
CREATE TABLE `__old_payout_events` AS SELECT * FROM `payout_events`;
--> statement-breakpoint
DROP TABLE `payout_events`;
--> statement-breakpoint
CREATE TABLE `payout_events` (
	`id` integer PRIMARY KEY NOT NULL,
	`payout_id` integer NOT NULL,
	`status` text NOT NULL,
	`signature` text,
	`handle` text NOT NULL,
	`replacement_id` integer,
	CONSTRAINT "payout_events_status" CHECK("status" IN ('held', 'queued', 'sent', 'confirmed', 'failed', 'replaced'))
);
--> statement-breakpoint
INSERT INTO `payout_events`("id", "payout_id", "status", "signature", "handle", "replacement_id") SELECT "id", "payout_id", "status", "signature", "handle", "replacement_id" FROM `__old_payout_events`;
--> statement-breakpoint
DROP TABLE `__old_payout_events`;
--> statement-breakpoint
CREATE INDEX `payout_events_payout` ON `payout_events` (`payout_id`,`id`);
--> statement-breakpoint
CREATE TRIGGER payout_events_no_update BEFORE UPDATE ON payout_events
BEGIN SELECT RAISE(ABORT, 'payout events are append-only'); END;
--> statement-breakpoint
CREATE TRIGGER payout_events_no_delete BEFORE DELETE ON payout_events
BEGIN SELECT RAISE(ABORT, 'payout events are append-only'); END;
--> statement-breakpoint
CREATE TABLE `__old_payouts` AS SELECT * FROM `payouts`;
--> statement-breakpoint
DROP TABLE `payouts`;
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
	FOREIGN KEY (`idp_user_id`) REFERENCES `identities`(`idp_user_id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "payouts_kind" CHECK("kind" IN ('claim', 'autopay')),
	CONSTRAINT "payouts_status" CHECK("status" IN ('held', 'queued', 'sent', 'confirmed', 'failed', 'replaced')),
	CONSTRAINT "payouts_lamports_not_negative" CHECK("lamports" >= 0)
);
--> statement-breakpoint
INSERT INTO `payouts`("id", "idp_user_id", "lamports", "wallet", "kind", "status", "signature", "last_valid_block_height", "replaces_id", "error", "created_at_ms", "sent_at_ms", "confirmed_at_ms") SELECT "id", "idp_user_id", "lamports", "wallet", "kind", "status", "signature", "last_valid_block_height", "replaces_id", "error", "created_at_ms", "sent_at_ms", "confirmed_at_ms" FROM `__old_payouts`;
--> statement-breakpoint
DROP TABLE `__old_payouts`;
--> statement-breakpoint
CREATE INDEX `payouts_user` ON `payouts` (`idp_user_id`,`id`);
--> statement-breakpoint
CREATE INDEX `payouts_status` ON `payouts` (`status`);
--> statement-breakpoint
CREATE INDEX `payouts_sent_at` ON `payouts` (`sent_at_ms`);
--> statement-breakpoint
CREATE INDEX `payouts_signature` ON `payouts` (`signature`);
--> statement-breakpoint
CREATE UNIQUE INDEX `payouts_replaces` ON `payouts` (`replaces_id`);
--> statement-breakpoint
CREATE TABLE `__old_reconciliation_items` AS SELECT rowid, * FROM `reconciliation_items`;
--> statement-breakpoint
DROP TABLE `reconciliation_items`;
--> statement-breakpoint
CREATE TABLE `reconciliation_items` (
	`signature` text PRIMARY KEY NOT NULL,
	`reconciliation_id` integer NOT NULL,
	`position` integer NOT NULL,
	`slot` integer NOT NULL,
	`status` text NOT NULL,
	`kind` text,
	`note` text,
	CONSTRAINT "reconciliation_items_status" CHECK("status" IN ('pending', 'applied', 'ignored', 'unknown')),
	CONSTRAINT "reconciliation_items_slot_not_negative" CHECK("slot" >= 0)
);
--> statement-breakpoint
INSERT INTO `reconciliation_items`("rowid", "signature", "reconciliation_id", "position", "slot", "status", "kind", "note") SELECT "rowid", "signature", "reconciliation_id", "position", "slot", "status", "kind", "note" FROM `__old_reconciliation_items`;
--> statement-breakpoint
DROP TABLE `__old_reconciliation_items`;
--> statement-breakpoint
CREATE INDEX `reconciliation_items_order` ON `reconciliation_items` (`reconciliation_id`,`status`,`position`);
--> statement-breakpoint
CREATE TABLE `__old_reconciliations` AS SELECT * FROM `reconciliations`;
--> statement-breakpoint
DROP TABLE `reconciliations`;
--> statement-breakpoint
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
	`detail` text,
	CONSTRAINT "reconciliations_reason" CHECK("reason" IN ('restore', 'start')),
	CONSTRAINT "reconciliations_status" CHECK("status" IN ('scanning', 'applying', 'done', 'blocked')),
	CONSTRAINT "reconciliations_scanned_not_negative" CHECK("scanned" >= 0),
	CONSTRAINT "reconciliations_total_not_negative" CHECK("total" >= 0),
	CONSTRAINT "reconciliations_applied_not_negative" CHECK("applied" >= 0),
	CONSTRAINT "reconciliations_unknown_not_negative" CHECK("unknown" >= 0)
);
--> statement-breakpoint
INSERT INTO `reconciliations`("id", "reason", "status", "started_at_ms", "finished_at_ms", "scanned", "total", "applied", "unknown", "detail") SELECT "id", "reason", "status", "started_at_ms", "finished_at_ms", "scanned", "total", "applied", "unknown", "detail" FROM `__old_reconciliations`;
--> statement-breakpoint
DROP TABLE `__old_reconciliations`;
--> statement-breakpoint
CREATE INDEX `reconciliations_status` ON `reconciliations` (`status`);
--> statement-breakpoint
CREATE TABLE `__old_set_aside` AS SELECT rowid, * FROM `set_aside`;
--> statement-breakpoint
DROP TABLE `set_aside`;
--> statement-breakpoint
CREATE TABLE `set_aside` (
	`mint` text NOT NULL,
	`job` text NOT NULL,
	`reason` text NOT NULL,
	`failures` integer NOT NULL,
	`since_ms` integer NOT NULL,
	`set_aside_at_ms` integer,
	`retry_at_ms` integer,
	PRIMARY KEY(`mint`, `job`),
	CONSTRAINT "set_aside_job" CHECK("job" IN ('sweep', 'burns')),
	CONSTRAINT "set_aside_failures_not_negative" CHECK("failures" >= 0)
);
--> statement-breakpoint
INSERT INTO `set_aside`("rowid", "mint", "job", "reason", "failures", "since_ms", "set_aside_at_ms", "retry_at_ms") SELECT "rowid", "mint", "job", "reason", "failures", "since_ms", "set_aside_at_ms", "retry_at_ms" FROM `__old_set_aside`;
--> statement-breakpoint
DROP TABLE `__old_set_aside`;
--> statement-breakpoint
CREATE TABLE `__old_solvency_snapshots` AS SELECT * FROM `solvency_snapshots`;
--> statement-breakpoint
DROP TABLE `solvency_snapshots`;
--> statement-breakpoint
CREATE TABLE `solvency_snapshots` (
	`id` integer PRIMARY KEY NOT NULL,
	`at_ms` integer NOT NULL,
	`treasury_lamports` integer NOT NULL,
	`owed_lamports` integer NOT NULL,
	`trigger` text NOT NULL,
	CONSTRAINT "solvency_snapshots_treasury_lamports_not_negative" CHECK("treasury_lamports" >= 0),
	CONSTRAINT "solvency_snapshots_owed_lamports_not_negative" CHECK("owed_lamports" >= 0)
);
--> statement-breakpoint
INSERT INTO `solvency_snapshots`("id", "at_ms", "treasury_lamports", "owed_lamports", "trigger") SELECT "id", "at_ms", "treasury_lamports", "owed_lamports", "trigger" FROM `__old_solvency_snapshots`;
--> statement-breakpoint
DROP TABLE `__old_solvency_snapshots`;
--> statement-breakpoint
CREATE INDEX `solvency_snapshots_at` ON `solvency_snapshots` (`at_ms`);
--> statement-breakpoint
CREATE TABLE `__old_sweeps` AS SELECT * FROM `sweeps`;
--> statement-breakpoint
DROP TABLE `sweeps`;
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
	FOREIGN KEY (`token_id`) REFERENCES `tokens`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "sweeps_status" CHECK("status" IN ('sent', 'confirmed', 'failed')),
	CONSTRAINT "sweeps_total_lamports_not_negative" CHECK("total_lamports" >= 0),
	CONSTRAINT "sweeps_platform_lamports_not_negative" CHECK("platform_lamports" >= 0)
);
--> statement-breakpoint
INSERT INTO `sweeps`("id", "token_id", "signature", "last_valid_block_height", "status", "total_lamports", "platform_lamports", "error", "created_at_ms", "confirmed_at_ms") SELECT "id", "token_id", "signature", "last_valid_block_height", "status", "total_lamports", "platform_lamports", "error", "created_at_ms", "confirmed_at_ms" FROM `__old_sweeps`;
--> statement-breakpoint
DROP TABLE `__old_sweeps`;
--> statement-breakpoint
CREATE UNIQUE INDEX `sweeps_signature_token` ON `sweeps` (`signature`,`token_id`);
--> statement-breakpoint
CREATE INDEX `sweeps_token` ON `sweeps` (`token_id`,`id`,`status`,`total_lamports`,`platform_lamports`,`created_at_ms`,`confirmed_at_ms`,`signature`);
--> statement-breakpoint
CREATE INDEX `sweeps_status` ON `sweeps` (`status`);
--> statement-breakpoint
CREATE TABLE `__old_treasury_credits` AS SELECT rowid, * FROM `treasury_credits`;
--> statement-breakpoint
DROP TABLE `treasury_credits`;
--> statement-breakpoint
CREATE TABLE `treasury_credits` (
	`signature` text PRIMARY KEY NOT NULL,
	`slot` integer NOT NULL,
	`lamports` integer NOT NULL,
	`recorded_at_ms` integer NOT NULL,
	CONSTRAINT "treasury_credits_lamports_not_negative" CHECK("lamports" >= 0)
);
--> statement-breakpoint
INSERT INTO `treasury_credits`("rowid", "signature", "slot", "lamports", "recorded_at_ms") SELECT "rowid", "signature", "slot", "lamports", "recorded_at_ms" FROM `__old_treasury_credits`;
--> statement-breakpoint
DROP TABLE `__old_treasury_credits`;
--> statement-breakpoint
CREATE TABLE `__old_webhook_deliveries` AS SELECT * FROM `webhook_deliveries`;
--> statement-breakpoint
DROP TABLE `webhook_deliveries`;
--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY NOT NULL,
	`webhook_id` text NOT NULL,
	`at_us` integer NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at_ms` integer NOT NULL,
	`first_attempt_at_ms` integer,
	`payload` text,
	CONSTRAINT "webhook_deliveries_status" CHECK("status" IN ('pending', 'delivered', 'failed')),
	CONSTRAINT "webhook_deliveries_attempts_not_negative" CHECK("attempts" >= 0)
);
--> statement-breakpoint
INSERT INTO `webhook_deliveries`("id", "webhook_id", "at_us", "status", "attempts", "next_attempt_at_ms", "first_attempt_at_ms", "payload") SELECT "id", "webhook_id", "at_us", "status", "attempts", "next_attempt_at_ms", "first_attempt_at_ms", "payload" FROM `__old_webhook_deliveries`;
--> statement-breakpoint
DROP TABLE `__old_webhook_deliveries`;
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event` ON `webhook_deliveries` (`webhook_id`,`at_us`);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`status`,`next_attempt_at_ms`);
--> statement-breakpoint
CREATE TABLE `__old_withdrawals` AS SELECT * FROM `withdrawals`;
--> statement-breakpoint
DROP TABLE `withdrawals`;
--> statement-breakpoint
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
	`confirmed_at_ms` integer,
	CONSTRAINT "withdrawals_status" CHECK("status" IN ('queued', 'sent', 'confirmed', 'failed')),
	CONSTRAINT "withdrawals_lamports_not_negative" CHECK("lamports" >= 0),
	CONSTRAINT "withdrawals_attempt_not_negative" CHECK("attempt" >= 0)
);
--> statement-breakpoint
INSERT INTO `withdrawals`("id", "lamports", "wallet", "reason", "actor", "status", "signature", "last_valid_block_height", "attempt", "error", "created_at_ms", "sent_at_ms", "confirmed_at_ms") SELECT "id", "lamports", "wallet", "reason", "actor", "status", "signature", "last_valid_block_height", "attempt", "error", "created_at_ms", "sent_at_ms", "confirmed_at_ms" FROM `__old_withdrawals`;
--> statement-breakpoint
DROP TABLE `__old_withdrawals`;
--> statement-breakpoint
CREATE INDEX `withdrawals_status` ON `withdrawals` (`status`);
--> statement-breakpoint
PRAGMA defer_foreign_keys = OFF;
