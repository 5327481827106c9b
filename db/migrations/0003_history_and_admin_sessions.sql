CREATE TABLE `admin_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at_ms` integer NOT NULL,
	`expires_at_ms` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `admin_sessions_expires` ON `admin_sessions` (`expires_at_ms`);--> statement-breakpoint
CREATE TABLE `solvency_snapshots` (
	`id` integer PRIMARY KEY NOT NULL,
	`at_ms` integer NOT NULL,
	`treasury_lamports` integer NOT NULL,
	`owed_lamports` integer NOT NULL,
	`trigger` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `solvency_snapshots_at` ON `solvency_snapshots` (`at_ms`);