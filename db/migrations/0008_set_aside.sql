CREATE TABLE `set_aside` (
	`mint` text NOT NULL,
	`job` text NOT NULL,
	`reason` text NOT NULL,
	`failures` integer NOT NULL,
	`since_ms` integer NOT NULL,
	`set_aside_at_ms` integer,
	`retry_at_ms` integer,
	PRIMARY KEY(`mint`, `job`)
);
