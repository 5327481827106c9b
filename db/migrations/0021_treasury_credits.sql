CREATE TABLE `treasury_credits` (
	`signature` text PRIMARY KEY NOT NULL,
	`slot` integer NOT NULL,
	`lamports` integer NOT NULL,
	`recorded_at_ms` integer NOT NULL
);
