CREATE TABLE `solvency_snapshots` (
	`id` integer PRIMARY KEY NOT NULL,
	`at_ms` integer NOT NULL,
	`treasury_lamports` integer NOT NULL,
	`owed_lamports` integer NOT NULL,
	`trigger` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `solvency_snapshots_at` ON `solvency_snapshots` (`at_ms`);