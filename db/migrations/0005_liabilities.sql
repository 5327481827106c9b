CREATE TABLE `liability_incidents` (
	`id` integer PRIMARY KEY NOT NULL,
	`at_ms` integer NOT NULL,
	`owed_lamports` integer NOT NULL,
	`tree_lamports` integer,
	`detail` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `liability_leaves` (
	`snapshot_id` integer NOT NULL,
	`account_kind` text NOT NULL,
	`account_ref` text NOT NULL,
	`nonce` blob NOT NULL,
	`lamports` integer NOT NULL,
	`leaf_hash` blob NOT NULL,
	PRIMARY KEY(`snapshot_id`, `account_kind`, `account_ref`),
	FOREIGN KEY (`snapshot_id`) REFERENCES `liability_snapshots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `liability_snapshots` (
	`id` integer PRIMARY KEY NOT NULL,
	`at_ms` integer NOT NULL,
	`root` text NOT NULL,
	`total_lamports` integer NOT NULL,
	`leaf_count` integer NOT NULL,
	`posting_id` integer NOT NULL,
	`memo` text NOT NULL,
	`anchor_signature` text,
	`anchor_last_valid_block_height` integer,
	`anchor_wire` blob,
	`anchored_at_ms` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `liability_snapshots_at` ON `liability_snapshots` (`at_ms`);--> statement-breakpoint
CREATE INDEX `liability_snapshots_anchored` ON `liability_snapshots` (`anchored_at_ms`,`id`);