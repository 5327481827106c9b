CREATE TABLE `feed_commits` (
	`seq` integer PRIMARY KEY NOT NULL,
	`at_us` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `feed_commits_at_us_unique` ON `feed_commits` (`at_us`);--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` integer PRIMARY KEY NOT NULL,
	`delivery_id` integer NOT NULL,
	`attempt` integer NOT NULL,
	`at_ms` integer NOT NULL,
	`ok` integer NOT NULL,
	`http_status` integer,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery` ON `webhook_attempts` (`delivery_id`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY NOT NULL,
	`webhook_id` text NOT NULL,
	`at_us` integer NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`next_attempt_at_ms` integer NOT NULL,
	`first_attempt_at_ms` integer,
	`payload` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event` ON `webhook_deliveries` (`webhook_id`,`at_us`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`status`,`next_attempt_at_ms`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`url` text NOT NULL,
	`types` text,
	`enabled` integer NOT NULL,
	`created_at_ms` integer NOT NULL,
	`failing_since_ms` integer
);
--> statement-breakpoint
-- Events written before this migration are taken in time order as their commit order.
INSERT INTO `feed_commits` (`at_us`) SELECT `at_us` FROM `feed_events` ORDER BY `at_us`;
